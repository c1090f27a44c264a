#include "model/import/NsysColumns.h"

namespace sl::import {

NsysColumns::NsysColumns(const sqlite::Db& db, const std::string& table) : m_table(table) {
    sqlite::Stmt st(db, "SELECT name FROM pragma_table_info(?1)");
    if (!st.valid()) return;
    st.bind(1, std::string_view(table));
    while (st.step()) m_columns.insert(std::string(st.text(0)));
}

std::string NsysColumns::pick(std::initializer_list<const char*> alternatives) const {
    for (const char* a : alternatives)
        if (has(a)) return std::string("\"") + a + "\"";
    return "NULL";
}

std::string buildSelect(const NsysColumns& columns, const std::vector<ColumnAlternatives>& wanted,
                        const std::string& where) {
    std::string sql = "SELECT ";
    for (size_t i = 0; i < wanted.size(); ++i) {
        if (i) sql += ", ";
        std::string chosen = "NULL";
        for (const char* a : wanted[i]) {
            if (columns.has(a)) {
                chosen = std::string("\"") + a + "\"";
                break;
            }
        }
        sql += chosen;
    }
    sql += " FROM \"" + columns.table() + "\"";
    if (!where.empty()) sql += " WHERE " + where;
    return sql;
}

}  // namespace sl::import
