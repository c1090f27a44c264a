// "Copy as TSV" of the selection statistics: three tab-separated tables, machine-friendly
// units (ns, bytes, percent with two decimals) so the text pastes into a spreadsheet as is.
#include <cstdio>

#include "model/analysis/SelectionStats.h"

namespace sl::analysis {
namespace {

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// Tabs and newlines inside a name would break the columns.
std::string cell(std::string s) {
    for (char& c : s)
        if (c == '\t' || c == '\n' || c == '\r') c = ' ';
    return s;
}

}  // namespace

std::string selectionStatsTsv(const Report& report, const SelectionStats& st) {
    std::string out;
    out += "Row\tName\tCount\tTotal (ns)\tAverage (ns)\tMin (ns)\tMax (ns)\tShare (%)\n";
    for (const auto& g : st.groups) {
        out += cell(report.trackTitle(report.tracks[g.track])) + '\t' + cell(g.name) + '\t' + std::to_string(g.count) +
               '\t' + std::to_string(g.total) + '\t' + fixed(g.average(), 1) + '\t' + std::to_string(g.min) + '\t' +
               std::to_string(g.max) + '\t' + fixed(g.share * 100.0, 2) + '\n';
    }
    out += "\nDevice\tProcess\tContext\tStream\tBusy (ns)\tBusy (%)\n";
    for (const auto& d : st.devices)
        out += std::to_string(d.device) + "\tall\tall\tall\t" + std::to_string(d.busy) + '\t' + fixed(d.share * 100.0, 2) + '\n';
    for (const auto& s : st.streams)
        out += std::to_string(s.device) + '\t' + std::to_string(s.pid) + '\t' + std::to_string(s.context) + '\t' +
               std::to_string(s.stream) + '\t' + std::to_string(s.busy) + '\t' + fixed(s.share * 100.0, 2) + '\n';
    out += "\nCopy kind\tCount\tBytes\tDuration (ns)\tBandwidth (GB/s)\n";
    for (const auto& c : st.copies)
        out += c.label + '\t' + std::to_string(c.count) + '\t' + std::to_string(c.bytes) + '\t' + std::to_string(c.duration) +
               '\t' + fixed(c.bytesPerSecond() / 1e9, 3) + '\n';
    return out;
}

}  // namespace sl::analysis
