// Generic Chrome trace JSON from any tool, and the exact time conversion.
#include <gtest/gtest.h>

#include <bit>

#include "ImportTestUtil.h"
#include "model/import/ImportText.h"

namespace sl::test {
namespace {

using import::decimalToNs;

TEST(ImportText, DecimalMicrosecondsToExactNanoseconds) {
    EXPECT_EQ(decimalToNs("1700000000000000.123", 1000), 1700000000000000123LL);
    EXPECT_EQ(decimalToNs("1700000000000000.1234", 1000), 1700000000000000123LL);
    EXPECT_EQ(decimalToNs("1700000000000000.1235", 1000), 1700000000000000124LL);  // rounds half up
    EXPECT_EQ(decimalToNs("1.7e15", 1000), 1700000000000000000LL);
    EXPECT_EQ(decimalToNs("1.700000000000000123e15", 1000), 1700000000000000123LL);
    EXPECT_EQ(decimalToNs("1623142623460111", 1000), 1623142623460111000LL);
    EXPECT_EQ(decimalToNs("0.5", 1000), 500);
    EXPECT_EQ(decimalToNs("-2.25", 1000), -2250);
    EXPECT_EQ(decimalToNs("12", 1), 12);
    EXPECT_EQ(decimalToNs("5E-1", 1000), 500);
    EXPECT_FALSE(decimalToNs("abc", 1000).has_value());
    EXPECT_FALSE(decimalToNs("1e30", 1000).has_value());  // does not fit in int64 ns
    EXPECT_FALSE(decimalToNs("", 1000).has_value());
    // 16 and 17 digits of microseconds overflowed the fast path (found by fuzz_import).
    EXPECT_FALSE(decimalToNs("9661938466265090", 1000).has_value());  // 9.66e18 ns: too large
    EXPECT_EQ(decimalToNs("9161938466265090", 1000), 9161938466265090000LL);
    EXPECT_EQ(decimalToNs("1623142623460111.5", 1000), 1623142623460111500LL);
    EXPECT_EQ(import::trailingInteger("stream 7"), 7);
    EXPECT_FALSE(import::trailingInteger("Spans").has_value());
    EXPECT_EQ(import::sanitizeUtf8("ok \xE9 \xE2\x82\xAC"), "ok \xEF\xBF\xBD \xE2\x82\xAC");
}

TEST(ChromeJson, GenericEventsMapToThreadRowsAndMetricRows) {
    TempDir dir;
    const std::string path = dir.write("trace.json", R"({
      "displayTimeUnit": "ns",
      "traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 10, "args": {"name": "renderer"}},
        {"ph": "M", "name": "thread_name", "pid": 10, "tid": 11, "args": {"name": "main"}},
        {"ph": "X", "cat": "frame", "name": "draw", "pid": 10, "tid": 11, "ts": 100.5, "dur": 20},
        {"ph": "B", "cat": "io", "name": "load", "pid": 10, "tid": 12, "ts": 110},
        {"ph": "B", "cat": "io", "name": "inner", "pid": 10, "tid": 12, "ts": 111},
        {"ph": "E", "pid": 10, "tid": 12, "ts": 112},
        {"ph": "E", "pid": 10, "tid": 12, "ts": 130},
        {"ph": "E", "pid": 10, "tid": 12, "ts": 131},
        {"ph": "B", "name": "open forever", "pid": 10, "tid": 12, "ts": 140},
        {"ph": "i", "name": "vsync", "pid": 10, "tid": 11, "ts": 105, "s": "t"},
        {"ph": "C", "name": "heap", "pid": 10, "ts": 100, "args": {"used": 5, "free": 7.5}},
        {"ph": "C", "name": "heap", "pid": 10, "ts": 120, "args": {"used": 6, "free": 6.5}},
        {"ph": "C", "name": "fps", "pid": 10, "ts": 100, "args": {"value": 60}},
        {"ph": "b", "name": "async thing", "pid": 10, "tid": 11, "ts": 100, "id": 1},
        {"ph": "X", "name": "string ids", "pid": "Browser", "tid": "IO thread", "ts": 101, "dur": 1},
        {"ph": "X", "name": "bad", "pid": 10, "tid": 11, "ts": "soon"},
        7
      ]})");
    auto r = importOk(path);
    EXPECT_EQ(r->session.source, "chrome-json");
    EXPECT_NE(r->session.captureOptions.find("displayTimeUnit ns"), std::string::npos);
    // ts is in microseconds whatever displayTimeUnit says (it only sets the display unit).
    EXPECT_EQ(r->tMin(), 100000);
    EXPECT_EQ(domainEvents(*r, EventKind::NvtxRange, "frame"), 1u);
    EXPECT_EQ(domainEvents(*r, EventKind::NvtxRange, "io"), 2u);
    EXPECT_EQ(nameCounts(*r, EventKind::NvtxRange)["inner"], 1);
    const Track* io = nullptr;
    for (const Track* t : r->tracksOfKind(EventKind::NvtxRange))
        if (t->key.tid == 12) io = t;
    ASSERT_NE(io, nullptr);
    EXPECT_EQ(io->laneCount(), 2u);  // "inner" nests in "load"
    EXPECT_EQ(r->eventCount(EventKind::NvtxMark), 1u);
    EXPECT_EQ(r->findProcess(10)->name, "renderer");
    EXPECT_EQ(r->findThread(10, 11)->name, "main");
    // Counters: one series per arg ("heap used", "heap free"), or the name alone for "value".
    std::map<std::string, size_t> series;
    for (const Track* t : r->tracksOfKind(EventKind::Metric))
        series[r->findSeries(t->key.series)->name] = t->size();
    EXPECT_EQ(series,
              (std::map<std::string, size_t>{{"heap used", 2}, {"heap free", 2}, {"fps", 1}}));
    const Track* free = nullptr;
    for (const Track* t : r->tracksOfKind(EventKind::Metric))
        if (r->findSeries(t->key.series)->name == "heap free") free = t;
    EXPECT_EQ(free->col<double>(cols::Metric::Value)[1], 6.5);
    // String pids and tids get ids of their own and keep their text as names.
    bool browser = false;
    for (const auto& p : r->processes) browser = browser || p.name == "Browser";
    EXPECT_TRUE(browser);
    EXPECT_EQ(r->diagnosticCount("chrome.unmatched_end"), 1);
    EXPECT_EQ(r->diagnosticCount("chrome.unterminated_begin"), 1);
    EXPECT_EQ(r->diagnosticCount("chrome.unsupported_phase.b"), 1);
    EXPECT_EQ(r->diagnosticCount("chrome.bad_timestamp"), 1);
    EXPECT_EQ(r->diagnosticCount("chrome.not_an_object"), 1);
}

