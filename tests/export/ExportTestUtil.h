#pragma once
// Helpers shared by the export tests (and tests/analysis/ImportedFixturesTest.cpp): SQL over an
// exported (or nsys) SQLite file, the columns of its tables, and the text of an exported file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "model/export/SqliteExporter.h"
#include "model/rep/Sqlite.h"
#include "tests/unit/TestUtil.h"

namespace sl::test {

using Rows = std::vector<std::vector<std::string>>;

// The rows of `sql` over the SQLite file `db`, every value as text (NULL as "NULL").
inline Rows query(const std::string& db, const std::string& sql) {
    sqlite::Db d;
    EXPECT_TRUE(d.openReadOnly(db).ok()) << db;
    sqlite::Stmt s(d, sql);
    EXPECT_TRUE(s.valid()) << s.prepareError() << " in " << sql;
    Rows rows;
    while (s.valid() && s.step()) {
        std::vector<std::string> row;
        for (int i = 0; i < s.columnCount(); ++i) row.emplace_back(s.isNull(i) ? "NULL" : std::string(s.text(i)));
        rows.push_back(row);
    }
    return rows;
}

// The column names of `table`, in order, comma-separated.
inline std::string columnsOf(const std::string& db, const std::string& table) {
    std::string out;
    for (const auto& row : query(db, "SELECT name FROM pragma_table_info('" + table + "') ORDER BY cid"))
        out += (out.empty() ? "" : ",") + row[0];
    return out;
}

// The whole file.
inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The lines of `text` that contain `needle`, without a trailing comma, sorted (the events of
// one category in a Chrome trace).
inline std::vector<std::string> linesWith(const std::string& text, const std::string& needle) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.find(needle) == std::string::npos) continue;
        if (!line.empty() && line.back() == ',') line.pop_back();
        out.push_back(line);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Each of `tables` is in `db` and has no row (a traced runtime's tables without events in the
// window).
inline void expectEmptyTables(const std::string& db, std::initializer_list<const char*> tables) {
    for (const char* t : tables) EXPECT_EQ(query(db, std::string("SELECT count(*) FROM ") + t), (Rows{{"0"}})) << t;
}

// The SQLite export of `plain` (a report without the runtime's data) has no table whose name
// is LIKE `pattern`.
inline void expectNoTablesLike(const Report& plain, const TempDir& dir, const std::string& pattern) {
    const std::string db = dir.file("plain.sqlite");
    ASSERT_TRUE(exporter::exportSqlite(plain, db).ok());
    EXPECT_EQ(query(db, "SELECT count(*) FROM sqlite_master WHERE name LIKE '" + pattern + "'"), (Rows{{"0"}}));
}

// Where the export tests know python3 (SIGHTLINE_PYTHON3): the Chrome trace at `path` is valid
// JSON with `count` events of category `cat`.
inline void expectJsonEventCount(const std::string& path, const std::string& cat, int count) {
#ifdef SIGHTLINE_PYTHON3
    if (std::string(SIGHTLINE_PYTHON3).empty()) return;
    const std::string cmd = std::string(SIGHTLINE_PYTHON3) +
                            " -c \"import json,sys; d=json.load(open(sys.argv[1])); "
                            "sys.exit(0 if sum(e.get('cat')=='" + cat + "' for e in d['traceEvents'])==" +
                            std::to_string(count) + " else 1)\" " + path;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << "not valid JSON, or not " << count << " " << cat << " events";
#else
    (void)path, (void)cat, (void)count;
#endif
}

}  // namespace sl::test
