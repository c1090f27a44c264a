// sample_sum: a flat profile of the CPU samples (nsys-ui's "flat view"), from the call stacks;
// sample_sum:module, the same per module (which library the time goes to).
#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "model/analysis/StatsReports.h"

namespace sl::analysis {
namespace {

// One function of the profile: resolved frames group by (function, module); unresolved ones
// have no function, so each address is its own entry (as nsys lists them).
struct FunctionKey {
    uint32_t function, module;
    uint64_t offset;  // 0 for resolved functions
    bool operator==(const FunctionKey&) const = default;
};
struct FunctionKeyHash {
    size_t operator()(const FunctionKey& k) const noexcept {
        return static_cast<size_t>(
            ((uint64_t{k.function} << 32 | k.module) * 0x9E3779B97F4A7C15ULL) ^
            (k.offset * 0xC2B2AE3D27D4EB4FULL));
    }
};

struct FunctionRow {
    FunctionKey key;
    int64_t self = 0, total = 0;
    uint32_t lastStack = UINT32_MAX;  // the stack that last counted toward `total` (recursion once)
};

}  // namespace

Table runSampleSum(const Report& r, const StatsOptions& o) {
    Table t("sample_sum", "CPU Sample Summary (flat profile)");
    if (r.eventCount(EventKind::CpuSample) == 0)
        return Table::skip(t.name, t.title, "does not contain CPU sampling data.");
    const bool byModule = o.hasArg("module");
    if (byModule) t.title = "CPU Sample Summary (by module)";
    // Step 1: samples per call stack inside the window (one pass over the samples).
    std::vector<int64_t> perStack(r.callStacks.size(), 0);
    int64_t samples = 0, withoutStack = 0;
    for (const Track* tr : r.tracksOfKind(EventKind::CpuSample)) {
        const auto& stack = tr->col<uint32_t>(cols::CpuSample::Stack);
        for (size_t i = 0; i < tr->size(); ++i) {
            if (o.stopAt(i)) return cancelledTable(t);
            if (!o.inWindow(tr->start[i], tr->start[i])) continue;
            ++samples;
            if (stack[i] < perStack.size() && !r.callStacks[stack[i]].frames.empty())
                ++perStack[stack[i]];
            else
                ++withoutStack;
        }
    }
    // Step 2: each frame's function row, made once per frame.
    std::vector<FunctionRow> rows;
    std::unordered_map<FunctionKey, uint32_t, FunctionKeyHash> rowOf;
    std::vector<uint32_t> rowOfFrame(r.stackFrames.size(), UINT32_MAX);
    auto frameRow = [&](uint32_t frame) {
        uint32_t& slot = rowOfFrame[frame];
        if (slot != UINT32_MAX) return slot;
        const StackFrame& f = r.stackFrames[frame];
        const FunctionKey key = byModule ? FunctionKey{0, f.module, 0}
                                         : FunctionKey{f.function, f.module, f.function == 0 ? f.offset : 0};
        auto [it, inserted] = rowOf.try_emplace(key, static_cast<uint32_t>(rows.size()));
        if (inserted) rows.push_back({key});
        return slot = it->second;
    };
    // Step 3: per stack, the leaf's function gets self samples; every function on it, total
    // samples (once per stack, however often recursion repeats it).
    for (uint32_t s = 0; s < perStack.size(); ++s) {
        if (o.stopAt(s)) return cancelledTable(t);
        const int64_t n = perStack[s];
        if (n == 0) continue;
        const auto& frames = r.callStacks[s].frames;
        bool leaf = true;
        for (uint32_t f : frames) {
            if (f >= rowOfFrame.size()) continue;
            FunctionRow& row = rows[frameRow(f)];
            if (leaf) row.self += n;
            leaf = false;
            if (row.lastStack == s) continue;
            row.lastStack = s;
            row.total += n;
        }
    }
    // Step 4: order by self, then total, then name.
    auto functionText = [&](const FunctionKey& k) {
        if (k.function != 0) return std::string(r.str(k.function));
        char text[24];
        std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(k.offset));
        return std::string(text);
    };
    std::vector<std::string> names(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
        names[i] = byModule ? std::string(r.str(rows[i].key.module)) : functionText(rows[i].key);
    std::vector<uint32_t> order(rows.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const FunctionRow &x = rows[a], &y = rows[b];
        if (x.self != y.self) return x.self > y.self;
        if (x.total != y.total) return x.total > y.total;
        if (names[a] != names[b]) return names[a] < names[b];
        return r.str(x.key.module) < r.str(y.key.module);
    });
    t.intCol("Self Samples");
    t.realCol("Self", Measure::Percent, 1);
    t.intCol("Total Samples");
    t.realCol("Total", Measure::Percent, 1);
    if (!byModule) t.textCol("Function");
    t.textCol("Module");
    const double denom = samples > 0 ? static_cast<double>(samples) : 1.0;
    for (uint32_t i : order) {
        const FunctionRow& row = rows[i];
        if (row.total == 0) continue;
        auto w = t.row()
                     .i(row.self)
                     .r(100.0 * static_cast<double>(row.self) / denom)
                     .i(row.total)
                     .r(100.0 * static_cast<double>(row.total) / denom);
        if (!byModule) w.t(names[i]);
        w.t(std::string(r.str(row.key.module)));
    }
    if (withoutStack > 0) {
        const double pct = 100.0 * static_cast<double>(withoutStack) / denom;
        auto w = t.row().i(withoutStack).r(pct).i(withoutStack).r(pct).t("[no call stack]");
        if (!byModule) w.t("");
    }
    return o.cancelled() ? cancelledTable(t) : t;
}

}  // namespace sl::analysis
