#include <gtest/gtest.h>

#include <map>

#include "capture/cupti/CudaOptions.h"

namespace sl::cuda {
namespace {

TEST(CudaOptions, CommandLineValues) {
    EXPECT_EQ(parseFlushInterval("250").value(), 250u);
    EXPECT_EQ(parseFlushInterval("-1").error(),
              "--cuda-flush-interval: '-1' is not a number of milliseconds");
    EXPECT_FALSE(parseFlushInterval("10ms").ok());
    EXPECT_TRUE(parseMemoryUsage("true").value());
    EXPECT_FALSE(parseMemoryUsage("false").value());
    EXPECT_EQ(parseMemoryUsage("yes").error(), "--cuda-memory-usage: 'yes' is not true or false");
    EXPECT_EQ(parseGraphTrace("node").value(), GraphTrace::Node);
    EXPECT_EQ(parseGraphTrace("graph").value(), GraphTrace::Graph);
    EXPECT_EQ(parseGraphTrace("nodes").error(), "--cuda-graph-trace: 'nodes' is not graph or node");
    CudaTraceOptions o;
    EXPECT_TRUE(parseRangeEnd("repeat:3", o).ok());
    EXPECT_EQ(o.rangeEnd, RangeEnd::Repeat);
    EXPECT_EQ(o.repeatCount, 3);
    EXPECT_TRUE(parseRangeEnd("stop-shutdown", o).ok());
    EXPECT_EQ(o.rangeEnd, RangeEnd::StopShutdown);
    for (const char* bad : {"repeat:0", "repeat:x", "halt", ""}) {
        Status s = parseRangeEnd(bad, o);
        ASSERT_FALSE(s.ok()) << bad;
        EXPECT_EQ(s.error(), "--capture-range-end: '" + std::string(bad) +
                                 "' is not stop, stop-shutdown, repeat or repeat:N");
    }
}

TEST(CudaOptions, EnvironmentRoundTrip) {
    CudaTraceOptions o;
    o.flushIntervalMs = 100;
    o.memoryUsage = true;
    o.graphTrace = GraphTrace::Node;
    o.profilerRange = true;
    o.rangeEnd = RangeEnd::Repeat;
    o.repeatCount = 2;
    o.bufferPoolMb = 64;
    o.eventTrace = true;
    std::map<std::string, std::string> env;
    for (auto& [k, v] : o.toEnvironment()) env[k] = v;
    EXPECT_EQ(env.at("SIGHTLINE_CUDA_GRAPH"), "node");
    EXPECT_EQ(env.at("SIGHTLINE_CUDA_RANGE_END"), "repeat:2");
    auto back = CudaTraceOptions::fromEnvironment([&](const char* n) {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
    });
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->flushIntervalMs, 100u);
    EXPECT_TRUE(back->memoryUsage);
    EXPECT_EQ(back->graphTrace, GraphTrace::Node);
    EXPECT_TRUE(back->profilerRange);
    EXPECT_EQ(back->rangeEnd, RangeEnd::Repeat);
    EXPECT_EQ(back->repeatCount, 2);
    EXPECT_EQ(back->bufferPoolMb, 64u);
    EXPECT_TRUE(back->eventTrace);

    auto defaults =
        CudaTraceOptions::fromEnvironment([](const char*) -> const char* { return nullptr; });
    ASSERT_TRUE(defaults.ok());
    EXPECT_EQ(defaults->graphTrace, GraphTrace::Graph);
    EXPECT_FALSE(defaults->profilerRange);
    EXPECT_FALSE(defaults->eventTrace);  // as nsys: --cuda-event-trace=false

    env["SIGHTLINE_CUDA_FLUSH_MS"] = "soon";
    auto bad = CudaTraceOptions::fromEnvironment([&](const char* n) {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
    });
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error(), "SIGHTLINE_CUDA_FLUSH_MS='soon' is not valid");
}

TEST(CudaOptions, ApiRecordsComeFromCallbacksUnlessActivityIsAskedFor) {
    auto with = [](const char* value) {
        return CudaTraceOptions::fromEnvironment([value](const char* n) -> const char* {
            return std::string_view(n) == "SIGHTLINE_CUDA_API_RECORDS" ? value : nullptr;
        });
    };
    EXPECT_EQ(with(nullptr)->apiRecords, ApiRecords::Callbacks);
    EXPECT_EQ(with("activity")->apiRecords, ApiRecords::Activity);
    EXPECT_EQ(with("callbacks")->apiRecords, ApiRecords::Callbacks);
    auto bad = with("callback");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error(), "SIGHTLINE_CUDA_API_RECORDS='callback' is not valid");
}

}  // namespace
}  // namespace sl::cuda
