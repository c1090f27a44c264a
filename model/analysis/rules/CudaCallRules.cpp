// nsys's four "CUDA Synchronous Operation" rules, with nsys's selections and columns
// (docs/analysis.md): async copies from pageable memory, synchronous copies, synchronous
// memsets of host-visible memory, and the synchronization APIs.
#include <algorithm>

#include "model/analysis/rules/RuleSupport.h"
#include "model/util/Format.h"

namespace sl::analysis::rules {
namespace {

bool startsWithNoCase(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && containsNoCase(text.substr(0, prefix.size()), prefix);
}

// A copy or memset that a rule selected, with what its columns show.
struct OpRow {
    int64_t duration, start, bytes, pid;
    int32_t device;
    uint32_t context, stream;
    uint8_t srcKind, dstKind;  // memset: dstKind is its memory kind
    std::string api;
    EventRef ref;
};

// Rows by duration, longest first (nsys's order); count, total and examples into `f`.
void finishOps(const Report& r, const RuleContext& c, Finding& f, std::vector<OpRow>& rows, bool memset) {
    std::stable_sort(rows.begin(), rows.end(), [](const OpRow& a, const OpRow& b) { return a.duration > b.duration; });
    f.count = static_cast<int64_t>(rows.size());
    WorstOf worst;
    for (const OpRow& o : rows) {
        f.totalNs += o.duration;
        worst.offer(o.duration, o.start, [&] {
            return FindingExample{o.ref.track, o.ref.index, o.start, o.start + o.duration, o.pid, o.device,
                                  o.api + (memset ? " memset" : " copy") + " of " + formatBytes(static_cast<uint64_t>(o.bytes))};
        });
    }
    worst.into(f);
    Table& t = f.table;
    t.intCol("Duration", Measure::Duration);
    t.intCol("Start", Measure::Timestamp);
    if (memset) {
        t.textCol("Memory Kind");
    } else {
        t.textCol("Src Kind");
        t.textCol("Dst Kind");
    }
    t.intCol("Bytes");
    t.idCol("PID");
    t.idCol("Device ID");
    t.idCol("Context ID");
    t.idCol("Stream ID");
    t.textCol("API Name");
    const int64_t origin = r.timeOrigin();
    for (size_t k = 0; k < rowLimit(c, rows.size()); ++k) {
        const OpRow& o = rows[k];
        auto w = t.row();
        w.i(o.duration).i(o.start - origin);
        if (!memset) w.t(std::string(memoryKindName(static_cast<MemoryKind>(o.srcKind))));
        w.t(std::string(memoryKindName(static_cast<MemoryKind>(o.dstKind))));
        w.i(o.bytes).i(o.pid).i(o.device).i(o.context).i(o.stream).t(o.api);
    }
}

template <class Select>
std::vector<OpRow> selectOps(const Report& r, const RuleContext& c, EventKind kind, Select select) {
    const CorrelationIndex& ci = c.window.cacheFor(r).correlation();
    std::vector<OpRow> rows;
    for (uint32_t ti = 0; ti < r.tracks.size(); ++ti) {
        const Track& t = r.tracks[ti];
        if (t.key.kind != kind) continue;
        CorrelationIndex::Cursor cursor;
        for (size_t i = 0; i < t.size(); ++i) {
            if (!overlaps(c.window, t.start[i], t.endAt(i))) continue;
            const EventRef ref{ti, static_cast<uint32_t>(i)};
            const EventRef call = ci.launcherOf(ref, cursor);
            const std::string_view api = call.valid() ? r.str(r.tracks[call.track].nameAt(call.index)) : std::string_view{};
            OpRow o{t.durationAt(i), t.start[i], 0, t.key.pid, t.key.device, t.key.context, t.key.stream, 0, 0,
                    {}, ref};
            if (kind == EventKind::Memcpy) {
                o.bytes = t.intAt(cols::Memcpy::Bytes, i);
                o.srcKind = static_cast<uint8_t>(t.intAt(cols::Memcpy::SrcKind, i));
                o.dstKind = static_cast<uint8_t>(t.intAt(cols::Memcpy::DstKind, i));
                const auto copy = static_cast<CopyKind>(t.intAt(cols::Memcpy::CopyKind, i));
                if (!select(api, o, copy)) continue;
            } else {
                o.bytes = t.intAt(cols::Memset::Bytes, i);
                o.dstKind = static_cast<uint8_t>(t.intAt(cols::Memset::MemKind, i));
                if (!select(api, o, CopyKind::Unknown)) continue;
            }
            o.api = api;
            rows.push_back(std::move(o));
        }
    }
    return rows;
}

}  // namespace

Finding runCudaMemcpyAsync(const Report& r, const RuleContext& c) {
    Finding f = newFinding("cuda_memcpy_async", "CUDA Async Memcpy with Pageable Memory");
    auto rows = selectOps(r, c, EventKind::Memcpy, [](std::string_view api, const OpRow& o, CopyKind) {
        const bool pageable = o.srcKind == uint8_t(MemoryKind::Pageable) || o.dstKind == uint8_t(MemoryKind::Pageable);
        return pageable && startsWithNoCase(api, "cudaMemcpy") && containsNoCase(api.substr(10), "Async");
    });
    finishOps(r, c, f, rows, false);
    if (f.count) {
        f.severity = Severity::Warning;
        f.summary = std::to_string(f.count) + " asynchronous copies (cudaMemcpy*Async) had pageable host memory at "
                    "one end (" + formatDuration(f.totalNs) + " of copy time): such a copy is staged through a "
                    "pinned buffer and the host waits for it, so it is not asynchronous at all.";
        f.advice = "Allocate the host buffers of these copies as pinned memory (cudaMallocHost / cudaHostAlloc, "
                   "or cudaHostRegister on existing memory; PyTorch: pin_memory=True and "
                   ".to(device, non_blocking=True)).";
    } else {
        f.summary = "No asynchronous copy used pageable memory.";
    }
    return f;
}

Finding runCudaMemcpySync(const Report& r, const RuleContext& c) {
    Finding f = newFinding("cuda_memcpy_sync", "CUDA Synchronous Memcpy");
    // Not counted (as nsys): copies within one device, and host-to-device copies of 64 KiB or
    // less, which return before the copy completes (CUDA Programming Guide).
    auto rows = selectOps(r, c, EventKind::Memcpy, [](std::string_view api, const OpRow& o, CopyKind copy) {
        if (!startsWithNoCase(api, "cudaMemcpy") || containsNoCase(api, "Async")) return false;
        if (copy == CopyKind::DtoD) return false;
        return !(copy == CopyKind::HtoD && o.bytes <= 65536);
    });
    finishOps(r, c, f, rows, false);
    if (f.count) {
        f.severity = Severity::Warning;
        f.summary = std::to_string(f.count) + " synchronous copies (cudaMemcpy without Async) blocked the host for "
                    "their whole transfer (" + formatDuration(f.totalNs) + " of copy time).";
        f.advice = "Use cudaMemcpyAsync on a stream with pinned host memory, and synchronize only where the "
                   "result is needed, so the host keeps queuing work while the copy runs.";
    } else {
        f.summary = "No synchronous copy blocked the host (same-device copies and host-to-device copies of 64 KiB "
                    "or less are not counted: they do not).";
    }
    return f;
}

Finding runCudaMemsetSync(const Report& r, const RuleContext& c) {
    Finding f = newFinding("cuda_memset_sync", "CUDA Synchronous Memset");
    auto rows = selectOps(r, c, EventKind::Memset, [](std::string_view api, const OpRow& o, CopyKind) {
        const bool hostVisible = o.dstKind == uint8_t(MemoryKind::Pinned) || o.dstKind == uint8_t(MemoryKind::Managed);
        return hostVisible && startsWithNoCase(api, "cudaMemset") && !containsNoCase(api, "async");
    });
    finishOps(r, c, f, rows, true);
    if (f.count) {
        f.severity = Severity::Warning;
        f.summary = std::to_string(f.count) + " synchronous memsets (cudaMemset without Async) of pinned or "
                    "managed memory blocked the host (" + formatDuration(f.totalNs) + ").";
        f.advice = "Use cudaMemsetAsync on a stream.";
    } else {
        f.summary = "No synchronous memset of pinned or managed memory.";
    }
    return f;
}

Finding runCudaApiSync(const Report& r, const RuleContext& c) {
    Finding f = newFinding("cuda_api_sync", "CUDA Synchronization APIs");
    struct Row {
        int64_t duration, start, pid, tid;
        std::string api;
        EventRef ref;
    };
    std::vector<Row> rows;
    for (uint32_t ti = 0; ti < r.tracks.size(); ++ti) {
        const Track& t = r.tracks[ti];
        if (t.key.kind != EventKind::CudaApi) continue;
        for (size_t i = 0; i < t.size(); ++i) {
            const std::string_view name = r.str(t.nameAt(i));
            if (!name.starts_with("cudaDeviceSynchronize") && !name.starts_with("cudaStreamSynchronize")) continue;
            if (!overlaps(c.window, t.start[i], t.endAt(i))) continue;
            rows.push_back({t.durationAt(i), t.start[i], t.key.pid, t.key.tid, std::string(name),
                            {ti, static_cast<uint32_t>(i)}});
        }
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.duration > b.duration; });
    f.count = static_cast<int64_t>(rows.size());
    WorstOf worst;
    for (const Row& o : rows) {
        f.totalNs += o.duration;
        worst.offer(o.duration, o.start, [&] {
            return FindingExample{o.ref.track, o.ref.index, o.start, o.start + o.duration, o.pid, -1, o.api};
        });
    }
    worst.into(f);
    Table& t = f.table;
    t.intCol("Duration", Measure::Duration);
    t.intCol("Start", Measure::Timestamp);
    t.idCol("PID");
    t.idCol("TID");
    t.textCol("API Name");
    const int64_t origin = r.timeOrigin();
    for (size_t k = 0; k < rowLimit(c, rows.size()); ++k)
        t.row().i(rows[k].duration).i(rows[k].start - origin).i(rows[k].pid).i(rows[k].tid).t(rows[k].api);
    if (f.count) {
        f.severity = Severity::Warning;
        f.summary = std::to_string(f.count) + " calls of cudaDeviceSynchronize / cudaStreamSynchronize held their "
                    "threads for " + formatDuration(f.totalNs) + " in all, waiting for the GPU.";
        f.advice = "Synchronize only where the host needs a result (in PyTorch, .item(), .cpu(), print of a "
                   "tensor and torch.cuda.synchronize() all do); order work between streams with events "
                   "(cudaEventRecord + cudaStreamWaitEvent) instead of waiting on the host.";
    } else {
        f.summary = "No cudaDeviceSynchronize or cudaStreamSynchronize call.";
    }
    return f;
}

}  // namespace sl::analysis::rules
