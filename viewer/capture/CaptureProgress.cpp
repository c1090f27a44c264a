#include "viewer/capture/CaptureProgress.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace sl::viewer {

bool CaptureProgress::feedLine(const QString& line) {
    const QJsonDocument doc = QJsonDocument::fromJson(line.toUtf8());
    if (!doc.isObject()) return false;
    const QJsonObject o = doc.object();
    const QString event = o.value("event").toString();
    if (event == "started") {
        m_rootPid = qint64(o.value("pid").toDouble(-1));
    } else if (event == "progress") {
        m_events = qint64(o.value("events").toDouble(double(m_events)));
        m_processes = o.value("processes").toInt(m_processes);
    } else if (event == "warning") {
        m_warnings << o.value("text").toString();
    } else if (event == "report") {
        const QString path = o.value("path").toString();
        if (path.isEmpty()) return false;
        m_reports << path;
    } else if (event == "finished") {
        m_exitCode = o.value("exit_code").toInt(0);
    } else if (event == "error") {
        m_lastError = o.value("message").toString();
    } else {
        return false;  // "message": the same text is in the log from stderr
    }
    return true;
}

}  // namespace sl::viewer
