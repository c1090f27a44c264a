#pragma once
// Minimal RAII wrapper over the SQLite C API. Errors come back as messages that name the
// statement's table where the caller gives one.
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "model/core/Result.h"

namespace sl::sqlite {

class Db {
public:
    Db() = default;
    ~Db();
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;
    Db(Db&& o) noexcept : m_db(o.m_db) { o.m_db = nullptr; }

    Status openReadOnly(const std::string& path);
    Status create(const std::string& path);  // a new file, read-write
    Status exec(std::string_view sql);
    bool hasTable(std::string_view name) const;
    std::string lastError() const { return m_db ? sqlite3_errmsg(m_db) : "no database"; }
    sqlite3* handle() const { return m_db; }
    void close();

private:
    sqlite3* m_db = nullptr;
};

class Stmt {
public:
    Stmt() = default;
    Stmt(const Db& db, std::string_view sql);
    ~Stmt();
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    Stmt(Stmt&& o) noexcept : m_stmt(o.m_stmt), m_db(o.m_db), m_error(std::move(o.m_error)) { o.m_stmt = nullptr; }
    Stmt& operator=(Stmt&& o) noexcept;

    bool valid() const { return m_stmt != nullptr; }
    const std::string& prepareError() const { return m_error; }

    Stmt& bind(int i, int64_t v);
    Stmt& bind(int i, double v);
    Stmt& bind(int i, std::string_view v);
    Stmt& bindBlob(int i, const void* data, size_t size);
    Stmt& bindNull(int i);
    // SQLITE_ROW: true; SQLITE_DONE: false with ok(); an error: false with !ok().
    bool step();
    bool ok() const { return m_lastRc == SQLITE_ROW || m_lastRc == SQLITE_DONE || m_lastRc == SQLITE_OK; }
    std::string error() const;
    void reset();

    int columnCount() const { return sqlite3_column_count(m_stmt); }
    std::string_view columnName(int i) const { return sqlite3_column_name(m_stmt, i); }
    bool isNull(int i) const { return sqlite3_column_type(m_stmt, i) == SQLITE_NULL; }
    int64_t i64(int i) const { return sqlite3_column_int64(m_stmt, i); }
    double f64(int i) const { return sqlite3_column_double(m_stmt, i); }
    std::string_view text(int i) const;
    std::string_view blob(int i) const;
    sqlite3_stmt* handle() const { return m_stmt; }

private:
    sqlite3_stmt* m_stmt = nullptr;
    sqlite3* m_db = nullptr;
    std::string m_error;
    int m_lastRc = SQLITE_OK;
};

}  // namespace sl::sqlite