TEST(ChromeJson, BaseTimeNanosecondsAndFractionalMicrosecondsAreExact) {
    TempDir dir;
    // Kineto since 2023: ts relative to baseTimeNanoseconds, written after the events.
    const std::string path = dir.write("rel.json", R"({"traceEvents": [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 5, "tid": 6, "ts": 1000.001, "dur": 2.5,
         "args": {"correlation": 42, "cbid": 211}},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 3, "ts": 1003.999, "dur": 1.001,
         "args": {"device": 0, "context": 1, "stream": 3, "correlation": 42, "grid": [4, 2, 1], "block": [128, 1, 1],
                  "registers per thread": 40, "shared memory": 1024}},
        {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 3, "ts": 1010, "dur": 1,
         "args": {"device": 0, "stream": 3, "correlation": 43}}
      ], "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000})");
    auto r = importOk(path);
    const Track* api = r->tracksOfKind(EventKind::CudaApi)[0];
    EXPECT_EQ(api->start[0], 1700000000001000001LL);
    EXPECT_EQ(api->end[0], 1700000000001002501LL);
    const Track* k = r->tracksOfKind(EventKind::Kernel)[0];
    EXPECT_EQ(k->start[0], 1700000000001003999LL);
    EXPECT_EQ(k->end[0], 1700000000001005000LL);
    EXPECT_EQ(k->key.pid, 5);  // the process of the launching call, not the GPU row's pid 0
    const KernelLaunchInfo& l =
        r->kernelLaunches[static_cast<size_t>(k->intAt(cols::Kernel::Launch, 0))];
    EXPECT_EQ(l.grid[0], 4u);
    EXPECT_EQ(l.grid[1], 2u);
    EXPECT_EQ(l.block[0], 128u);
    EXPECT_EQ(l.registersPerThread, 40u);
    EXPECT_EQ(l.staticSharedBytes, 1024u);
    EXPECT_EQ(api->intAt(cols::CudaApi::Cbid, 0), 211);
    const Track* sync = r->tracksOfKind(EventKind::Sync)[0];
    EXPECT_EQ(sync->intAt(cols::Sync::SyncType, 0), int64_t(SyncType::StreamSynchronize));
    EXPECT_EQ(r->session.startUtcNs, 1700000000001000001LL);
    EXPECT_EQ(r->diagnosticCount("kineto.gpu_events_without_api_call"), 1);  // the sync's 43
}

