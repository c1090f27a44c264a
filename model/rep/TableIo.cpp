#include "model/rep/TableIo.h"

#include <vector>

namespace sl::repschema {

std::string unsetColumns(const TableDef& table, uint64_t set) {
    std::string names;
    for (size_t i = 0; i < table.columns.size(); ++i)
        if (!(set >> i & 1))
            names += (names.empty() ? "" : ", ") + std::string(table.columns[i].name);
    return "table '" + std::string(table.name) + "': no value for column(s) " + names;
}

Result<std::string> selectFromFile(const sqlite::Db& db, const TableDef& table,
                                   std::string_view suffix) {
    // The file's own columns: an older writer's table may lack nullable columns appended since.
    sqlite::Stmt info(db, "SELECT name FROM pragma_table_info(?)");
    if (!info.valid()) return makeError(info.prepareError());
    info.bind(1, table.name);
    std::vector<std::string> present;
    while (info.step()) present.emplace_back(info.text(0));
    if (!info.ok()) return makeError(info.error());
    if (present.empty()) {
        if (table.optional) return std::string();
        return makeError("missing (the file is damaged or not a Sightline report)");
    }
    for (const ColumnDef& c : table.columns) {
        if (!c.required()) continue;
        bool found = false;
        for (const auto& p : present) found = found || p == c.name;
        if (!found) return makeError("has no column '" + std::string(c.name) + "'");
    }
    std::string sql = selectSql(table, present);
    if (!suffix.empty()) sql += " " + std::string(suffix);
    return sql;
}

}  // namespace sl::repschema
