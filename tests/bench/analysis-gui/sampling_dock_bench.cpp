// Benchmark of the GUI side of the "CPU sampling" dock on the generated report of
// SampleBenchReport.h: selection -> tree shown (the aggregation runs on a worker thread, the
// three models are reset on the GUI thread), the filter box over all three views (recursive
// filtering visits every node), and sorting the flat view. Run with QT_QPA_PLATFORM=offscreen.
// Usage: bench_sampling_dock [samples=1000000] [stacks=5000] [repeats=5]
#include <QApplication>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <cstdio>
#include <cstdlib>

#include "tests/bench/analysis-gui/SampleBenchReport.h"
#include "viewer/analysis/CpuSamplingDock.h"
#include "viewer/analysis/TimelineOverlay.h"
#include "viewer/timeline/RowTreeBuilder.h"

using namespace sl;
using namespace sl::viewer;

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const uint64_t samples = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
    const auto stacks = static_cast<uint32_t>(argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 5000);
    const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
    std::shared_ptr<const Report> report = bench::makeSampleBenchReport(samples, stacks);
    CpuSamplingDock dock(report);
    QSignalSpy ready(&dock, &CpuSamplingDock::treeReady);
    if (!dock.tree() && !ready.wait(60000)) return 1;
    dock.show();
    double shown = 1e300, filter = 1e300, unfilter = 1e300, sort = 1e300;
    QElapsedTimer t;
    for (int k = 0; k < repeats; ++k) {
        ready.clear();
        t.start();
        dock.setSelection(report->tMin(), report->tMax());  // the whole range, as a selection
        if (!ready.wait(60000)) return 1;
        shown = std::min(shown, static_cast<double>(t.nsecsElapsed()) / 1e6);
        t.start();
        dock.filterEdit()->setText(QStringLiteral("function_17"));
        filter = std::min(filter, static_cast<double>(t.nsecsElapsed()) / 1e6);
        t.start();
        dock.filterEdit()->clear();
        unfilter = std::min(unfilter, static_cast<double>(t.nsecsElapsed()) / 1e6);
        QSortFilterProxyModel* flat = dock.proxy(SampleTreeModel::View::Flat);
        t.start();
        flat->sort(k % 2 ? SampleTreeModel::TotalCol : SampleTreeModel::FunctionCol,
                   Qt::DescendingOrder);
        sort = std::min(sort, static_cast<double>(t.nsecsElapsed()) / 1e6);
    }
    std::printf("report: %llu samples, %zu stacks; tree: %zu top-down, %zu bottom-up nodes\n",
                static_cast<unsigned long long>(report->eventCount()), report->callStacks.size(),
                dock.tree()->topDown().size(), dock.tree()->bottomUp().size());
    std::printf("  selection -> tree shown      %8.1f ms (worker + model reset)\n", shown);
    std::printf("  filter 'function_17', 3 views %7.1f ms (GUI thread)\n", filter);
    std::printf("  clear the filter, 3 views    %8.1f ms (GUI thread)\n", unfilter);
    std::printf("  sort the flat view           %8.1f ms (GUI thread)\n", sort);
    // The timeline side: the frame's draw list (8 sample rows) and the function highlight's
    // dimming pass, over the whole report at 1600 px (no GL involved).
    TimelineScene scene(report, buildRowTree(*report));
    scene.setSize(1600, 900);
    const TimeRange all{report->tMin(), report->tMax() + 1};
    const auto mask = analysis::stacksWithFunction(*report, dock.tree()->functions()[0]);
    double frame = 1e300, dim = 1e300, maskMs = 1e300;
    DrawList out;
    for (int k = 0; k < repeats; ++k) {
        out.clear();
        t.start();
        scene.build(all, out);
        frame = std::min(frame, static_cast<double>(t.nsecsElapsed()) / 1e6);
        const size_t boxes = out.boxes.size();
        t.start();
        dimSamplesOutside(scene, all, mask, out);
        dim = std::min(dim, static_cast<double>(t.nsecsElapsed()) / 1e6);
        if (k == 0)
            std::printf("  (frame %zu boxes, dimming added %zu)\n", boxes,
                        out.boxes.size() - boxes);
        t.start();
        (void)analysis::stacksWithFunction(*report, dock.tree()->functions()[0]);
        maskMs = std::min(maskMs, static_cast<double>(t.nsecsElapsed()) / 1e6);
    }
    std::printf("  timeline frame, whole report %8.1f ms\n", frame);
    std::printf("  highlight: stack mask        %8.1f ms, dimming pass %.1f ms\n", maskMs, dim);
    return 0;
}
