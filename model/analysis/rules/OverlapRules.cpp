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
    std::vector<Candidate> worst;
    for (const DeviceOps& d : gpuOpsByDevice(r, c.window)) {
        Intervals copies, kernels;
        for (const GpuOp& o : d.ops) (o.kind == EventKind::Memcpy ? copies : kernels).push_back({o.start, o.end});
        if (copies.empty()) continue;
        copies = merged(std::move(copies));
        kernels = merged(std::move(kernels));
        int64_t last = 0;
        for (const GpuOp& o : d.ops) last = std::max(last, o.end);
        Row row{d.pid, d.device, totalLength(copies), overlapLength(copies, kernels), last - d.ops.front().start};
        rows.push_back(row);
        // The copies that ran with nothing computing: the worst exposed ones.
        for (const GpuOp& o : d.ops) {
            if (o.kind != EventKind::Memcpy) continue;
            const int64_t hidden = overlapLength({{o.start, o.end}}, kernels);
            const int64_t exposed = (o.end - o.start) - hidden;
            if (exposed > 0)
                worst.push_back({exposed, {o.ref.track, o.ref.index, o.start, o.end, d.pid, d.device, "copy not overlapped"}});
        }
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.copy - a.overlapped > b.copy - b.overlapped; });
    int64_t copy = 0, overlapped = 0, span = 0;
    for (const Row& x : rows) copy += x.copy, overlapped += x.overlapped, span += x.span;
    f.count = static_cast<int64_t>(worst.size());
    f.totalNs = copy - overlapped;
    keepWorst(f, std::move(worst));
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
    std::vector<Candidate> worst;
    for (const DeviceOps& d : gpuOpsByDevice(r, c.window)) {
        Intervals comm, compute, all;
        for (const GpuOp& o : d.ops) {
            if (o.kind != EventKind::Kernel) continue;
            const Track& t = r.tracks[o.ref.track];
            const KernelCategory cat = kernelCategory(r.str(t.nameAt(o.ref.index)));
            all.push_back({o.start, o.end});
            if (cat == KernelCategory::Communication) {
                comm.push_back({o.start, o.end});
                worst.push_back({o.end - o.start, {o.ref.track, o.ref.index, o.start, o.end, d.pid, d.device,
                                                   std::string(r.str(t.nameAt(o.ref.index)))}});
            } else if (cat != KernelCategory::Memory) {
                compute.push_back({o.start, o.end});
            }
        }
        if (comm.empty()) continue;
        comm = merged(std::move(comm));
        compute = merged(std::move(compute));
        all = merged(std::move(all));
        rows.push_back({d.pid, d.device, totalLength(comm), totalLength(compute), overlapLength(comm, compute),
                        totalLength(all)});
    }
    int64_t comm = 0, overlap = 0, busy = 0;
    for (const Row& x : rows) comm += x.comm, overlap += x.overlap, busy += x.busy;
    f.count = static_cast<int64_t>(worst.size());
    f.totalNs = comm - overlap;  // communication nothing hid
    keepWorst(f, std::move(worst));
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
