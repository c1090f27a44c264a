#include "model/export/SqliteExporter.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <regex>

#include "model/export/NsysTables.h"
#include "model/rep/Sqlite.h"
#include "model/util/ThreadPool.h"
#include "model/util/OutputTarget.h"

namespace sl::exporter {
namespace {

class SqliteSink : public RowSink {
public:
    using Accept = std::function<bool(std::string_view)>;
    SqliteSink(sqlite::Db& db, const std::string& regex, Accept accept) : m_db(db), m_accept(std::move(accept)) {
        if (!regex.empty()) m_filter.emplace(regex, std::regex::ECMAScript);
    }

    bool beginTable(std::string_view name, std::span<const ColumnDef> columns) override {
        if (m_filter && !std::regex_search(std::string(name), *m_filter)) return false;
        if (m_accept && !m_accept(name)) return false;
        m_table = std::string(name);
        std::string create = "CREATE TABLE " + m_table + " (", insert = "INSERT INTO " + m_table + " VALUES (";
        for (size_t i = 0; i < columns.size(); ++i) {
            create += (i ? ", " : "") + std::string(columns[i].name) + " " + std::string(columns[i].sqlType);
            insert += i ? ",?" : "?";
        }
        create += ")";
        insert += ")";
        if (Status s = m_db.exec(create); !s) {
            m_error = "creating table " + m_table + ": " + s.error();
            return false;
        }
        if (sqlite3_prepare_v2(m_db.handle(), insert.c_str(), -1, &m_stmt, nullptr) != SQLITE_OK) {
            m_error = "preparing insert into " + m_table + ": " + m_db.lastError();
            return false;
        }
        return true;
    }

    void row(std::span<const Cell> cells) override {
        if (!m_stmt || !m_error.empty()) return;
        // Bindings survive sqlite3_reset, so only cells that differ from the previous row are
        // bound again: kernel rows repeat most of their launch columns.
        if (m_last.size() != cells.size()) m_last.assign(cells.size(), Cell{Cell::Type::Text, 0, 0, {}});
        for (int i = 0; i < static_cast<int>(cells.size()); ++i) {
            const Cell& c = cells[static_cast<size_t>(i)];
            Cell& last = m_last[static_cast<size_t>(i)];
            switch (c.type) {
                case Cell::Type::Null:
                    if (last.type == Cell::Type::Null) continue;
                    sqlite3_bind_null(m_stmt, i + 1);
                    break;
                case Cell::Type::Int:
                    if (last.type == Cell::Type::Int && last.i == c.i) continue;
                    sqlite3_bind_int64(m_stmt, i + 1, c.i);
                    break;
                case Cell::Type::Real:
                    sqlite3_bind_double(m_stmt, i + 1, c.d);
                    break;
                case Cell::Type::Text:
                    // Always rebound: the view's storage may differ from the last row's.
                    sqlite3_bind_text(m_stmt, i + 1, c.s.data() ? c.s.data() : "", static_cast<int>(c.s.size()),
                                      SQLITE_STATIC);
                    break;
            }
            last = c;
            if (c.type == Cell::Type::Text || c.type == Cell::Type::Real) last.type = Cell::Type::Text;  // never "equal"
        }
        if (sqlite3_step(m_stmt) != SQLITE_DONE) m_error = "inserting into " + m_table + ": " + m_db.lastError();
        sqlite3_reset(m_stmt);
    }

    Status endTable() override {
        if (m_stmt) sqlite3_finalize(m_stmt);
        m_stmt = nullptr;
        m_last.clear();
        if (!m_error.empty()) return makeError(m_error);
        return {};
    }

