// What the kernels are (Sightline's rules): short kernels and the launch overhead around them,
// GPU time by kind of kernel, and the delay from a launch call to its kernel.
#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include "model/analysis/rules/KernelCategory.h"
#include "model/analysis/rules/RuleSupport.h"
#include "model/util/Format.h"

namespace sl::analysis::rules {
namespace {

template <class Fn>
void forEachKernel(const Report& r, const StatsOptions& w, Fn fn) {
    for (uint32_t ti = 0; ti < r.tracks.size(); ++ti) {
        const Track& t = r.tracks[ti];
        if (t.key.kind != EventKind::Kernel) continue;
        for (size_t i = 0; i < t.size(); ++i)
            if (overlaps(w, t.start[i], t.endAt(i))) fn(t, ti, i);
    }
}

}  // namespace

Finding runShortKernels(const Report& r, const RuleContext& c) {
    Finding f = newFinding("short_kernels", "Short Kernels");
    const int64_t threshold = c.value("threshold") * 1000;  // us
    const CorrelationIndex& ci = c.window.cacheFor(r).correlation();
    struct Group {
        int64_t count = 0, gpu = 0, api = 0, apiCount = 0;
    };
    std::unordered_map<uint32_t, Group> byName;  // by name (string id)
    int64_t kernels = 0, gpuAll = 0, shortCount = 0, shortGpu = 0, shortApi = 0;
    uint32_t lastTrack = UINT32_MAX;
    CorrelationIndex::Cursor cursor;
    forEachKernel(r, c.window, [&](const Track& t, uint32_t ti, size_t i) {
        if (ti != lastTrack) cursor = {}, lastTrack = ti;
        ++kernels;
        const int64_t d = t.durationAt(i);
        gpuAll += d;
        if (d >= threshold) return;
        Group& g = byName[kernelNameIdOf(r, t, i)];
        ++g.count, g.gpu += d, ++shortCount, shortGpu += d;
        const EventRef api = ci.launcherOf({ti, static_cast<uint32_t>(i)}, cursor);
        if (api.valid()) {
            const int64_t a = r.tracks[api.track].durationAt(api.index);
            g.api += a, ++g.apiCount, shortApi += a;
        }
    });
    std::vector<std::pair<uint32_t, Group>> rows(byName.begin(), byName.end());
    std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
        return a.second.count != b.second.count ? a.second.count > b.second.count : r.str(a.first) < r.str(b.first);
    });
    f.count = shortCount;
    f.totalNs = shortApi;  // the launch calls' time spent on kernels that ran shorter than the threshold
    Table& t = f.table;
    t.textCol("Kernel");
    t.intCol("Instances");
    t.realCol("Avg Duration", Measure::Duration, 1);
    t.intCol("Total GPU Time", Measure::Duration);
    t.realCol("Avg Launch Call", Measure::Duration, 1);
    for (size_t k = 0; k < rowLimit(c, rows.size()); ++k) {
        const Group& g = rows[k].second;
        auto w = t.row();
        w.t(std::string(r.str(rows[k].first))).i(g.count).r(double(g.gpu) / double(g.count)).i(g.gpu);
        if (g.apiCount) w.r(double(g.api) / double(g.apiCount)); else w.null();
    }
    // The examples: the first instances of the most frequent short kernel.
    if (!rows.empty()) {
        const uint32_t top = rows.front().first;
        WorstOf worst;
        size_t taken = 0;
        forEachKernel(r, c.window, [&](const Track& tr, uint32_t ti, size_t i) {
            if (taken < kMaxExamples && tr.durationAt(i) < threshold && kernelNameIdOf(r, tr, i) == top) {
                ++taken;
                worst.offer(0, tr.start[i], [&] {
                    return FindingExample{ti, static_cast<uint32_t>(i), tr.start[i], tr.endAt(i), tr.key.pid,
                                          tr.key.device, std::string(r.str(top))};
                });
            }
        });
        worst.into(f);
    }
    if (shortCount == 0) {
        f.summary = "No kernel ran shorter than " + std::to_string(c.value("threshold")) + " us.";
        return f;
    }
    char text[400];
    std::snprintf(text, sizeof text,
                  "%lld of %lld kernels (%.1f%%) ran shorter than %lld us, %.1f%% of the GPU's kernel time; their "
                  "launch calls took %s on the CPU (%.1f us each on average).",
                  static_cast<long long>(shortCount), static_cast<long long>(kernels), percent(shortCount, kernels),
                  static_cast<long long>(c.value("threshold")), percent(shortGpu, gpuAll),
                  formatDuration(shortApi).c_str(), double(shortApi) / double(shortCount) / 1000.0);
    f.summary = text;
    f.severity = percent(shortCount, kernels) >= static_cast<double>(c.value("share")) ? Severity::Warning : Severity::Info;
    f.advice = "Many tiny kernels make the GPU wait on launches: fuse them (torch.compile, fused optimizers "
               "such as foreach/fused Adam, custom fused kernels), batch the work, or capture the sequence "
               "in a CUDA graph (torch.cuda.graphs, cudaStreamBeginCapture).";
    return f;
}

