#include "model/analysis/TableFormatter.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <vector>

#include "model/util/JsonWriter.h"

namespace sl::analysis {
namespace {

// Inserts thousands separators into the integer part of a plain decimal number.
std::string group(const std::string& s) {
    size_t begin = (!s.empty() && s[0] == '-') ? 1 : 0;
    size_t end = s.find('.');
    if (end == std::string::npos) end = s.size();
    std::string out = s.substr(0, begin);
    for (size_t i = begin; i < end; ++i) {
        out += s[i];
        const size_t left = end - i - 1;
        if (left > 0 && left % 3 == 0) out += ',';
    }
    out += s.substr(end);
    return out;
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s = buf;
    if (s == "-0" || s.rfind("-0.", 0) == 0) {  // no negative zero in output
        bool zero = s.find_first_not_of("-0.") == std::string::npos;
        if (zero) s.erase(0, 1);
    }
    return s;
}

int unitDecimals(int64_t nsPerUnit) {
    int d = 0;
    for (int64_t n = nsPerUnit; n > 1; n /= 10) ++d;
    return d;
}

bool isNumeric(const TableColumn& c) { return c.type != CellType::Text; }

// Appends a CSV field, quoted when it holds the separator, a quote or a line break.
void appendCsv(std::string& out, std::string_view s, char sep) {
    const char specials[] = {'"', '\n', '\r', sep, 0};
    if (s.find_first_of(specials) == std::string_view::npos) {
        out += s;
        return;
    }
    out += '"';
    for (char ch : s) {
        if (ch == '"') out += '"';
        out += ch;
    }
    out += '"';
}

// Appends a TSV field: tabs and line breaks become spaces.
void appendTsv(std::string& out, std::string_view s) {
    const size_t at = out.size();
    out += s;
    for (size_t i = at; i < out.size(); ++i)
        if (out[i] == '\t' || out[i] == '\n' || out[i] == '\r') out[i] = ' ';
}

void writeAligned(std::ostream& out, const Table& t, const FormatOptions& o, bool borders) {
    const size_t nc = t.columns.size(), nr = t.rowCount();
    std::vector<std::vector<std::string>> cells(nc);
    std::vector<size_t> width(nc);
    for (size_t c = 0; c < nc; ++c) {
        std::string h = t.header(c, o.timeUnit);
        width[c] = h.size();
        cells[c].reserve(nr);
        for (size_t r = 0; r < nr; ++r) {
            cells[c].push_back(formatCell(t, c, r, o.timeUnit, true));
            width[c] = std::max(width[c], cells[c].back().size());
        }
    }
    auto pad = [](const std::string& s, size_t w, bool right) {
        std::string fill(w > s.size() ? w - s.size() : 0, ' ');
        return right ? fill + s : s + fill;
    };
    const char* open = borders ? "| " : " ";
    const char* sep = borders ? " | " : "  ";
    const char* close = borders ? " |" : "";
    auto line = [&](auto cellAt) {
        std::string s = open;
        for (size_t c = 0; c < nc; ++c) {
            if (c) s += sep;
            s += cellAt(c);
        }
        s += close;
        while (!borders && !s.empty() && s.back() == ' ') s.pop_back();
        out << s << '\n';
    };
    line([&](size_t c) { return pad(t.header(c, o.timeUnit), width[c], isNumeric(t.columns[c])); });
    line([&](size_t c) { return std::string(width[c], '-'); });
    for (size_t r = 0; r < nr; ++r) line([&](size_t c) { return pad(cells[c][r], width[c], isNumeric(t.columns[c])); });
}

void writeSeparated(std::ostream& out, const Table& t, const FormatOptions& o, char sep) {
    const size_t nc = t.columns.size(), nr = t.rowCount();
    std::string line;
    auto field = [&](std::string_view s) {
        if (sep == ',') appendCsv(line, s, sep);
        else appendTsv(line, s);
    };
    for (size_t c = 0; c < nc; ++c) {
        if (c) line += sep;
        field(t.header(c, o.timeUnit));
    }
    line += '\n';
    out << line;
    for (size_t r = 0; r < nr; ++r) {
        line.clear();
        for (size_t c = 0; c < nc; ++c) {
            if (c) line += sep;
            const TableColumn& col = t.columns[c];
            if (col.isNull(r)) continue;
            if (col.type == CellType::Text) field(col.texts[r]);  // no copy of long names
            else line += formatCell(t, c, r, o.timeUnit, false);
        }
        line += '\n';
        out << line;
    }
}

void writeJson(std::ostream& out, const Table& t, const FormatOptions& o) {
    JsonWriter j(out, true);
    const int64_t div = timeUnitNs(o.timeUnit).value_or(1);
    j.beginArray();
    for (size_t r = 0; r < t.rowCount(); ++r) {
        j.beginObject();
        for (size_t c = 0; c < t.columns.size(); ++c) {
            const TableColumn& col = t.columns[c];
            j.key(t.header(c, o.timeUnit));
            if (col.isNull(r)) {
                j.null();
                continue;
            }
            const bool time = col.measure == Measure::Duration || col.measure == Measure::Timestamp;
            switch (col.type) {
                case CellType::Int:
                    if (time && div != 1) j.value(static_cast<double>(col.ints[r]) / static_cast<double>(div));
                    else j.value(col.ints[r]);
                    break;
                case CellType::Real: {
                    const double v = time ? col.reals[r] / static_cast<double>(div) : col.reals[r];
                    const double scale = std::pow(10.0, col.decimals + (time ? unitDecimals(div) : 0));
                    j.value(std::round(v * scale) / scale);
                    break;
                }
                case CellType::Text: j.value(col.texts[r]); break;
            }
        }
        j.endObject();
    }
    j.endArray();
    out << '\n';
}

}  // namespace

std::optional<TableFormat> parseTableFormat(const std::string& s) {
    if (s == "column") return TableFormat::Column;
    if (s == "table") return TableFormat::Table;
    if (s == "csv") return TableFormat::Csv;
    if (s == "tsv") return TableFormat::Tsv;
    if (s == "json") return TableFormat::Json;
    return std::nullopt;
}

std::optional<int64_t> timeUnitNs(const std::string& unit) {
    if (unit == "ns" || unit == "nsec") return 1;
    if (unit == "us" || unit == "usec") return 1'000;
    if (unit == "ms" || unit == "msec") return 1'000'000;
    if (unit == "s" || unit == "sec") return 1'000'000'000;
    return std::nullopt;
}

std::string_view formatExtension(TableFormat f) {
    switch (f) {
        case TableFormat::Csv: return "csv";
        case TableFormat::Tsv: return "tsv";
        case TableFormat::Json: return "json";
        case TableFormat::Column:
        case TableFormat::Table: break;
    }
    return "txt";
}

std::string formatCell(const Table& t, size_t col, size_t row, const std::string& timeUnit, bool grouping) {
    const TableColumn& c = t.columns[col];
    if (c.isNull(row)) return {};
    const bool time = c.measure == Measure::Duration || c.measure == Measure::Timestamp;
    const int64_t div = time ? timeUnitNs(timeUnit).value_or(1) : 1;
    std::string s;
    switch (c.type) {
        case CellType::Text: return c.texts[row];
        case CellType::Int:
            if (div == 1) s = std::to_string(c.ints[row]);
            else s = fixed(static_cast<double>(c.ints[row]) / static_cast<double>(div), unitDecimals(div));
            break;
        case CellType::Real:
            s = fixed(c.reals[row] / static_cast<double>(div), c.decimals + (div == 1 ? 0 : unitDecimals(div)));
            break;
    }
    // Timestamps and ids read better without separators; nsys groups only durations and counts.
    if (grouping && c.measure != Measure::Timestamp && c.measure != Measure::Id) s = group(s);
    return s;
}

void writeTable(std::ostream& out, const Table& t, const FormatOptions& o) {
    switch (o.format) {
        case TableFormat::Column: writeAligned(out, t, o, false); break;
        case TableFormat::Table: writeAligned(out, t, o, true); break;
        case TableFormat::Csv: writeSeparated(out, t, o, ','); break;
        case TableFormat::Tsv: writeSeparated(out, t, o, '\t'); break;
        case TableFormat::Json: writeJson(out, t, o); break;
    }
}

}  // namespace sl::analysis
