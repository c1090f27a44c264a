#include "viewer/ReportSummary.h"

#include <map>

#include "model/util/Format.h"

namespace sl::viewer {

namespace {
QString esc(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())).toHtmlEscaped();
}
QString q(const std::string& s) {
    return esc(s);
}
}  // namespace

QString reportSummaryHtml(const Report& r, const QString& path) {
    QString h;
    const Session& s = r.session;
    std::string cmd;
    for (const auto& a : s.argv) cmd += (cmd.empty() ? "" : " ") + a;
    h += "<h2>" + path.toHtmlEscaped() + "</h2><table>";
    auto row = [&h](const QString& k, const QString& v) {
        h += "<tr><td><b>" + k + "</b></td><td>" + v + "</td></tr>";
    };
    row("Command", q(cmd));
    // Imported traces (Kineto, Chrome) know none of these: no "(, )" for the empty parts.
    std::string details;
    for (const std::string* part : {&s.os, &s.cpuModel})
        if (!part->empty()) details += (details.empty() ? "" : ", ") + *part;
    std::string host = s.hostName.empty() ? std::string(details.empty() ? "unknown" : "")
                                          : s.hostName;
    if (!details.empty()) host += host.empty() ? details : " (" + details + ")";
    row("Host", q(host));
    row("Started", q(formatUtc(s.startUtcNs)));
    row("Duration", q(formatDuration(s.durationNs)));
    row("Source", q(s.source));
    h += "</table>";
    h += QString("<h3>Processes (%1)</h3><ul>").arg(r.processes.size());
    for (const auto& p : r.processes) {
        const QString rank = p.mpiRank < 0 ? QString()
                             : p.mpiWorldSize > 0
                                 ? QString(" (MPI rank %1 of %2)").arg(p.mpiRank).arg(p.mpiWorldSize)
                                 : QString(" (MPI rank %1)").arg(p.mpiRank);
        h += QString("<li>%1 %2%3 <i>%4</i></li>")
                 .arg(p.pid)
                 .arg(q(p.name), rank, q(p.commandLine));
    }
    h += QString("</ul><h3>GPUs (%1)</h3><ul>").arg(r.gpus.size());
    for (const auto& g : r.gpus)
        h += QString("<li>%1: %2, %3 SMs</li>").arg(g.deviceId).arg(q(g.name)).arg(g.smCount);
    std::map<EventKind, uint64_t> kinds;
    for (const auto& t : r.tracks) kinds[t.key.kind] += t.size();
    h += QString("</ul><h3>Events: %1</h3><table>").arg(q(formatCount(r.eventCount())));
    for (const auto& [k, n] : kinds) row(esc(schemaOf(k).label), q(formatCount(n)));
    h += QString("</table><h3>Diagnostics (%1)</h3><ul>").arg(r.diagnostics.size());
    for (const auto& d : r.diagnostics)
        h += QString("<li>%1: %2 (%3)</li>").arg(q(d.name)).arg(d.count).arg(q(d.reason));
    h += "</ul>";
    return h;
}

}  // namespace sl::viewer