Finding runKernelCategories(const Report& r, const RuleContext& c) {
    Finding f = newFinding("kernel_categories", "GPU Time by Kind of Kernel");
    struct Cat {
        int64_t count = 0, gpu = 0;
        std::unordered_map<uint32_t, int64_t> byName;  // kernel name id -> GPU time
    };
    std::array<Cat, kKernelCategoryCount> cats;
    int64_t total = 0;
    CategoryOfName categoryOf(r);
    forEachKernel(r, c.window, [&](const Track& t, uint32_t, size_t i) {
        const uint32_t name = kernelNameIdOf(r, t, i);
        Cat& cat = cats[static_cast<size_t>(categoryOf(name))];
        const int64_t d = t.durationAt(i);
        ++cat.count, cat.gpu += d, total += d;
        cat.byName[name] += d;
    });
    // Copies and memsets are the memory category's too (they are not kernels).
    int64_t copyTime = 0, setTime = 0;
    for (const Track& t : r.tracks) {
        if (t.key.kind != EventKind::Memcpy && t.key.kind != EventKind::Memset) continue;
        Cat& cat = cats[static_cast<size_t>(KernelCategory::Memory)];
        for (size_t i = 0; i < t.size(); ++i) {
            if (!overlaps(c.window, t.start[i], t.endAt(i))) continue;
            ++cat.count, cat.gpu += t.durationAt(i), total += t.durationAt(i);
            (t.key.kind == EventKind::Memcpy ? copyTime : setTime) += t.durationAt(i);
        }
    }
    std::vector<size_t> order;
    for (size_t k = 0; k < cats.size(); ++k)
        if (cats[k].count) order.push_back(k);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cats[a].gpu > cats[b].gpu; });
    Table& t = f.table;
    t.textCol("Category");
    t.intCol("Instances");
    t.intCol("GPU Time", Measure::Duration);
    t.realCol("GPU Time", Measure::Percent, 1);
    t.textCol("Largest");
    for (size_t k = 0; k < rowLimit(c, order.size()); ++k) {
        const Cat& cat = cats[order[k]];
        // The kernel (or, for memory, the copies or memsets) with the most GPU time.
        std::string largest;
        int64_t most = -1;
        auto consider = [&](int64_t time, std::string_view name) {
            if (time > most || (time == most && name < largest)) most = time, largest = name;
        };
        for (const auto& [name, time] : cat.byName) consider(time, r.str(name));
        if (static_cast<KernelCategory>(order[k]) == KernelCategory::Memory) {
            if (copyTime) consider(copyTime, "[CUDA memcpy]");
            if (setTime) consider(setTime, "[CUDA memset]");
        }
        t.row().t(std::string(kernelCategoryName(static_cast<KernelCategory>(order[k])))).i(cat.count).i(cat.gpu)
            .r(percent(cat.gpu, total)).t(largest);
    }
    f.count = static_cast<int64_t>(order.size());
    if (order.empty()) {
        f.summary = "No kernels or memory operations.";
        return f;
    }
    f.severity = Severity::Info;
    std::string text = "GPU time by kind:";
    for (size_t k = 0; k < std::min<size_t>(order.size(), 4); ++k) {
        char part[96];
        std::snprintf(part, sizeof part, "%s %s %.1f%%", k ? "," : "",
                      std::string(kernelCategoryName(static_cast<KernelCategory>(order[k]))).c_str(),
                      percent(cats[order[k]].gpu, total));
        text += part;
    }
    f.summary = text + " (categories from kernel names; docs/analysis.md).";
    f.advice = "Compare with what the model should spend its time on: elementwise, normalization and "
               "reduction kernels dominating over GEMM/convolution/attention usually mean unfused small "
               "operations (torch.compile, fused kernels); memory time means copies to overlap or avoid.";
    return f;
}

