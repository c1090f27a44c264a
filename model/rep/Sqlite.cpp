#include "model/rep/Sqlite.h"

#include "model/util/Utf8.h"

namespace sl::sqlite {

Db::~Db() { close(); }

void Db::close() {
    if (m_db) sqlite3_close_v2(m_db);
    m_db = nullptr;
}

Status Db::openReadOnly(const std::string& path) {
    close();
    int rc = sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        close();
        return makeError(msg);
    }
    // Extra checks on b-tree cells, so a corrupt page is reported rather than misread.
    sqlite3_exec(m_db, "PRAGMA cell_size_check=ON; PRAGMA query_only=ON;", nullptr, nullptr, nullptr);
    return {};
}

Status Db::create(const std::string& path) {
    close();
    int rc = sqlite3_open_v2(path.c_str(), &m_db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        close();
        return makeError(msg);
    }
    return {};
}

Status Db::exec(std::string_view sql) {
    char* err = nullptr;
    std::string s(sql);
    if (sqlite3_exec(m_db, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "unknown SQLite error";
        sqlite3_free(err);
        return makeError(msg);
    }
    return {};
}

bool Db::hasTable(std::string_view name) const {
    Stmt st(*this, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?");
    if (!st.valid()) return false;
    st.bind(1, name);
    return st.step();
}

Stmt::Stmt(const Db& db, std::string_view sql) : m_db(db.handle()) {
    if (!m_db) {
        m_error = "no database";
        m_lastRc = SQLITE_MISUSE;
        return;
    }
    int rc = sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &m_stmt, nullptr);
    if (rc != SQLITE_OK) {
        m_error = sqlite3_errmsg(m_db);
        m_lastRc = rc;
        m_stmt = nullptr;
    }
}

Stmt::~Stmt() {
    if (m_stmt) sqlite3_finalize(m_stmt);
}

Stmt& Stmt::operator=(Stmt&& o) noexcept {
    if (this != &o) {
        if (m_stmt) sqlite3_finalize(m_stmt);
        m_stmt = o.m_stmt;
        m_db = o.m_db;
        m_error = std::move(o.m_error);
        m_lastRc = o.m_lastRc;
        o.m_stmt = nullptr;
    }
    return *this;
}

Stmt& Stmt::bind(int i, int64_t v) {
    if (m_stmt) sqlite3_bind_int64(m_stmt, i, v);
    return *this;
}
Stmt& Stmt::bind(int i, double v) {
    if (m_stmt) sqlite3_bind_double(m_stmt, i, v);
    return *this;
}
Stmt& Stmt::bind(int i, std::string_view v) {
    if (!m_stmt) return *this;
    // Every text we write is UTF-8, as SQLite's TEXT promises: a process name or command line
    // from non-UTF-8 arguments made Python's sqlite3 fail on the whole row ("Could not decode to
    // UTF-8"). The bad bytes become U+FFFD, as StringTable::intern and the JSON export make them.
    if (isValidUtf8(v)) {
        sqlite3_bind_text(m_stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    } else {
        const std::string repaired = sanitizeUtf8(v);
        sqlite3_bind_text(m_stmt, i, repaired.data(), static_cast<int>(repaired.size()),
                          SQLITE_TRANSIENT);
    }
    return *this;
}
Stmt& Stmt::bindBlob(int i, const void* data, size_t size) {
    if (m_stmt) sqlite3_bind_blob64(m_stmt, i, data, size, SQLITE_STATIC);
    return *this;
}
Stmt& Stmt::bindNull(int i) {
    if (m_stmt) sqlite3_bind_null(m_stmt, i);
    return *this;
}

bool Stmt::step() {
    if (!m_stmt) {
        m_lastRc = SQLITE_MISUSE;
        return false;
    }
    m_lastRc = sqlite3_step(m_stmt);
    return m_lastRc == SQLITE_ROW;
}

std::string Stmt::error() const {
    if (!m_error.empty()) return m_error;
    return m_db ? sqlite3_errmsg(m_db) : "no database";
}

void Stmt::reset() {
    if (m_stmt) {
        sqlite3_reset(m_stmt);
        sqlite3_clear_bindings(m_stmt);
    }
    m_lastRc = SQLITE_OK;
}

std::string_view Stmt::text(int i) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, i));
    if (!p) return {};
    return {p, static_cast<size_t>(sqlite3_column_bytes(m_stmt, i))};
}

std::string_view Stmt::blob(int i) const {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(m_stmt, i));
    if (!p) return {};
    return {p, static_cast<size_t>(sqlite3_column_bytes(m_stmt, i))};
}

}  // namespace sl::sqlite
