#pragma once
// Internal to the exporters: begins a table on a RowSink, counts its rows and records them in
// the export statistics when finished.
#include "model/export/NsysTables.h"

namespace sl::exporter {

class TableScope {
public:
    TableScope(RowSink& sink, ExportStats& stats, std::string_view name, std::span<const ColumnDef> cols)
        : m_sink(sink), m_stats(stats), m_name(name), m_open(sink.beginTable(name, cols)) {}
    bool open() const { return m_open; }
    void row(std::span<const Cell> cells) {
        m_sink.row(cells);
        ++m_rows;
    }
    Status finish() {
        if (!m_open) return {};
        m_open = false;
        m_stats.rows += m_rows;
        m_stats.tables.emplace_back(std::string(m_name), m_rows);
        return m_sink.endTable();
    }

private:
    RowSink& m_sink;
    ExportStats& m_stats;
    std::string_view m_name;
    bool m_open;
    uint64_t m_rows = 0;
};

}  // namespace sl::exporter