TEST(ChromeJson, AbsoluteEpochMicrosecondsWithFractionsAreExact) {
    TempDir dir;
    const std::string path = dir.write("abs.json", R"([
        {"ph": "X", "cat": "python_function", "name": "f", "pid": 1, "tid": 1, "ts": 1700000000000000.123, "dur": 0.001},
        {"ph": "X", "cat": "python_function", "name": "g", "pid": 1, "tid": 1, "ts": 1.7000000000000005e15, "dur": 1e0},
    )");  // the JSON Array Format may omit its closing bracket (a crashed program's trace)
    auto r = importOk(path);
    const Track* t = r->tracksOfKind(EventKind::NvtxRange)[0];
    EXPECT_EQ(t->start[0], 1700000000000000123LL);
    EXPECT_EQ(t->end[0], 1700000000000000124LL);
    EXPECT_EQ(t->start[1], 1700000000000000500LL);
    EXPECT_EQ(t->end[1], 1700000000000001500LL);
    EXPECT_EQ(r->session.source, "kineto-json");  // python_function is a Kineto category
}

TEST(ChromeJson, EscapedStringsAreUnescaped) {
    TempDir dir;
    const std::string path = dir.write("esc.json", R"({"traceEvents": [
        {"ph": "X", "cat": "c\u0061t", "name": "a\"b\u00e9\n\ud83d\ude00\\", "pid": 1, "tid": "t\/1", "ts": 1, "dur": 1}
    ]})");
    auto r = importOk(path);
    EXPECT_EQ(nameCounts(*r, EventKind::NvtxRange)["a\"b\xC3\xA9\n\xF0\x9F\x98\x80\\"], 1);
    EXPECT_EQ(domainEvents(*r, EventKind::NvtxRange, "cat"), 1u);
    bool named = false;
    for (const auto& t : r->threads) named = named || t.name == "t/1";
    EXPECT_TRUE(named);
}

TEST(ChromeJson, ManyProcessesThreadsDevicesAndStreams) {
    TempDir dir;
    std::string json = R"({"traceEvents": [)";
    int corr = 1;
    for (int pid = 100; pid < 102; ++pid)
        for (int tid = 0; tid < 2; ++tid)
            for (int dev = 0; dev < 2; ++dev)
                for (int stream = 7; stream < 9; ++stream, ++corr) {
                    const std::string c = std::to_string(corr), ts = std::to_string(corr * 10);
                    json += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":)" +
                            std::to_string(pid) + R"(,"tid":)" + std::to_string(pid * 10 + tid) +
                            R"(,"ts":)" + ts + R"(,"dur":2,"args":{"correlation":)" + c + "}},";
                    json += R"({"ph":"X","cat":"kernel","name":"k","pid":)" + std::to_string(dev) +
                            R"(,"tid":)" + std::to_string(stream) + R"(,"ts":)" + ts +
                            R"(,"dur":3,"args":{"device":)" + std::to_string(dev) +
                            R"(,"stream":)" + std::to_string(stream) + R"(,"correlation":)" + c +
                            "}},";
                }
    json.back() = ']';
    json += "}";
    auto r = importOk(dir.write("many.json", json));
    EXPECT_EQ(r->eventCount(EventKind::Kernel), 16u);
    EXPECT_EQ(r->tracksOfKind(EventKind::Kernel).size(),
              8u);  // 2 processes x 2 devices x 2 streams
    EXPECT_EQ(r->tracksOfKind(EventKind::CudaApi).size(), 4u);
    EXPECT_EQ(resolvedCount(*r, EventKind::Kernel), 16);
    EXPECT_EQ(r->streams.size(), 8u);
    EXPECT_EQ(r->gpus.size(), 2u);
}

}  // namespace
}  // namespace sl::test
