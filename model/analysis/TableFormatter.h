#pragma once
// Prints a Table as nsys prints its stats: "column" (aligned text with thousands separators),
// "table" (the same with borders), "csv", "tsv" and "json" (an array of row objects). Times
// are converted to the --timeunit (ns, us, ms, s) and the headers say which.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "model/analysis/Table.h"

namespace sl::analysis {

enum class TableFormat : uint8_t { Column, Table, Csv, Tsv, Json };

struct FormatOptions {
    TableFormat format = TableFormat::Column;
    std::string timeUnit = "ns";  // ns, us, ms, s
};

std::optional<TableFormat> parseTableFormat(const std::string& s);
// Nanoseconds per unit: ns 1, us 1000, ms 1e6, s 1e9; nullopt for anything else.
std::optional<int64_t> timeUnitNs(const std::string& unit);
std::string_view formatExtension(TableFormat f);  // "txt", "csv", "tsv", "json"

// One cell as text. `grouping` adds thousands separators (column and table formats).
std::string formatCell(const Table& t, size_t col, size_t row, const std::string& timeUnit, bool grouping);
void writeTable(std::ostream& out, const Table& t, const FormatOptions& options);

}  // namespace sl::analysis
