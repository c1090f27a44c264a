// cuBLAS, cuDNN and NCCL calls of an nsys export (nsys -t cublas,cudnn, or our own export):
// CUBLAS_EVENTS and CUDNN_EVENTS (nsys's start, end, globalTid, nameId; Sightline's handle,
// stream and returnValue where present) and Sightline's NCCL_EVENTS become EventKind::Cublas,
// Cudnn and Nccl events of the calling thread.
#include <algorithm>
#include <tuple>

#include "model/import/NsysSqliteImporter.h"

namespace sl::import {

Status NsysSqliteImporter::readCudaLibs() {
    for (auto [table, kind, unnamed] :
         {std::tuple{"CUBLAS_EVENTS", EventKind::Cublas, "(unnamed cuBLAS call)"},
          std::tuple{"CUDNN_EVENTS", EventKind::Cudnn, "(unnamed cuDNN call)"}}) {
        const EventKind k = kind;
        const char* fallback = unnamed;
        Status s = forEachRow(table, {{"start"}, {"end"}, {"globalTid"}, {"nameId", "textId"}, {"handle"},
                                      {"stream"}, {"returnValue"}},
                              [&](const sqlite::Stmt& st) {
            const int64_t start = st.i64(0), end = endAfter(start, st.i64(1)), g = st.i64(2);
            uint32_t name = nameAt(st, 3);
            if (name == UINT32_MAX) name = m_b.intern(fallback);
            const int64_t x[3] = {st.isNull(4) ? 0 : st.i64(4), st.isNull(5) ? 0 : st.i64(5),
                                  st.isNull(6) ? 0 : st.i64(6)};
            m_b.addRaw(TrackKey::forThread(k, pidOf(g), tidOf(g)), start, end, name, x);
            noteThread(g);
            noteEnd(end);
        });
        if (!s) return s;
    }
    // Columns 4.. in cols::Nccl order; NULL is "none": 0 for handles and statuses, -1 otherwise.
    return forEachRow("NCCL_EVENTS",
                      {{"start"}, {"end"}, {"globalTid"}, {"nameId", "textId"}, {"commHandle"}, {"stream"},
                       {"returnValue"}, {"count"}, {"size"}, {"dataType"}, {"redOp"}, {"peerRank"},
                       {"rank"}, {"nRanks"}},
                      [&](const sqlite::Stmt& st) {
        const int64_t start = st.i64(0), end = endAfter(start, st.i64(1)), g = st.i64(2);
        uint32_t name = nameAt(st, 3);
        if (name == UINT32_MAX) name = m_b.intern("(unnamed NCCL call)");
        int64_t x[10];
        for (int c = 0; c < 10; ++c) x[c] = st.isNull(4 + c) ? (c < 3 ? 0 : -1) : st.i64(4 + c);
        if (x[cols::Nccl::Count] < 0) x[cols::Nccl::Bytes] = 0;
        m_b.addRaw(TrackKey::forThread(EventKind::Nccl, pidOf(g), tidOf(g)), start, end, name, x);
        noteThread(g);
        noteEnd(end);
    });
}

}  // namespace sl::import
