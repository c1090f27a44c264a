#include "model/export/NsysCudaLibTables.h"

#include <tuple>

#include "model/analysis/CudaLibCall.h"
#include "model/export/TableScope.h"

namespace sl::exporter {
namespace {

using analysis::CudaLibCall;

// ENUM_NSYS_EVENT_CLASS: TRACE_PROCESS_EVENT_CUDNN, TRACE_PROCESS_EVENT_CUBLAS.
constexpr int64_t kCudnnEventClass = 28;
constexpr int64_t kCublasEventClass = 29;

Cell I(int64_t v) { return Cell::of(v); }
Cell N() { return Cell::null(); }
Cell orNull(int64_t v, bool present) { return present ? I(v) : N(); }

template <size_t N, class F>
Status perCall(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats,
               std::string_view table, const ColumnDef (&defs)[N], EventKind kind, F fill) {
    if (r.eventCount(kind) == 0) return {};
    TableScope t(sink, stats, table, defs);
    if (!t.open()) return {};
    Cell c[N];
    for (const Track* tr : r.tracksOfKind(kind))
        for (size_t i = 0; i < tr->size(); ++i) {
            if (!o.inWindow(tr->start[i], tr->end[i])) continue;
            fill(*tr, i, analysis::cudaLibCallAt(*tr, i), c);
            t.row(c);
        }
    return t.finish();
}

}  // namespace

Status emitCudaLibTables(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats,
                         int64_t origin) {
    static constexpr ColumnDef lib[] = {
        {"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"}, {"eventClass", "INTEGER NOT NULL"},
        {"globalTid", "INTEGER"},      {"nameId", "INTEGER NOT NULL"},
        // Sightline's: the handle the call was given, its stream, the call's return value.
        {"handle", "INTEGER"},         {"stream", "INTEGER"},       {"returnValue", "INTEGER"}};
    for (auto [kind, table, eventClass] :
         {std::tuple{EventKind::Cublas, "CUBLAS_EVENTS", kCublasEventClass},
          std::tuple{EventKind::Cudnn, "CUDNN_EVENTS", kCudnnEventClass}}) {
        const int64_t cls = eventClass;
        Status s = perCall(r, o, sink, stats, table, lib, kind,
                           [&](const Track& t, size_t i, const CudaLibCall& call, Cell* c) {
            c[0] = I(t.start[i] - origin);
            c[1] = I(t.end[i] - origin);
            c[2] = I(cls);
            c[3] = I(globalTid(t.key.pid, t.key.tid));
            c[4] = I(t.name[i]);
            c[5] = orNull(static_cast<int64_t>(call.handle), call.handle != 0);
            c[6] = I(static_cast<int64_t>(call.stream));
            c[7] = I(call.status);
        });
        if (!s) return s;
    }
    static constexpr ColumnDef nccl[] = {
        {"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"}, {"globalTid", "INTEGER"},
        {"nameId", "INTEGER NOT NULL"}, {"commHandle", "INTEGER"},  {"stream", "INTEGER"},
        {"returnValue", "INTEGER"},    {"count", "INTEGER"},        {"size", "INTEGER"},
        {"dataType", "INTEGER"},       {"redOp", "INTEGER"},        {"peerRank", "INTEGER"},
        {"rank", "INTEGER"},           {"nRanks", "INTEGER"}};
    return perCall(r, o, sink, stats, "NCCL_EVENTS", nccl, EventKind::Nccl,
                   [&](const Track& t, size_t i, const CudaLibCall& call, Cell* c) {
        c[0] = I(t.start[i] - origin);
        c[1] = I(t.end[i] - origin);
        c[2] = I(globalTid(t.key.pid, t.key.tid));
        c[3] = I(t.name[i]);
        c[4] = orNull(static_cast<int64_t>(call.handle), call.handle != 0);
        c[5] = I(static_cast<int64_t>(call.stream));
        c[6] = I(call.status);
        c[7] = orNull(call.count, call.count >= 0);
        c[8] = orNull(call.bytes, call.count >= 0);
        c[9] = orNull(call.datatype, call.datatype >= 0);
        c[10] = orNull(call.redop, call.redop >= 0);
        c[11] = orNull(call.peer, call.peer >= 0);
        c[12] = orNull(call.rank, call.rank >= 0);
        c[13] = orNull(call.ranks, call.ranks >= 0);
    });
}

}  // namespace sl::exporter
