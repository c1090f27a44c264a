// Do copies and communication hide under compute (Sightline's rules): per process and GPU, the
// copy time not overlapped by kernels, and the share of NCCL communication and how much of it
// overlaps computation (as HTA measures it).
#include <algorithm>

#include "model/analysis/rules/KernelCategory.h"
#include "model/analysis/rules/RuleSupport.h"
#include "model/util/Format.h"

namespace sl::analysis::rules {

Finding runCopyComputeOverlap(const Report& r, const RuleContext& c) {
    Finding f = newFinding("copy_compute_overlap", "Copy/Compute Overlap");
    struct Row {
        int64_t pid;
        int32_t device;
        int64_t copy, overlapped, span;
    };
    std::vector<Row> rows;
    WorstOf worst;
    int64_t exposedCopies = 0;
    for (const DeviceOps& d : gpuOpsByDevice(r, c.window)) {
        const Intervals copies = mergedOps(d, [&](const GpuOp& o) { return keyOf(r, o).kind == EventKind::Memcpy; });
        if (copies.empty()) continue;
        const Intervals kernels = mergedOps(d, [&](const GpuOp& o) { return keyOf(r, o).kind == EventKind::Kernel; });
        int64_t last = 0;
        for (const GpuOp& o : d.ops) last = std::max(last, o.end);
        Row row{d.pid, d.device, totalLength(copies), overlapLength(copies, kernels), last - d.ops.front().start};
        rows.push_back(row);
        // The copies that ran with nothing computing: the worst exposed ones. The merged kernel
        // intervals that can overlap a copy start at the last one beginning before it.
        for (const GpuOp& o : d.ops) {
            if (keyOf(r, o).kind != EventKind::Memcpy) continue;
            auto k = std::upper_bound(kernels.begin(), kernels.end(), std::pair<int64_t, int64_t>{o.start, INT64_MAX});
            if (k != kernels.begin()) --k;
            int64_t hidden = 0;
            for (; k != kernels.end() && k->first < o.end; ++k)
                hidden += std::max<int64_t>(0, std::min(o.end, k->second) - std::max(o.start, k->first));
            const int64_t exposed = (o.end - o.start) - hidden;
            if (exposed <= 0) continue;
            ++exposedCopies;
            worst.offer(exposed, o.start, [&] {
                return FindingExample{o.ref.track, o.ref.index, o.start, o.end, d.pid, d.device, "copy not overlapped"};
            });
        }
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.copy - a.overlapped > b.copy - b.overlapped; });
    int64_t copy = 0, overlapped = 0, span = 0;
    for (const Row& x : rows) copy += x.copy, overlapped += x.overlapped, span += x.span;
    f.count = exposedCopies;
    f.totalNs = copy - overlapped;
    worst.into(f);
    Table& t = f.table;
    t.idCol("PID");
    t.idCol("Device ID");
    t.intCol("Copy Time", Measure::Duration);
    t.intCol("Overlapped", Measure::Duration);
    t.realCol("Overlapped", Measure::Percent, 1);
    t.intCol("Exposed Copy Time", Measure::Duration);
    t.realCol("Exposed of GPU Span", Measure::Percent, 1);
    for (size_t k = 0; k < rowLimit(c, rows.size()); ++k) {
        const Row& x = rows[k];
        t.row().i(x.pid).i(x.device).i(x.copy).i(x.overlapped).r(percent(x.overlapped, x.copy))
            .i(x.copy - x.overlapped).r(percent(x.copy - x.overlapped, x.span));
    }
    if (copy == 0) {
        f.summary = "No memory copies.";
        return f;
    }
    char text[300];
    std::snprintf(text, sizeof text,
                  "Copies took %s of GPU time, %.1f%% of it while kernels ran; %s ran with nothing computing "
                  "(%.1f%% of the GPUs' active spans).",
                  formatDuration(copy).c_str(), percent(overlapped, copy), formatDuration(copy - overlapped).c_str(),
                  percent(copy - overlapped, span));
    f.summary = text;
    f.severity = percent(copy - overlapped, span) >= static_cast<double>(c.value("exposed_share"))
                     ? Severity::Warning
                     : Severity::Info;
    f.advice = "Overlap copies with compute: issue them with cudaMemcpyAsync on a stream other than the "
               "kernels' from pinned memory (PyTorch: pin_memory=True, non_blocking=True, a side stream "
               "for prefetching the next batch).";
    return f;
}

