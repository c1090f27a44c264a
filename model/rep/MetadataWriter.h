#pragma once
// Writes a .rep's metadata tables through the schema's generated INSERTs (TableIo.h).
#include <string>
#include <type_traits>

#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/rep/ChunkCodec.h"
#include "model/rep/TableIo.h"

namespace sl {

// Fills tables one after another: rows<T>(n, fill) calls fill(insert, i) for each of n rows
// (fill returns void, or a Status to stop). After the first error the rest are skipped and
// status() names the table and the file. A table added later in format 1 (optional) is
// created only when it has rows.
class TableWriter {
public:
    TableWriter(sqlite::Db& db, std::string file) : m_db(db), m_file(std::move(file)) {}

    template <const repschema::TableDef& T, class Fill>
    TableWriter& rows(size_t n, Fill&& fill) {
        if (!m_status || n == 0) return *this;
        if (Status s = prepare(T); !s) return fail(s);
        repschema::Insert<T> ins(m_db);
        if (!ins.valid()) return fail(makeError("table '" + std::string(T.name) + "': " + ins.error()));
        for (size_t i = 0; i < n; ++i) {
            if constexpr (std::is_same_v<decltype(fill(ins, i)), Status>) {
                if (Status s = fill(ins, i); !s) return fail(s);
            } else {
                fill(ins, i);
            }
            if (Status s = ins.insert(); !s) return fail(s);
        }
        return *this;
    }
    const Status& status() const { return m_status; }

private:
    Status prepare(const repschema::TableDef& table);
    TableWriter& fail(const Status& s);

    sqlite::Db& m_db;
    std::string m_file;
    Status m_status;
};

// The tables of `report` from session to program_output (everything but sightline_meta,
// tracks and chunks). Backtraces are encoded as chunks with `encoder`.
void writeMetadataTables(TableWriter& w, const Report& report, ChunkEncoder& encoder);

}  // namespace sl
