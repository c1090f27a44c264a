// cublas_api_sum, cudnn_api_sum, nccl_api_sum and cudalib_api_trace (-t cublas,cudnn,nccl).
// nsys has no stats report for these libraries (its cuBLAS and cuDNN calls are only in the
// timeline and the export), so these are Sightline's own, laid out as osrt_sum and
// mpi_event_trace.
#include <algorithm>
#include <map>

#include "model/analysis/CudaLibCall.h"
#include "model/analysis/DenseGroups.h"
#include "model/analysis/StatsReports.h"

namespace sl::analysis {
namespace {

Table librarySum(const Report& r, const StatsOptions& o, EventKind k, const char* name,
                 const char* title) {
    Table t(name, title);
    if (r.eventCount(k) == 0)
        return Table::skip(t.name, t.title,
                           "does not contain " + std::string(cudaLibLabel(k)) + " trace data.");
    DenseGroups byId = durationsByName(r, k, o);
    if (o.cancelled()) return cancelledTable(t);
    std::vector<SummaryGroup> g = mergedByName(byId, [&](uint32_t id) { return r.str(id); });
    fillSummary(t, {"Num Calls", {"Name"}}, g, o.cancel);
    return o.cancelled() ? cancelledTable(t) : t;
}

// The CUDA API calls of a thread, by start, to count those inside a library call.
struct ThreadCudaCalls {
    std::vector<std::pair<int64_t, int64_t>> spans;  // (start, end), sorted by start
    size_t inside(int64_t start, int64_t end) const {
        auto it = std::lower_bound(spans.begin(), spans.end(), std::pair{start, INT64_MIN});
        size_t n = 0;
        for (; it != spans.end() && it->first <= end; ++it) n += it->second <= end;
        return n;
    }
};

}  // namespace

Table runCublasApiSum(const Report& r, const StatsOptions& o) {
    return librarySum(r, o, EventKind::Cublas, "cublas_api_sum", "cuBLAS API Summary");
}
Table runCudnnApiSum(const Report& r, const StatsOptions& o) {
    return librarySum(r, o, EventKind::Cudnn, "cudnn_api_sum", "cuDNN API Summary");
}
Table runNcclApiSum(const Report& r, const StatsOptions& o) {
    return librarySum(r, o, EventKind::Nccl, "nccl_api_sum", "NCCL API Summary");
}

// Every call of the three libraries by start time, with its handle or communicator, stream
// and status, NCCL's operation arguments, and how many CUDA API calls the same thread made
// inside it (time containment: the library's own runtime and driver calls).
Table runCudaLibApiTrace(const Report& r, const StatsOptions& o) {
    Table t("cudalib_api_trace", "cuBLAS, cuDNN and NCCL API Trace");
    if (r.eventCount(EventKind::Cublas) + r.eventCount(EventKind::Cudnn) + r.eventCount(EventKind::Nccl) == 0)
        return Table::skip(t.name, t.title, "does not contain cuBLAS, cuDNN or NCCL trace data.");
    t.textCol("Library");
    t.intCol("Start", Measure::Timestamp);
    t.intCol("End", Measure::Timestamp);
    t.intCol("Duration", Measure::Duration);
    t.textCol("Name");
    t.idCol("Pid");
    t.idCol("Tid");
    t.idCol("Handle");
    t.idCol("Stream");
    t.intCol("Status");
    t.intCol("Count");
    t.intCol("Bytes");
    t.textCol("DataType");
    t.textCol("RedOp");
    t.intCol("Peer");
    t.intCol("Rank");
    t.intCol("Ranks");
    t.intCol("CudaApiCalls");
    std::map<std::pair<int64_t, int64_t>, ThreadCudaCalls> cuda;
    for (const Track& tr : r.tracks) {
        if (tr.key.kind != EventKind::CudaApi) continue;
        auto& c = cuda[{tr.key.pid, tr.key.tid}];
        for (uint32_t i = 0; i < tr.size(); ++i) {
            if (o.stopAt(i)) return cancelledTable(t);
            c.spans.emplace_back(tr.start[i], tr.end[i]);
        }
    }
    for (auto& [key, c] : cuda) std::sort(c.spans.begin(), c.spans.end());
    struct Ref {
        int64_t start;
        uint32_t track, index;
    };
    std::vector<Ref> refs;
    for (uint32_t ti = 0; ti < r.tracks.size(); ++ti) {
        const Track& tr = r.tracks[ti];
        if (!isCudaLibKind(tr.key.kind)) continue;
        for (uint32_t i = 0; i < tr.size(); ++i) {
            if (o.stopAt(i)) return cancelledTable(t);
            if (o.inWindow(tr.start[i], tr.end[i])) refs.push_back({tr.start[i], ti, i});
        }
    }
    std::stable_sort(refs.begin(), refs.end(), [](const Ref& a, const Ref& b) {
        return a.start != b.start ? a.start < b.start : a.track < b.track;
    });
    const int64_t origin = r.timeOrigin();
    for (size_t k = 0; k < refs.size(); ++k) {
        if (o.stopAt(k)) return cancelledTable(t);
        const Track& tr = r.tracks[refs[k].track];
        const size_t i = refs[k].index;
        const CudaLibCall c = cudaLibCallAt(tr, i);
        const bool nccl = tr.key.kind == EventKind::Nccl;
        auto row = t.row();
        row.t(std::string(cudaLibLabel(tr.key.kind)))
            .i(tr.start[i] - origin)
            .i(tr.end[i] - origin)
            .i(tr.end[i] - tr.start[i])
            .t(std::string(r.str(tr.name[i])))
            .i(tr.key.pid)
            .i(tr.key.tid)
            .i(static_cast<int64_t>(c.handle))
            .i(static_cast<int64_t>(c.stream))
            .i(c.status);
        auto orNull = [&row](int64_t v, bool present) { present ? row.i(v) : row.null(); };
        orNull(c.count, nccl && c.count >= 0);
        orNull(c.bytes, nccl && c.count >= 0);
        if (nccl && !ncclDataTypeName(c.datatype).empty()) row.t(std::string(ncclDataTypeName(c.datatype)));
        else row.null();
        if (nccl && !ncclRedOpName(c.redop).empty()) row.t(std::string(ncclRedOpName(c.redop)));
        else row.null();
        orNull(c.peer, nccl && c.peer >= 0);
        orNull(c.rank, nccl && c.rank >= 0);
        orNull(c.ranks, nccl && c.ranks >= 0);
        auto it = cuda.find({tr.key.pid, tr.key.tid});
        row.i(it == cuda.end() ? 0 : static_cast<int64_t>(it->second.inside(tr.start[i], tr.end[i])));
    }
    return t;
}

}  // namespace sl::analysis
