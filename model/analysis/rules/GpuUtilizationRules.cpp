// nsys's two "GPU Low Utilization" rules, as nsys computes them (docs/analysis.md): idle gaps
// between the GPU operations of each process on each GPU, and the stretches of the run where the
// GPU was busy less than a threshold of the time.
#include <algorithm>
#include <cmath>

#include "model/analysis/rules/RuleSupport.h"
#include "model/util/Format.h"

namespace sl::analysis::rules {
namespace {

std::string_view kGapAdvice =
    "See what the host was doing during the gaps: CPU samples and the threads' OS runtime calls "
    "(blocked on I/O, a lock, a data loader?) on the timeline, and NVTX ranges around the CPU "
    "work that feeds the GPU (analyze rule nvtx_gpu_idle lists the ranges that hold the idle time).";

}  // namespace

Finding runGpuGaps(const Report& r, const RuleContext& c) {
    Finding f = newFinding("gpu_gaps", "GPU Gaps");
    const int64_t threshold = c.value("gap") * 1'000'000;
    struct Gap {
        int64_t duration, start, pid;
        int32_t device;
        uint32_t context;
    };
    std::vector<Gap> gaps;
    for (const DeviceOps& d : gpuOpsByDevice(r, c.window)) {
        // Between the first and the last operation: idle once every operation begun so far has
        // ended, whatever the streams. (nsys pairs the k-th end in end order with the (k+1)-th
        // start: the same gaps, since an operation that ended before a start began before it;
        // the gap starts at the latest of those ends, in that operation's context.)
        int64_t latestEnd = d.ops.front().end;
        uint32_t context = keyOf(r, d.ops.front()).context;
        for (size_t k = 1; k < d.ops.size(); ++k) {
            const GpuOp& next = d.ops[k];
            if (latestEnd < next.start && next.start - latestEnd > threshold)
                gaps.push_back({next.start - latestEnd, latestEnd, d.pid, d.device, context});
            if (next.end > latestEnd) latestEnd = next.end, context = keyOf(r, next).context;
        }
    }
    std::stable_sort(gaps.begin(), gaps.end(), [](const Gap& a, const Gap& b) {
        return a.duration != b.duration ? a.duration > b.duration : a.start < b.start;
    });
    f.count = static_cast<int64_t>(gaps.size());
    WorstOf worst;
    for (const Gap& g : gaps) {
        f.totalNs += g.duration;
        worst.offer(g.duration, g.start, [&] {
            return FindingExample{UINT32_MAX, 0, g.start, g.start + g.duration, g.pid, g.device,
                                  "GPU " + std::to_string(g.device) + " idle"};
        });
    }
    worst.into(f);
    Table& t = f.table;
    t.intCol("Row#");
    t.intCol("Duration", Measure::Duration);
    t.intCol("Start", Measure::Timestamp);
    t.idCol("PID");
    t.idCol("Device ID");
    t.idCol("Context ID");
    const int64_t origin = r.timeOrigin();
    for (size_t k = 0; k < rowLimit(c, gaps.size()); ++k)
        t.row().i(static_cast<int64_t>(k + 1)).i(gaps[k].duration).i(gaps[k].start - origin).i(gaps[k].pid)
            .i(gaps[k].device).i(gaps[k].context);
    const std::string threshText = std::to_string(c.value("gap")) + " ms";
    if (f.count) {
        f.severity = Severity::Warning;
        f.summary = std::to_string(f.count) + " times a GPU sat idle for more than " + threshText + " between its "
                    "operations, " + formatDuration(f.totalNs) + " in all (the longest " +
                    formatDuration(gaps.front().duration) + ").";
        f.advice = std::string(kGapAdvice);
    } else {
        f.summary = "No GPU was idle for more than " + threshText + " between its first and last operation.";
    }
    return f;
}

Finding runGpuTimeUtil(const Report& r, const RuleContext& c) {
    Finding f = newFinding("gpu_time_util", "GPU Time Utilization");
    const int64_t chunks = c.value("chunks"), threshold = c.value("threshold");
    struct Low {
        double inUse;  // percent, length-weighted over the merged chunks
        int64_t duration, start, pid;
        int32_t device;
        uint32_t context;
        int64_t idle;  // chunk time not in use (the finding's time)
    };
    std::vector<Low> lows;
    for (const DeviceOps& d : gpuOpsByDevice(r, c.window)) {
        int64_t first = d.ops.front().start, last = first;
        for (const GpuOp& o : d.ops) last = std::max(last, o.end);
        const int64_t span = last - first;
        if (span <= 0) continue;
        const int64_t size = (span + chunks - 1) / chunks;
        // Busy time per chunk: each operation clipped to each chunk it touches; overlapping
        // operations add up (time utilization, as nsys computes it: it can pass 100%).
        std::vector<int64_t> busy(static_cast<size_t>(chunks), 0);
        for (const GpuOp& o : d.ops) {
            for (int64_t k = (o.start - first) / size; k < chunks; ++k) {
                const int64_t cs = first + k * size, ce = std::min(cs + size, last);
                if (cs >= o.end) break;
                busy[size_t(k)] += std::max<int64_t>(0, std::min(o.end, ce) - std::max(o.start, cs));
            }
        }
        // Runs of low chunks become one row, their percentages weighted by length.
        bool open = false;
        Low cur{};
        double weighted = 0;
        for (int64_t k = 0; k < chunks; ++k) {
            const int64_t cs = first + k * size;
            if (cs >= last) break;
            const int64_t len = std::min(cs + size, last) - cs;
            const double pct = 100.0 * static_cast<double>(busy[size_t(k)]) / static_cast<double>(len);
            if (pct < static_cast<double>(threshold)) {
                if (!open) {
                    cur = {0, 0, cs, d.pid, d.device, keyOf(r, d.ops.front()).context, 0};
                    weighted = 0;
                    open = true;
                }
                cur.duration += len;
                weighted += pct * static_cast<double>(len);
                cur.idle += std::max<int64_t>(0, len - busy[size_t(k)]);
            } else if (open) {
                cur.inUse = std::round(weighted / static_cast<double>(cur.duration) * 10.0) / 10.0;
                lows.push_back(cur);
                open = false;
            }
        }
        if (open) {
            cur.inUse = std::round(weighted / static_cast<double>(cur.duration) * 10.0) / 10.0;
            lows.push_back(cur);
        }
    }
    std::stable_sort(lows.begin(), lows.end(), [](const Low& a, const Low& b) {
        return a.inUse != b.inUse ? a.inUse < b.inUse : a.duration < b.duration;
    });
    f.count = static_cast<int64_t>(lows.size());
    WorstOf worst;
    for (const Low& l : lows) {
        f.totalNs += l.idle;
        worst.offer(l.idle, l.start, [&] {
            char what[96];
            std::snprintf(what, sizeof what, "GPU %d %.1f%% in use", l.device, l.inUse);
            return FindingExample{UINT32_MAX, 0, l.start, l.start + l.duration, l.pid, l.device, what};
        });
    }
    worst.into(f);
    Table& t = f.table;
    t.intCol("Row#");
    t.realCol("In-Use", Measure::Percent, 1);
    t.intCol("Duration", Measure::Duration);
    t.intCol("Start", Measure::Timestamp);
    t.idCol("PID");
    t.idCol("Device ID");
    t.idCol("Context ID");
    const int64_t origin = r.timeOrigin();
    for (size_t k = 0; k < rowLimit(c, lows.size()); ++k)
        t.row().i(static_cast<int64_t>(k + 1)).r(lows[k].inUse).i(lows[k].duration).i(lows[k].start - origin)
            .i(lows[k].pid).i(lows[k].device).i(lows[k].context);
    if (f.count) {
        f.severity = Severity::Warning;
        f.summary = std::to_string(f.count) + " stretches of the run had a GPU in use less than " +
                    std::to_string(threshold) + "% of the time (each process's GPU time cut into " +
                    std::to_string(chunks) + " equal parts); " + formatDuration(f.totalNs) + " of GPU time "
                    "went unused in them.";
        f.advice = std::string(kGapAdvice);
    } else {
        f.summary = "Every part of the run kept its GPU in use at least " + std::to_string(threshold) +
                    "% of the time.";
    }
    return f;
}

}  // namespace sl::analysis::rules