Finding runCommunication(const Report& r, const RuleContext& c) {
    Finding f = newFinding("communication", "Communication Share and Overlap");
    struct Row {
        int64_t pid;
        int32_t device;
        int64_t comm, compute, overlap, busy;
    };
    std::vector<Row> rows;
    WorstOf worst;
    int64_t commKernels = 0;
    CategoryOfName categoryOf(r);
    for (const DeviceOps& d : gpuOpsByDevice(r, c.window)) {
        auto category = [&](const GpuOp& o) {
            return categoryOf(r.tracks[o.ref.track].nameAt(o.ref.index));
        };
        auto isKernel = [&](const GpuOp& o) { return keyOf(r, o).kind == EventKind::Kernel; };
        const Intervals comm = mergedOps(d, [&](const GpuOp& o) {
            if (!isKernel(o) || category(o) != KernelCategory::Communication) return false;
            ++commKernels;
            worst.offer(o.end - o.start, o.start, [&] {
                return FindingExample{o.ref.track, o.ref.index, o.start, o.end, d.pid, d.device,
                                      std::string(r.str(r.tracks[o.ref.track].nameAt(o.ref.index)))};
            });
            return true;
        });
        if (comm.empty()) continue;
        const Intervals compute = mergedOps(d, [&](const GpuOp& o) {
            if (!isKernel(o)) return false;
            const KernelCategory k = category(o);
            return k != KernelCategory::Communication && k != KernelCategory::Memory;
        });
        const Intervals all = mergedOps(d, isKernel);
        rows.push_back({d.pid, d.device, totalLength(comm), totalLength(compute), overlapLength(comm, compute),
                        totalLength(all)});
    }
    int64_t comm = 0, overlap = 0, busy = 0;
    for (const Row& x : rows) comm += x.comm, overlap += x.overlap, busy += x.busy;
    f.count = commKernels;
    f.totalNs = comm - overlap;  // communication nothing hid
    worst.into(f);
    Table& t = f.table;
    t.idCol("PID");
    t.idCol("Device ID");
    t.intCol("Communication", Measure::Duration);
    t.realCol("Of Kernel Time", Measure::Percent, 1);
    t.intCol("Computation", Measure::Duration);
    t.intCol("Overlapped", Measure::Duration);
    t.realCol("Communication Overlapped", Measure::Percent, 1);
    for (size_t k = 0; k < rowLimit(c, rows.size()); ++k) {
        const Row& x = rows[k];
        t.row().i(x.pid).i(x.device).i(x.comm).r(percent(x.comm, x.busy)).i(x.compute).i(x.overlap)
            .r(percent(x.overlap, x.comm));
    }
    if (comm == 0) {
        f.summary = "No communication kernels (NCCL).";
        return f;
    }
    char text[300];
    std::snprintf(text, sizeof text,
                  "Communication kernels (NCCL) took %.1f%% of the GPUs' kernel time (%s); %.1f%% of it overlapped "
                  "computation.",
                  percent(comm, busy), formatDuration(comm).c_str(), percent(overlap, comm));
    f.summary = text;
    const bool heavy = percent(comm, busy) > static_cast<double>(c.value("share"));
    const bool exposed = percent(overlap, comm) < static_cast<double>(c.value("overlap"));
    f.severity = heavy || exposed ? Severity::Warning : Severity::Info;
    f.advice = "Overlap communication with the backward pass (DDP/FSDP bucketing, gradient accumulation with "
               "no_sync, async collectives on their own stream), and reduce what is sent (larger buckets, "
               "lower-precision gradients).";
    return f;
}

}  // namespace sl::analysis::rules
