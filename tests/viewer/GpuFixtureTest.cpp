// The real GPU reports of tests/data/gpu, captured on an NVIDIA H200 from
// tests/gpu/clients/cuda_workload.cu, opened in the main window under Xvfb: the timeline's rows
// must hold what that program did. The expected numbers are the program's own (counted from its
// source, and printed by it into tests/data/gpu/cuda_workload.expect), not what Sightline computes:
//   kernels outside graphs: 4 x (busy + scale) in phase:overlap, 2 scale in phase:events,
//     2 x 50 empty in the workers, 10 scale in phase:profiler-range, 7 empty after it = 127;
//   a graph of 3 kernels (scale, scale, empty) launched 5 times: 15 more when graph nodes are
//     traced (cuda_workload_h200.rep, --cuda-graph-trace=node), 5 graph executions instead in
//     graph mode (gpu_metrics_h200.rep);
//   copies: HtoD 4 (overlap) + 1 (pageable) + 1 (profiler range), DtoH 4 + 1, DtoD 1, each 16 MiB;
//   memsets: cudaMemset 16 MiB + cudaMemsetAsync 8 MiB;
//   streams with GPU work: s1, s2, one per worker, and the legacy stream of the synchronous calls;
//   CUDA calls on 3 host threads (main and two workers), 9 NVTX ranges.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QTabWidget>
#include <QTest>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/viewer/WaitUntil.h"
#include "viewer/timeline/MetricRow.h"
#include "viewer/timeline/Row.h"
#include "viewer/timeline/TimelineScene.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/timeline/TrackRow.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"

using namespace sl;
using namespace sl::viewer;

namespace {

constexpr int64_t kMiB = 1 << 20;
constexpr uint64_t kKernelsOutsideGraphs = 4 * 2 + 2 + 2 * 50 + 10 + 7;  // 127
constexpr uint64_t kGraphLaunches = 5;
constexpr uint64_t kKernelsPerGraph = 3;
constexpr int kHostThreadsWithCuda = 3;

std::string fixture(const char* name) {
    return std::string(SIGHTLINE_TEST_DATA) + "/gpu/" + name;
}

using sl::test::waitUntil;

// Every row below `r` (not `r` itself) with this title, depth first.
std::vector<Row*> rowsTitled(const Row& r, const std::string& title) {
    std::vector<Row*> out;
    std::function<void(const Row&)> walk = [&](const Row& row) {
        for (const auto& c : row.children()) {
            if (c->title() == title) out.push_back(c.get());
            walk(*c);
        }
    };
    walk(r);
    return out;
}

uint64_t totalCount(const std::vector<Row*>& rows) {
    uint64_t n = 0;
    for (const Row* r : rows) n += r->count();
    return n;
}

// The events a track row draws, through the tracks it was built from.
template <class F>
void forEachEvent(const Row* row, F f) {
    const auto* tr = dynamic_cast<const TrackRow*>(row);
    ASSERT_NE(tr, nullptr) << row->title() << " is not a track row";
    for (const Track* t : tr->tracks())
        for (size_t i = 0; i < t->size(); ++i) f(*t, i);
}

// "busy(float*, int, long long)" -> "busy".
std::string baseName(std::string_view name) {
    return std::string(name.substr(0, name.find('(')));
}

bool laidOut(const TimelineWidget& w, const Row* row) {
    for (const LayoutRow& lr : w.scene()->layout())
        if (lr.row == row) return true;
    return false;
}

class GpuFixture : public ::testing::Test {
protected:
    // Opens the fixture in the main window and waits for its first frame and its NVTX
    // projection (rows are added to the GPU then), so the tree inspected is the final one.
    ReportTab* open(const char* name) {
        const std::string path = fixture(name);
        EXPECT_TRUE(std::filesystem::exists(path)) << path;
        m_window.resize(1600, 1000);
        m_window.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&m_window));
        ReportTab* tab = m_window.openReport(QString::fromStdString(path));
        bool projected = false;
        QObject::connect(tab, &ReportTab::projectionAdded, [&projected] { projected = true; });
        EXPECT_TRUE(waitUntil([&] { return tab->state() != ReportTab::State::Loading; }, 30000));
        EXPECT_EQ(tab->state(), ReportTab::State::Ready) << tab->errorMessage().toStdString();
        if (tab->state() != ReportTab::State::Ready || !tab->timeline()) return nullptr;
        TimelineWidget* t = tab->timeline();
        EXPECT_TRUE(waitUntil([&] { return t->frameCount() > 0; }, 20000));
        EXPECT_TRUE(t->glError().isEmpty()) << t->glError().toStdString();
        EXPECT_TRUE(waitUntil([&] { return projected; }, 20000));
        return tab;
    }
    // The one GPU of these reports: device 0, the H200 they were captured on.
    Row* gpuRow(ReportTab* tab) {
        Row* gpu = nullptr;
        int gpus = 0;
        for (const auto& c : tab->timeline()->scene()->root().children())
            if (c->device() >= 0) {
                ++gpus;
                gpu = c.get();
            }
        EXPECT_EQ(gpus, 1);
        return gpu;
    }

    MainWindow m_window;
};

}  // namespace