Finding runLaunchLatency(const Report& r, const RuleContext& c) {
    Finding f = newFinding("launch_latency", "Kernel Launch Latency");
    const CorrelationIndex& ci = c.window.cacheFor(r).correlation();
    std::map<std::pair<int64_t, int32_t>, std::vector<int64_t>> byDevice;
    WorstOf worst;
    uint32_t lastTrack = UINT32_MAX;
    CorrelationIndex::Cursor cursor;
    forEachKernel(r, c.window, [&](const Track& t, uint32_t ti, size_t i) {
        if (ti != lastTrack) cursor = {}, lastTrack = ti;
        const EventRef api = ci.launcherOf({ti, static_cast<uint32_t>(i)}, cursor);
        if (!api.valid()) return;
        const int64_t callStart = r.tracks[api.track].start[api.index];
        const int64_t latency = t.start[i] - callStart;
        if (latency < 0) return;
        byDevice[{t.key.pid, t.key.device}].push_back(latency);
        worst.offer(latency, callStart, [&] {
            return FindingExample{ti, static_cast<uint32_t>(i), callStart, t.start[i], t.key.pid, t.key.device,
                                  kernelName(r, t, i)};
        });
    });
    Table& t = f.table;
    t.idCol("PID");
    t.idCol("Device ID");
    t.intCol("Kernels");
    t.intCol("Median", Measure::Duration);
    t.intCol("P95", Measure::Duration);
    t.intCol("Max", Measure::Duration);
    int64_t count = 0, worstMedian = 0;
    for (auto& [key, v] : byDevice) {
        // Order statistics without a full sort.
        const size_t mid = v.size() / 2, p95 = std::min(v.size() - 1, v.size() * 95 / 100);
        std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(mid), v.end());
        const int64_t median = v[mid];
        std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(p95), v.end());
        const int64_t p95v = v[p95];
        const int64_t max = *std::max_element(v.begin(), v.end());
        t.row().i(key.first).i(key.second).i(static_cast<int64_t>(v.size())).i(median).i(p95v).i(max);
        count += static_cast<int64_t>(v.size());
        worstMedian = std::max(worstMedian, median);
    }
    f.count = count;
    worst.into(f);
    if (!count) {
        f.summary = "No kernel with a recorded launch call.";
        return f;
    }
    f.severity = Severity::Info;
    f.summary = "From a launch call's start to its kernel's start: median " + formatDuration(worstMedian) +
                " on the slowest GPU (table: per process and GPU). Long delays mean the GPU is behind the CPU "
                "(GPU-bound, queue full); delays near the launch cost with GPU gaps mean the CPU is the limit.";
    f.advice = "When the GPU is behind, optimize the kernels; when kernels start as soon as they are launched "
               "and the GPU still idles, the CPU side is the bottleneck (see gpu_idle_breakdown).";
    return f;
}

}  // namespace sl::analysis::rules
