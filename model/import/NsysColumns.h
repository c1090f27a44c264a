#pragma once
// Column-tolerant SELECTs over an nsys export. Column sets differ between nsys versions (KERNEL
// has 26-40 columns), so a query names each wanted column with its alternatives; absent ones
// read as NULL. Callers read columns by the position they asked for them.
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include "model/rep/Sqlite.h"

namespace sl::import {

class NsysColumns {
public:
    NsysColumns(const sqlite::Db& db, const std::string& table);

    bool has(const std::string& column) const { return m_columns.count(column) != 0; }
    // The first alternative the table has, or "NULL".
    std::string pick(std::initializer_list<const char*> alternatives) const;
    const std::string& table() const { return m_table; }

private:
    std::string m_table;
    std::set<std::string> m_columns;
};

// A wanted column: its names across nsys versions, first preferred.
using ColumnAlternatives = std::vector<const char*>;

// "SELECT a, NULL, c FROM table[ where]" for the wanted columns.
std::string buildSelect(const NsysColumns& columns, const std::vector<ColumnAlternatives>& wanted,
                        const std::string& where = {});

}  // namespace sl::import
