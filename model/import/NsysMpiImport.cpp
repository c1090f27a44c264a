// MPI calls of an nsys export (nsys -t mpi, or our own export): MPI_P2P_EVENTS,
// MPI_COLLECTIVES_EVENTS, MPI_START_WAIT_EVENTS and MPI_OTHER_EVENTS become EventKind::Mpi
// events of the call's class, MPI_RANKS the processes' ranks.
#include <algorithm>
#include <cctype>

#include "model/import/NsysSqliteImporter.h"

namespace sl::import {
namespace {

// The export keeps one size for a point-to-point call; a receive's is what it received.
bool isReceive(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    return lower.find("recv") != std::string::npos && lower.find("sendrecv") == std::string::npos;
}

}  // namespace

Status NsysSqliteImporter::readMpi() {
    if (m_db.hasTable("MPI_RANKS")) {
        m_readTables.insert("MPI_RANKS");
        NsysColumns c(m_db, "MPI_RANKS");
        sqlite::Stmt st(m_db, buildSelect(c, {{"globalTid"}, {"rank"}}));
        while (st.valid() && st.step())
            if (!st.isNull(0) && !st.isNull(1)) m_mpiRanks[pidOf(st.i64(0))] = static_cast<int32_t>(st.i64(1));
    }
    // Columns after start, end, globalTid and textId, per table; -1 (ranks, tags) and 0
    // (handles, sizes) where NULL.
    enum Extra { Comm, Tag, Peer, Root, Size, RecvSize, Request };
    struct Spec {
        const char* table;
        MpiCallClass cls;
        std::vector<Extra> extras;
    };
    const Spec specs[] = {
        {"MPI_P2P_EVENTS", MpiCallClass::P2p, {Comm, Tag, Peer, Size, Request}},
        {"MPI_COLLECTIVES_EVENTS", MpiCallClass::Collective, {Comm, Root, Size, RecvSize, Request}},
        {"MPI_START_WAIT_EVENTS", MpiCallClass::StartWait, {Request}},
        {"MPI_OTHER_EVENTS", MpiCallClass::Other, {}},
    };
    static const char* const kColumn[] = {"commHandle", "tag", "remoteRank", "rootRank", "size", "recvSize",
                                          "requestHandle"};
    for (const Spec& spec : specs) {
        std::vector<ColumnAlternatives> wanted{{"start"}, {"end"}, {"globalTid"}, {"textId", "nameId"}};
        for (Extra e : spec.extras) wanted.push_back({kColumn[e]});
        Status s = forEachRow(spec.table, wanted, [&](const sqlite::Stmt& st) {
            const int64_t start = st.i64(0), end = endAfter(start, st.i64(1)), g = st.i64(2);
            uint32_t name = nameAt(st, 3);
            if (name == UINT32_MAX) name = m_b.intern("(unnamed MPI call)");
            int64_t x[8] = {static_cast<int64_t>(spec.cls), 0, -1, -1, -1, 0, 0, 0};
            for (size_t k = 0; k < spec.extras.size(); ++k) {
                const int col = 4 + static_cast<int>(k);
                const bool null = st.isNull(col);
                const int64_t v = st.i64(col);
                switch (spec.extras[k]) {
                    case Comm: x[cols::Mpi::Comm] = null ? 0 : v; break;
                    case Tag: x[cols::Mpi::Tag] = null ? -1 : v; break;
                    case Peer: x[cols::Mpi::Peer] = null ? -1 : v; break;
                    case Root: x[cols::Mpi::Root] = null ? -1 : v; break;
                    case Size:
                        if (spec.cls == MpiCallClass::P2p && isReceive(m_b.report().str(name)))
                            x[cols::Mpi::RecvBytes] = null ? 0 : v;
                        else
                            x[cols::Mpi::Bytes] = null ? 0 : v;
                        break;
                    case RecvSize: x[cols::Mpi::RecvBytes] = null ? 0 : v; break;
                    case Request: x[cols::Mpi::Request] = null ? 0 : v; break;
                }
            }
            m_b.addRaw(TrackKey::forThread(EventKind::Mpi, pidOf(g), tidOf(g)), start, end, name, x);
            noteThread(g);
            noteEnd(end);
        });
        if (!s) return s;
    }
    return Status::success();
}

void NsysSqliteImporter::applyMpiRanks() {
    for (const auto& [pid, rank] : m_mpiRanks)
        if (m_pids.count(pid)) m_b.ensureProcess(pid).mpiRank = rank;
}

}  // namespace sl::import
