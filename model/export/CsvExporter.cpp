#include "model/export/CsvExporter.h"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>

#include "model/export/NsysTables.h"

namespace sl::exporter {
namespace {

class CsvSink : public RowSink {
public:
    CsvSink(std::string dir, const std::string& regex) : m_dir(std::move(dir)) {
        if (!regex.empty()) m_filter.emplace(regex, std::regex::ECMAScript);
    }
    ~CsvSink() override {
        if (m_file) std::fclose(m_file);
    }

    bool beginTable(std::string_view name, std::span<const ColumnDef> columns) override {
        if (m_filter && !std::regex_search(std::string(name), *m_filter)) return false;
        m_path = m_dir + "/" + std::string(name) + ".csv";
        m_file = std::fopen(m_path.c_str(), "wb");
        if (!m_file) {
            m_error = "cannot write " + m_path;
            return false;
        }
        std::setvbuf(m_file, nullptr, _IOFBF, 1 << 20);
        m_line.clear();
        for (size_t i = 0; i < columns.size(); ++i) {
            if (i) m_line += ',';
            m_line += columns[i].name;
        }
        m_line += '\n';
        std::fwrite(m_line.data(), 1, m_line.size(), m_file);
        return true;
    }

    void row(std::span<const Cell> cells) override {
        m_line.clear();
        char buf[32];
        for (size_t i = 0; i < cells.size(); ++i) {
            if (i) m_line += ',';
            const Cell& c = cells[i];
            switch (c.type) {
                case Cell::Type::Null: break;
                case Cell::Type::Int: {
                    auto r = std::to_chars(buf, buf + sizeof buf, c.i);
                    m_line.append(buf, r.ptr);
                    break;
                }
                case Cell::Type::Real: {
                    int n = std::snprintf(buf, sizeof buf, "%.17g", c.d);
                    m_line.append(buf, static_cast<size_t>(n));
                    break;
                }
                case Cell::Type::Text: quote(c.s); break;
            }
        }
        m_line += '\n';
        std::fwrite(m_line.data(), 1, m_line.size(), m_file);
    }

    Status endTable() override {
        if (!m_file) return m_error.empty() ? Status{} : Status(makeError(m_error));
        const bool bad = std::ferror(m_file) != 0;
        const bool closed = std::fclose(m_file) == 0;
        m_file = nullptr;
        if (bad || !closed) return makeError("error writing " + m_path);
        return {};
    }

    const std::string& error() const { return m_error; }

private:
    void quote(std::string_view s) {
        if (s.find_first_of(",\"\n\r") == std::string_view::npos) {
            m_line += s;
            return;
        }
        m_line += '"';
        for (char ch : s) {
            if (ch == '"') m_line += '"';
            m_line += ch;
        }
        m_line += '"';
    }

    std::string m_dir, m_path, m_line, m_error;
    std::optional<std::regex> m_filter;
    std::FILE* m_file = nullptr;
};

}  // namespace

Result<ExportStats> exportCsv(const Report& report, const std::string& directory, const ExportOptions& options) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(directory, ec) && !fs::is_directory(directory, ec))
        return makeError(directory + " exists and is not a directory");
    if (fs::exists(directory, ec) && !fs::is_empty(directory, ec) && !options.overwrite)
        return makeError(directory + " is not empty (use --force-overwrite to write into it)");
    fs::create_directories(directory, ec);
    if (ec) return makeError("cannot create directory " + directory + ": " + ec.message());
    try {
        CsvSink sink(directory, options.tablesRegex);
        ExportStats stats;
        Status s = emitNsysTables(report, options, sink, stats);
        if (s && !sink.error().empty()) s = makeError(sink.error());
        if (!s) return makeError(s.error());
        return stats;
    } catch (const std::regex_error& e) {
        return makeError("--tables: '" + options.tablesRegex + "' is not a valid regular expression: " + e.what());
    }
}

}  // namespace sl::exporter
