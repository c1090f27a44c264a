#include "viewer/capture/CaptureProgress.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <climits>
#include <cmath>
#include <optional>

namespace sl::viewer {

namespace {

// A pid or count of the channel: a whole number from 0 to 2^53 (what a JSON number holds
// exactly), else none. A double out of qint64's range must never be converted (that is
// undefined), and a negative count is not one.
std::optional<qint64> wholeNumber(const QJsonValue& v) {
    if (!v.isDouble()) return std::nullopt;
    const double d = v.toDouble();
    if (!(d >= 0 && d <= 9007199254740992.0) || d != std::floor(d)) return std::nullopt;
    return qint64(d);
}

}  // namespace

bool CaptureProgress::feedLine(const QString& line) {
    const QJsonDocument doc = QJsonDocument::fromJson(line.toUtf8());
    if (!doc.isObject()) return false;
    const QJsonObject o = doc.object();
    const QString event = o.value("event").toString();
    if (event == "started") {
        const auto pid = wholeNumber(o.value("pid"));
        if (!pid || *pid == 0) return false;
        m_rootPid = *pid;
    } else if (event == "progress") {
        const auto events = wholeNumber(o.value("events"));
        const auto processes = wholeNumber(o.value("processes"));
        if (!events && !processes) return false;
        if (events) m_events = *events;
        if (processes && *processes <= INT_MAX) m_processes = int(*processes);
    } else if (event == "warning") {
        m_warnings << o.value("text").toString();
    } else if (event == "report") {
        const QString path = o.value("path").toString();
        if (path.isEmpty()) return false;
        m_reports << path;
    } else if (event == "finished") {
        // The program's exit status (0-255), or 128 + signal when a signal ended it.
        const auto code = wholeNumber(o.value("exit_code"));
        m_exitCode = code && *code <= 255 ? int(*code) : 0;
    } else if (event == "copy") {
        const auto bytes = wholeNumber(o.value("bytes"));
        const auto total = wholeNumber(o.value("total"));
        if (!bytes || !total) return false;
        m_copied = *bytes;
        m_copyTotal = *total;
    } else if (event == "error") {
        m_lastError = o.value("message").toString();
    } else {
        return false;  // "message": the same text is in the log from stderr
    }
    return true;
}

}  // namespace sl::viewer
