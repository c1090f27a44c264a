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
        flat->sort(k % 2 ? SampleTreeModel::TotalCol : SampleTreeModel::FunctionCol, Qt::DescendingOrder);
        sort = std::min(sort, static_cast<double>(t.nsecsElapsed()) / 1e6);
    }
    std::printf("report: %llu samples, %zu stacks; tree: %zu top-down, %zu bottom-up nodes\n",
                static_cast<unsigned long long>(report->eventCount()), report->callStacks.size(),
                dock.tree()->topDown().size(), dock.tree()->bottomUp().size());
    std::printf("  selection -> tree shown      %8.1f ms (worker + model reset)\n", shown);
    std::printf("  filter 'function_17', 3 views %7.1f ms (GUI thread)\n", filter);
    std::printf("  clear the filter, 3 views    %8.1f ms (GUI thread)\n", unfilter);
    std::printf("  sort the flat view           %8.1f ms (GUI thread)\n", sort);
    return 0;
}
