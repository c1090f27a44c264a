#include "model/export/NsysMpiTables.h"

#include <set>
#include <utility>

#include "model/analysis/MpiCall.h"
#include "model/export/TableScope.h"

namespace sl::exporter {
namespace {

using analysis::MpiCall;

Cell I(int64_t v) { return Cell::of(v); }
Cell N() { return Cell::null(); }
Cell rankOrNull(int32_t v) { return v >= 0 ? I(v) : N(); }
Cell handleOrNull(uint64_t v) { return v != 0 ? I(static_cast<int64_t>(v)) : N(); }

// One row per thread of each process with a rank; a ranked process without thread rows gets
// one for its main thread (tid = pid), so its events' globalTid still finds the rank.
Status ranks(const Report& r, RowSink& sink, ExportStats& stats) {
    bool any = false;
    for (const auto& p : r.processes) any |= p.mpiRank >= 0;
    if (!any) return {};
    static constexpr ColumnDef d[] = {{"globalTid", "INTEGER"}, {"rank", "INTEGER NOT NULL"}};
    TableScope t(sink, stats, "MPI_RANKS", d);
    if (!t.open()) return {};
    for (const auto& p : r.processes) {
        if (p.mpiRank < 0) continue;
        bool hasThread = false;
        for (const auto& th : r.threads) {
            if (th.pid != p.pid) continue;
            hasThread = true;
            Cell c[] = {I(globalTid(th.pid, th.tid)), I(p.mpiRank)};
            t.row(c);
        }
        if (!hasThread) {
            Cell c[] = {I(globalTid(p.pid, p.pid)), I(p.mpiRank)};
            t.row(c);
        }
    }
    return t.finish();
}

// The calls of one class inside the window, in track order; `fill` writes the cells after
// start, end, globalTid and textId.
template <size_t N, class F>
Status perClass(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats, int64_t origin,
                std::string_view table, const ColumnDef (&defs)[N], MpiCallClass cls, F fill) {
    TableScope t(sink, stats, table, defs);
    if (!t.open()) return {};
    Cell c[N];
    for (const Track* tr : r.tracksOfKind(EventKind::Mpi))
        for (size_t i = 0; i < tr->size(); ++i) {
            if (!o.inWindow(tr->start[i], tr->end[i])) continue;
            const MpiCall call = analysis::mpiCallAt(*tr, i);
            if (call.callClass != cls) continue;
            c[0] = I(tr->start[i] - origin);
            c[1] = I(tr->end[i] - origin);
            c[2] = I(globalTid(tr->key.pid, tr->key.tid));
            c[3] = I(tr->name[i]);
            fill(call, c);
            t.row(c);
        }
    return t.finish();
}

}  // namespace

Status emitMpiTables(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats, int64_t origin) {
    if (Status s = ranks(r, sink, stats); !s) return s;
    // The four event tables are written together whenever the report has MPI calls (an empty
    // one says "traced, none of this class", as in nsys exports of an MPI run).
    if (r.eventCount(EventKind::Mpi) == 0) return {};
    static constexpr ColumnDef p2p[] = {
        {"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"}, {"globalTid", "INTEGER"},
        {"textId", "INTEGER"},         {"commHandle", "INTEGER"},   {"tag", "INTEGER"},
        {"remoteRank", "INTEGER"},     {"size", "INTEGER"},         {"requestHandle", "INTEGER"}};
    Status s = perClass(r, o, sink, stats, origin, "MPI_P2P_EVENTS", p2p, MpiCallClass::P2p,
                        [](const MpiCall& m, Cell* c) {
        c[4] = handleOrNull(m.comm);
        c[5] = rankOrNull(m.tag);
        c[6] = rankOrNull(m.peer);
        c[7] = I(m.p2pSize());
        c[8] = handleOrNull(m.request);
    });
    if (!s) return s;
    static constexpr ColumnDef coll[] = {
        {"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"}, {"globalTid", "INTEGER"},
        {"textId", "INTEGER"},         {"commHandle", "INTEGER"},   {"rootRank", "INTEGER"},
        {"size", "INTEGER"},           {"recvSize", "INTEGER"},     {"requestHandle", "INTEGER"}};
    s = perClass(r, o, sink, stats, origin, "MPI_COLLECTIVES_EVENTS", coll, MpiCallClass::Collective,
                 [](const MpiCall& m, Cell* c) {
        c[4] = handleOrNull(m.comm);
        c[5] = rankOrNull(m.root);
        c[6] = I(m.bytes);
        c[7] = I(m.recvBytes);
        c[8] = handleOrNull(m.request);
    });
    if (!s) return s;
    static constexpr ColumnDef sw[] = {{"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"},
                                       {"globalTid", "INTEGER"},      {"textId", "INTEGER"},
                                       {"requestHandle", "INTEGER"}};
    s = perClass(r, o, sink, stats, origin, "MPI_START_WAIT_EVENTS", sw, MpiCallClass::StartWait,
                 [](const MpiCall& m, Cell* c) { c[4] = handleOrNull(m.request); });
    if (!s) return s;
    static constexpr ColumnDef other[] = {{"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"},
                                          {"globalTid", "INTEGER"},      {"textId", "INTEGER"}};
    return perClass(r, o, sink, stats, origin, "MPI_OTHER_EVENTS", other, MpiCallClass::Other,
                    [](const MpiCall&, Cell*) {});
}

}  // namespace sl::exporter
