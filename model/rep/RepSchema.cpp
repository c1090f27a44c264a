#include "model/rep/RepSchema.h"

#include <algorithm>

namespace sl::repschema {

std::string createTableSql(const TableDef& table) {
    std::string sql = "CREATE TABLE " + std::string(table.name) + "(";
    for (size_t i = 0; i < table.columns.size(); ++i) {
        if (i) sql += ", ";
        sql += table.columns[i].name;
        sql += ' ';
        sql += table.columns[i].type;
    }
    return sql + ");";
}

std::string createIndexSql(const IndexDef& index) {
    return std::string(index.unique ? "CREATE UNIQUE INDEX " : "CREATE INDEX ") +
           std::string(index.name) + " ON " + std::string(index.table) + "(" +
           std::string(index.columns) + ");";
}

std::string createIndexesSql() {
    std::string sql;
    for (const IndexDef& i : kIndexes) sql += createIndexSql(i) + "\n";
    return sql;
}

std::string insertSql(const TableDef& table) {
    std::string names, marks;
    for (size_t i = 0; i < table.columns.size(); ++i) {
        if (i) {
            names += ", ";
            marks += ",";
        }
        names += table.columns[i].name;
        marks += "?";
    }
    return "INSERT INTO " + std::string(table.name) + "(" + names + ") VALUES(" + marks + ")";
}

std::string selectSql(const TableDef& table, std::span<const std::string> present) {
    std::string sql = "SELECT ";
    for (size_t i = 0; i < table.columns.size(); ++i) {
        if (i) sql += ", ";
        const std::string_view name = table.columns[i].name;
        if (std::find(present.begin(), present.end(), name) != present.end())
            sql += name;
        else
            sql += "NULL";
    }
    return sql + " FROM " + std::string(table.name);
}

namespace {

// A table cell: "|" would end the cell early.
std::string cell(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '|')
            out += "\\|";
        else
            out += c;
    }
    return out;
}

}  // namespace

std::string markdownTables() {
    std::string md;
    for (const TableDef* t : kTables) {
        md += "### " + std::string(t->name) + "\n";
        md += std::string(t->doc) + "\n\n";
        md += "| column | type | meaning |\n|---|---|---|\n";
        for (const ColumnDef& c : t->columns)
            md += "| " + std::string(c.name) + " | " + std::string(c.type) + " | " +
                  cell(c.meaning) + " |\n";
        md += "\n";
    }
    md += "### Indexes\n";
    md += "Created after the chunks are written.\n\n| index | on | purpose |\n|---|---|---|\n";
    for (const IndexDef& i : kIndexes)
        md += "| " + std::string(i.name) + " | " + (i.unique ? "unique " : "") +
              std::string(i.table) + "(" + std::string(i.columns) + ") | " + cell(i.purpose) +
              " |\n";
    return md;
}

}  // namespace sl::repschema
