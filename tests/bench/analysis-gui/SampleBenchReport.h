#pragma once
// The generated report of the CPU sampling benchmarks: N samples (default 1M) on 8 threads at
// 1 kHz each, over S distinct stacks (2,000 functions in 40 modules, depth 8-40, outer frames
// shared the way real programs share entry points); every stack is sampled at least once, then
// a skewed choice makes hot paths dominate. Deterministic (fixed seed).
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "model/core/ReportBuilder.h"

namespace sl::bench {

inline std::shared_ptr<Report> makeSampleBenchReport(uint64_t samples, uint32_t stacks) {
    ReportBuilder b;
    std::mt19937_64 rng(42);
    std::vector<uint32_t> modules;
    for (int m = 0; m < 40; ++m)
        modules.push_back(b.intern("/usr/lib/libmod" + std::to_string(m) + ".so"));
    std::vector<uint32_t> frames, names;
    for (uint32_t f = 0; f < 2000; ++f) {
        const uint32_t name = b.intern("function_" + std::to_string(f));
        frames.push_back(b.frameId({name, modules[f % modules.size()], 0x1000 + 16ull * f}));
        names.push_back(name);
    }
    // Stacks share their outer frames (a few entry points), as real programs do.
    std::vector<uint32_t> stackIds, leafNames;
    while (stackIds.size() < stacks) {
        const size_t depth = 8 + rng() % 33;
        std::vector<uint32_t> fs(depth);
        for (size_t k = 0; k < depth; ++k) {
            const size_t outer = depth - 1 - k;  // 0 = outermost
            const uint64_t spread = std::min<uint64_t>(2000, 2 + outer * outer * 4);
            fs[k] = static_cast<uint32_t>(rng() % spread);
        }
        const uint32_t id = b.stackId([&] {
            std::vector<uint32_t> v;
            for (uint32_t f : fs) v.push_back(frames[f]);
            return v;
        }());
        if (id == stackIds.size()) stackIds.push_back(id), leafNames.push_back(names[fs[0]]);
    }
    for (uint64_t i = 0; i < samples; ++i) {
        const int64_t tid = 100 + static_cast<int64_t>(i % 8);
        // Every stack once, then a skewed choice: hot paths dominate.
        const uint64_t r = rng() % stacks;
        const auto s = static_cast<uint32_t>(i < stacks ? i : (r * r) / stacks);
        b.add(CpuSampleEvent{1, tid, static_cast<int64_t>(i / 8) * 1'000'000 + tid, stackIds[s],
                             leafNames[s], static_cast<int16_t>(i % 16)});
    }
    return b.finish();
}

}  // namespace sl::bench
