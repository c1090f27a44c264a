#pragma once
// Typed rows over the table descriptors of RepSchema.h: the writer fills a row column by column
// name, the reader reads a row by column name. A name the table does not have does not compile;
// a column the writer leaves unset is an error at insert() (a column added to a descriptor is
// then written everywhere, or the round-trip tests fail).
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>

#include "model/core/Result.h"
#include "model/rep/RepSchema.h"
#include "model/rep/Sqlite.h"

namespace sl::repschema {

// A column of table T, named by a string literal checked at compile time.
template <const TableDef& T>
struct Col {
    int index;
    consteval Col(const char* name) : index(columnIndex(T, name)) {}
};

// "table 'x': missing column(s) a, b": the columns of `table` whose bit in `set` is clear.
std::string unsetColumns(const TableDef& table, uint64_t set);

// The INSERT of one table, reused row after row.
template <const TableDef& T>
class Insert {
    static_assert(T.columns.size() <= 64, "one bit per column");

public:
    explicit Insert(const sqlite::Db& db) : m_stmt(db, insertSql(T)) {}
    bool valid() const { return m_stmt.valid(); }
    std::string error() const { return m_stmt.valid() ? m_stmt.error() : m_stmt.prepareError(); }

    template <std::integral I>
    Insert& set(Col<T> c, I v) {  // unsigned 64-bit values are stored bit for bit
        m_stmt.bind(c.index + 1, static_cast<int64_t>(v));
        return mark(c);
    }
    Insert& set(Col<T> c, double v) {
        m_stmt.bind(c.index + 1, v);
        return mark(c);
    }
    Insert& set(Col<T> c, std::string_view v) {
        m_stmt.bind(c.index + 1, v);
        return mark(c);
    }
    Insert& set(Col<T> c, const std::string& v) { return set(c, std::string_view(v)); }
    Insert& set(Col<T> c, const char* v) { return set(c, std::string_view(v)); }
    // The bytes must stay valid until insert().
    Insert& setBlob(Col<T> c, const void* data, size_t size) {
        m_stmt.bindBlob(c.index + 1, data, size);
        return mark(c);
    }
    Insert& setNull(Col<T> c) {
        m_stmt.bindNull(c.index + 1);
        return mark(c);
    }

    // Writes the row; every column must have been set. The error names the table.
    Status insert() {
        const uint64_t all =
            T.columns.size() == 64 ? ~uint64_t{0} : (uint64_t{1} << T.columns.size()) - 1;
        if (m_set != all) return makeError(unsetColumns(T, m_set));
        m_stmt.step();
        const bool ok = m_stmt.ok();
        std::string error =
            ok ? std::string() : "table '" + std::string(T.name) + "': " + m_stmt.error();
        m_stmt.reset();
        m_set = 0;
        if (!ok) return makeError(error);
        return {};
    }

private:
    Insert& mark(Col<T> c) {
        m_set |= uint64_t{1} << c.index;
        return *this;
    }

    sqlite::Stmt m_stmt;
    uint64_t m_set = 0;
};

// One row of table T as the reader sees it.
template <const TableDef& T>
class Row {
public:
    explicit Row(const sqlite::Stmt& st) : m_st(st) {}
    bool isNull(Col<T> c) const { return m_st.isNull(c.index); }
    int64_t i64(Col<T> c) const { return m_st.i64(c.index); }
    double f64(Col<T> c) const { return m_st.f64(c.index); }
    std::string_view text(Col<T> c) const { return m_st.text(c.index); }
    std::string_view blob(Col<T> c) const { return m_st.blob(c.index); }

private:
    const sqlite::Stmt& m_st;
};

// The SELECT of `table`'s columns from this file followed by `suffix` ("ORDER BY id"): columns
// the file lacks read as NULL; "" when an optional table is absent; an error when a required
// table or column is.
Result<std::string> selectFromFile(const sqlite::Db& db, const TableDef& table,
                                   std::string_view suffix);

// Calls `fn(const Row<T>&) -> Status` for each row of T in the file. Errors say
// "table 'x': ...".
template <const TableDef& T, class Fn>
Status forEachRow(const sqlite::Db& db, std::string_view suffix, Fn&& fn) {
    const std::string where = "table '" + std::string(T.name) + "': ";
    auto sql = selectFromFile(db, T, suffix);
    if (!sql) return makeError(where + sql.error());
    if (sql->empty()) return {};
    sqlite::Stmt st(db, *sql);
    if (!st.valid()) return makeError(where + st.prepareError());
    const Row<T> row(st);
    while (st.step())
        if (Status s = fn(row); !s) return makeError(where + s.error());
    if (!st.ok()) return makeError(where + st.error());
    return {};
}

}  // namespace sl::repschema
