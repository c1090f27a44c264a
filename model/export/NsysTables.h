#pragma once
// The nsys SQLite export schema (the core tables and columns scripts rely on), produced as a
// stream of typed rows so the SQLite and CSV exporters write the same tables. Timestamps are
// nanoseconds from the session start, as in nsys exports; globalTid = 0x1000000000000 |
// pid << 24 | tid and globalPid = 0x1000000000000 | pid << 24 (nsys's serialized GlobalId);
// names are ids into StringIds (the report's own string ids).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/export/ExportOptions.h"

namespace sl::exporter {

struct Cell {
    enum class Type : uint8_t { Null, Int, Real, Text };
    Type type = Type::Null;
    int64_t i = 0;
    double d = 0;
    std::string_view s;

    static Cell null() { return {}; }
    static Cell of(int64_t v) { return {Type::Int, v, 0, {}}; }
    static Cell real(double v) { return {Type::Real, 0, v, {}}; }
    static Cell text(std::string_view v) { return {Type::Text, 0, 0, v}; }
};

struct ColumnDef {
    std::string_view name;
    std::string_view sqlType;  // "INTEGER NOT NULL", "TEXT", ...
};

// Receives the tables one after another.
class RowSink {
public:
    virtual ~RowSink() = default;
    // Returns false to skip this table (then no rows are sent for it).
    virtual bool beginTable(std::string_view name, std::span<const ColumnDef> columns) = 0;
    virtual void row(std::span<const Cell> cells) = 0;
    virtual Status endTable() = 0;
};

int64_t globalPid(int64_t pid);
int64_t globalTid(int64_t pid, int64_t tid);

// Writes every table of the schema that has data (and the ENUM_* and META_DATA_EXPORT tables).
Status emitNsysTables(const Report& report, const ExportOptions& options, RowSink& sink, ExportStats& stats);

}  // namespace sl::exporter