    const std::string& error() const { return m_error; }
    ~SqliteSink() override {
        if (m_stmt) sqlite3_finalize(m_stmt);
    }

private:
    sqlite::Db& m_db;
    Accept m_accept;
    std::optional<std::regex> m_filter;
    std::string m_table, m_error;
    sqlite3_stmt* m_stmt = nullptr;
    std::vector<Cell> m_last;  // the cells bound now
};

constexpr std::string_view kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";

// Writes the tables `accept` takes into a new database `file` in one transaction.
Status writeTables(const Report& report, const ExportOptions& options, const std::string& file,
                   const SqliteSink::Accept& accept, ExportStats& stats) {
    sqlite::Db db;
    if (Status s = db.create(file); !s) return makeError("cannot create " + file + ": " + s.error());
    for (const char* pragma : {"PRAGMA page_size=65536", "PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF",
                               "PRAGMA locking_mode=EXCLUSIVE", "PRAGMA cache_size=-65536", "BEGIN"})
        if (Status s = db.exec(pragma); !s) return makeError(file + ": " + s.error());
    SqliteSink sink(db, options.tablesRegex, accept);
    Status s = emitNsysTables(report, options, sink, stats);
    if (s && !sink.error().empty()) s = makeError(sink.error());
    if (s) s = db.exec("COMMIT");
    return s;
}

// Copies a table written into `side` into `main` with SQLite's transfer optimization (records
// are copied, not decoded and re-encoded: INSERT INTO ... SELECT * into an empty twin table).
Status appendTable(const std::string& main, const std::string& side, std::string_view table) {
    sqlite::Db db;
    if (Status s = db.create(main); !s) return s;
    for (const char* pragma : {"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF", "PRAGMA cache_size=-65536"})
        if (Status s = db.exec(pragma); !s) return s;
    if (Status s = db.exec("ATTACH DATABASE '" + side + "' AS side"); !s) return s;
    std::string ddl;
    {
        sqlite::Stmt q(db, "SELECT sql FROM side.sqlite_master WHERE type = 'table' AND name = ?");
        q.bind(1, table);
        if (q.step()) ddl = std::string(q.text(0));
    }
    if (ddl.empty()) return makeError("internal: table " + std::string(table) + " missing from " + side);
    const std::string t(table);
    for (const std::string& sql : {std::string("BEGIN"), ddl, "INSERT INTO main." + t + " SELECT * FROM side." + t,
                                   std::string("COMMIT"), std::string("DETACH DATABASE side")})
        if (Status s = db.exec(sql); !s) return makeError(t + ": " + s.error());
    return {};
}

}  // namespace

Result<ExportStats> exportSqlite(const Report& report, const std::string& wanted, const ExportOptions& options) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(wanted, ec)) && !options.overwrite)
        return makeError(wanted + " already exists (use --force-overwrite to replace it)");
    // Written beside and renamed over: through a symbolic link to its file, never over a device.
    auto target = outputTarget(wanted);
    if (!target) return makeError(target.error());
    const std::string& path = *target;
    std::optional<std::regex> filter;
    if (!options.tablesRegex.empty()) {
        try {
            filter.emplace(options.tablesRegex, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            return makeError("--tables: '" + options.tablesRegex + "' is not a valid regular expression: " + e.what());
        }
    }
    const std::string tmp = path + ".tmp-export", side = path + ".tmp-kernels";
    fs::remove(tmp, ec);
    fs::remove(side, ec);
    // Big reports: the kernel table is written by a second thread into its own file, then
    // copied over (SQLite has one writer per database).
    const bool split = report.eventCount(EventKind::Kernel) >= options.parallelKernelRows &&
                       (!filter || std::regex_search(std::string(kKernelTable), *filter));
    ExportStats stats, kernelStats;
    Status s, kernelStatus;
    // Item 0 runs on this thread (it reports the progress), item 1 on a worker of the pool.
    parallelFor(split ? 2 : 1, [&](size_t item) {
        if (item == 0) {
            s = writeTables(report, options, tmp,
                            split ? SqliteSink::Accept([](std::string_view n) { return n != kKernelTable; }) : nullptr,
                            stats);
            return;
        }
        ExportOptions o = options;
        o.progress = nullptr;
        kernelStatus = writeTables(report, o, side, [](std::string_view n) { return n == kKernelTable; }, kernelStats);
    });
    if (s && split) s = kernelStatus;
    if (s && split && !kernelStats.tables.empty()) {
        s = appendTable(tmp, side, kKernelTable);
        stats.rows += kernelStats.rows;
        stats.tables.insert(stats.tables.end(), kernelStats.tables.begin(), kernelStats.tables.end());
    }
    fs::remove(side, ec);
    if (!s) {
        fs::remove(tmp, ec);
        return makeError(path + ": " + s.error());
    }
    fs::rename(tmp, path, ec);
    if (ec) return makeError("cannot rename " + tmp + " to " + path + ": " + ec.message());
    return stats;
}

}  // namespace sl::exporter