TEST_F(GpuFixture, H200WorkloadShowsItsKernelsCopiesMemsetsNvtxAndApiThreads) {
    ReportTab* tab = open("cuda_workload_h200.rep");
    ASSERT_NE(tab, nullptr);
    TimelineWidget& w = *tab->timeline();
    EXPECT_EQ(m_window.tabs()->tabText(0), "cuda_workload_h200.rep");
    Row* gpu = gpuRow(tab);
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ(gpu->device(), 0);
    EXPECT_EQ(gpu->title(), "GPU 0 (NVIDIA H200)");
    EXPECT_TRUE(laidOut(w, gpu));

    // Kernels: every one on a stream row, and all of them in the GPU's summary row.
    const uint64_t kernels = kKernelsOutsideGraphs + kGraphLaunches * kKernelsPerGraph;  // 142
    const std::vector<Row*> kernelRows = rowsTitled(*gpu, "Kernels");
    EXPECT_EQ(kernelRows.size(), 4u);  // s1, s2 and the two workers' streams
    EXPECT_EQ(totalCount(kernelRows), kernels);
    Row* allKernels = gpu->find("All kernels");
    ASSERT_NE(allKernels, nullptr);
    EXPECT_EQ(allKernels->count(), kernels);
    EXPECT_TRUE(laidOut(w, allKernels));
    std::map<std::string, uint64_t> byName;
    for (const Row* r : kernelRows)
        forEachEvent(r, [&](const Track& t, size_t i) {
            ++byName[baseName(tab->report()->str(t.nameAt(i)))];
        });
    const std::map<std::string, uint64_t> wantByName = {
        {"busy", 4},                                   // phase:overlap
        {"scale", 4 + 2 + 10 + 2 * kGraphLaunches},    // overlap, events, profiler range, graph
        {"empty", 2 * 50 + 7 + 1 * kGraphLaunches}};  // workers, after the range, graph
    EXPECT_EQ(byName, wantByName);

    // Copies by direction and size, and the memsets.
    const std::vector<Row*> memcpyRows = rowsTitled(*gpu, "Memcpy");
    EXPECT_EQ(totalCount(memcpyRows), 12u);
    std::map<CopyKind, std::pair<int, int64_t>> copies;  // kind -> (count, bytes)
    for (const Row* r : memcpyRows)
        forEachEvent(r, [&](const Track& t, size_t i) {
            auto& c = copies[static_cast<CopyKind>(t.intAt(cols::Memcpy::CopyKind, i))];
            ++c.first;
            c.second += t.intAt(cols::Memcpy::Bytes, i);
        });
    const std::map<CopyKind, std::pair<int, int64_t>> wantCopies = {
        {CopyKind::HtoD, {6, 6 * 16 * kMiB}},  // 100663296
        {CopyKind::DtoH, {5, 5 * 16 * kMiB}},
        {CopyKind::DtoD, {1, 16 * kMiB}}};
    EXPECT_EQ(copies, wantCopies);
    const std::vector<Row*> memsetRows = rowsTitled(*gpu, "Memset");
    EXPECT_EQ(totalCount(memsetRows), 2u);
    int64_t memsetBytes = 0;
    for (const Row* r : memsetRows)
        forEachEvent(r, [&](const Track& t, size_t i) {
            memsetBytes += t.intAt(cols::Memset::Bytes, i);
        });
    EXPECT_EQ(memsetBytes, 16 * kMiB + 8 * kMiB);
    Row* allMemops = gpu->find("All memory operations");
    ASSERT_NE(allMemops, nullptr);
    EXPECT_EQ(allMemops->count(), 12u + 2u);
    EXPECT_TRUE(laidOut(w, allMemops));

    // Five streams ran kernels, copies or memsets.
    int streams = 0;
    for (Row* ctx : rowsTitled(*gpu, "Context 1"))
        for (const auto& s : ctx->children()) {
            bool work = false;
            for (const auto& k : s->children())
                work |= k->title() == "Kernels" || k->title() == "Memcpy" || k->title() == "Memset";
            streams += work;
        }
    EXPECT_EQ(streams, 5);

    // Host side: one process; NVTX ranges and CUDA API rows on its threads.
    Row* process = nullptr;
    for (const auto& c : w.scene()->root().children())
        if (c->title().rfind("Process ", 0) == 0) process = c.get();
    ASSERT_NE(process, nullptr);
    EXPECT_NE(process->title().find("(cuda_workload)"), std::string::npos) << process->title();
    std::vector<std::string> ranges;
    std::map<std::string, std::string> threadOfRange;
    for (const Row* r : rowsTitled(*process, "NVTX")) {
        EXPECT_TRUE(laidOut(w, r));
        forEachEvent(r, [&](const Track& t, size_t i) {
            ranges.emplace_back(tab->report()->str(t.nameAt(i)));
            threadOfRange[ranges.back()] = r->parent()->title();
        });
    }
    std::vector<std::string> wantRanges = {
        "phase:overlap", "phase:pageable", "phase:memset",         "phase:events", "phase:graph",
        "phase:threads", "phase:profiler-range", "worker 0",       "worker 1"};
    std::sort(ranges.begin(), ranges.end());
    std::sort(wantRanges.begin(), wantRanges.end());
    EXPECT_EQ(ranges, wantRanges);
    // Each worker pushed its range on its own thread, the phases on the main thread.
    EXPECT_NE(threadOfRange["worker 0"], threadOfRange["worker 1"]);
    EXPECT_NE(threadOfRange["worker 0"], threadOfRange["phase:threads"]);
    EXPECT_EQ(threadOfRange["phase:overlap"], threadOfRange["phase:threads"]);

    const std::vector<Row*> apiRows = rowsTitled(*process, "CUDA API");
    EXPECT_EQ(apiRows.size(), static_cast<size_t>(kHostThreadsWithCuda));
    for (const Row* r : apiRows) {
        EXPECT_GT(r->count(), 0u) << r->parent()->title();
        EXPECT_TRUE(laidOut(w, r));
    }
    // The workers' threads each launched their 50 kernels.
    for (const char* worker : {"worker 0", "worker 1"}) {
        const Row* api = nullptr;
        for (const Row* r : apiRows)
            if (r->parent()->title() == threadOfRange[worker]) api = r;
        ASSERT_NE(api, nullptr) << worker;
        int launches = 0;
        forEachEvent(api, [&](const Track& t, size_t i) {
            launches += tab->report()->str(t.nameAt(i)).rfind("cudaLaunchKernel", 0) == 0;
        });
        EXPECT_EQ(launches, 50) << worker;
    }
    // GPU memory in use peaks at the program's three 16 MiB cudaMalloc buffers; its two pinned
    // host buffers (cudaMallocHost) are not GPU memory.
    auto memory = rowsTitled(*gpu, "CUDA memory usage (pid 716)");
    ASSERT_EQ(memory.size(), 1u);
    const auto* usage = dynamic_cast<const MemoryUsageRow*>(memory[0]);
    ASSERT_NE(usage, nullptr);
    EXPECT_EQ(usage->scaleMax(), 3.0 * 16 * kMiB);
}

TEST_F(GpuFixture, H200MetricsShowNvmlUtilizationAndGraphLaunches) {
    ReportTab* tab = open("gpu_metrics_h200.rep");
    ASSERT_NE(tab, nullptr);
    TimelineWidget& w = *tab->timeline();
    Row* gpu = gpuRow(tab);
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ(gpu->title(), "GPU 0 (NVIDIA H200)");
    // NVML's GPU utilization series is a graph row of the GPU, on screen, with samples.
    Row* util = gpu->find("GPU utilization");
    ASSERT_NE(util, nullptr);
    EXPECT_NE(dynamic_cast<MetricRow*>(util), nullptr);
    EXPECT_GT(util->count(), 0u);
    EXPECT_TRUE(laidOut(w, util));
    int metricRows = 0;
    for (const auto& c : gpu->children()) metricRows += dynamic_cast<MetricRow*>(c.get()) != nullptr;
    EXPECT_GE(metricRows, 1);
    // Graph mode: the graph's kernels are not traced one by one, its launches are.
    EXPECT_EQ(totalCount(rowsTitled(*gpu, "Kernels")), kKernelsOutsideGraphs);
    EXPECT_EQ(totalCount(rowsTitled(*gpu, "CUDA graphs")), kGraphLaunches);
}
