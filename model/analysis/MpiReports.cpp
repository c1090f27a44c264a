// mpi_event_sum and mpi_event_trace (-t mpi).
#include <algorithm>

#include "model/analysis/DenseGroups.h"
#include "model/analysis/MpiCall.h"
#include "model/analysis/StatsReports.h"

namespace sl::analysis {
namespace {

constexpr const char* kNoMpi = "does not contain MPI trace data.";

}  // namespace

// Per MPI function: laid out as osrt_sum (the calls of every rank and thread together).
Table runMpiEventSum(const Report& r, const StatsOptions& o) {
    Table t("mpi_event_sum", "MPI Event Summary");
    if (r.eventCount(EventKind::Mpi) == 0) return Table::skip(t.name, t.title, kNoMpi);
    DenseGroups byId = durationsByName(r, EventKind::Mpi, o);
    if (o.cancelled()) return cancelledTable(t);
    std::vector<SummaryGroup> g = mergedByName(byId, [&](uint32_t id) { return r.str(id); });
    fillSummary(t, {"Instances", {"Name"}}, g, o.cancel);
    return o.cancelled() ? cancelledTable(t) : t;
}

// Every MPI call by start time. Columns a call's class does not have are NULL: point-to-point
// calls have Tag, PeerRank and Size; collectives RootRank (when rooted), CollSendSize and
// CollRecvSize; start/wait and other calls none of them.
Table runMpiEventTrace(const Report& r, const StatsOptions& o) {
    Table t("mpi_event_trace", "MPI Event Trace");
    if (r.eventCount(EventKind::Mpi) == 0) return Table::skip(t.name, t.title, kNoMpi);
    t.textCol("Kind");
    t.intCol("Start", Measure::Timestamp);
    t.intCol("End", Measure::Timestamp);
    t.intCol("Duration", Measure::Duration);
    t.textCol("Event");
    t.idCol("Pid");
    t.idCol("Tid");
    t.intCol("Tag");
    t.intCol("Rank");
    t.intCol("PeerRank");
    t.intCol("RootRank");
    t.intCol("Size");
    t.intCol("CollSendSize");
    t.intCol("CollRecvSize");
    struct Ref {
        int64_t start;
        uint32_t track, index;
    };
    std::vector<Ref> refs;
    for (uint32_t ti = 0; ti < r.tracks.size(); ++ti) {
        const Track& tr = r.tracks[ti];
        if (tr.key.kind != EventKind::Mpi) continue;
        for (uint32_t i = 0; i < tr.size(); ++i) {
            if (o.stopAt(i)) return cancelledTable(t);
            if (o.inWindow(tr.start[i], tr.end[i])) refs.push_back({tr.start[i], ti, i});
        }
    }
    std::stable_sort(refs.begin(), refs.end(), [](const Ref& a, const Ref& b) {
        if (a.start != b.start) return a.start < b.start;
        return a.track < b.track;
    });
    const int64_t origin = r.timeOrigin();
    auto orNull = [](Table::RowWriter& row, int64_t v, bool present) -> Table::RowWriter& {
        return present ? row.i(v) : row.null();
    };
    for (size_t k = 0; k < refs.size(); ++k) {
        if (o.stopAt(k)) return cancelledTable(t);
        const Track& tr = r.tracks[refs[k].track];
        const size_t i = refs[k].index;
        const MpiCall c = mpiCallAt(tr, i);
        const Process* p = r.findProcess(tr.key.pid);
        const bool p2p = c.callClass == MpiCallClass::P2p;
        const bool coll = c.callClass == MpiCallClass::Collective;
        auto row = t.row();
        row.t(std::string(mpiCallClassName(c.callClass)))
            .i(tr.start[i] - origin)
            .i(tr.end[i] - origin)
            .i(tr.end[i] - tr.start[i])
            .t(std::string(r.str(tr.name[i])))
            .i(tr.key.pid)
            .i(tr.key.tid);
        orNull(row, c.tag, p2p && c.tag >= 0);
        orNull(row, p ? p->mpiRank : -1, p && p->mpiRank >= 0);
        orNull(row, c.peer, p2p && c.peer >= 0);
        orNull(row, c.root, coll && c.root >= 0);
        orNull(row, c.p2pSize(), p2p);
        orNull(row, c.bytes, coll);
        orNull(row, c.recvBytes, coll);
    }
    return t;
}

}  // namespace sl::analysis
