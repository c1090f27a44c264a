// bench_viewer REPORT [--size WxH] [--no-projection] [--warm-app]
// (SL_SLOW_FRAMES=1: also print the 40 slowest frames with their span, how long their draw list
// takes to build, and what it holds - boxes, strips, covered area, labels - to see what the
// tail costs.)
// Opens REPORT in a TimelineWidget of the given size (1600x900 by default) under X (re-runs
// itself under xvfb-run when there is no DISPLAY) and measures:
//   open_to_first_frame: read the file, build the row tree, show, first frame on screen;
//   frame times of a scripted sequence from the full view down to single events and back
//   (Ctrl+wheel-like zooms of 0.8 around moving anchors, pans of 10% between them), each
//   from the ViewState change until the frame is swapped (rebuild + GL + labels + swap);
//   redraw times for hover moves (no rebuild);
//   memory: RSS after loading the model vs after the sequence (the GUI's share); with
//   --warm-app a small report's timeline has been shown and closed first, so the figure is
//   what this report costs in an application already running, not the GUI stack's one-off.
#include <time.h>
#include <unistd.h>
#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "model/gen/SyntheticGenerator.h"
#include "viewer/timeline/ProjectedNvtxRow.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimelineScene.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/CommandLine.h"
#include "viewer/window/MergeOpen.h"
#include "viewer/window/ReportOpener.h"
#include "tests/bench/ProcessCpu.h"

using namespace sl;
using namespace sl::viewer;

namespace {

size_t rssBytes(const char* field = "VmRSS:") {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind(field, 0) == 0) return std::stoull(line.substr(std::strlen(field))) * 1024;
    return 0;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t i =
        std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
    return v[i];
}

// CPU seconds used by the X server xvfb-run started next to us (it receives every frame), or
// 0 when there is none (a real display).
double xServerCpu() {
    const pid_t parent = getppid();
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
        std::ifstream f(e.path() / "stat");
        std::string stat;
        if (!std::getline(f, stat)) continue;
        const size_t open = stat.find('('), close = stat.rfind(')');
        if (open == std::string::npos || close == std::string::npos) continue;
        if (stat.substr(open + 1, close - open - 1) != "Xvfb") continue;
        std::istringstream rest(stat.substr(close + 2));
        std::string state;
        long ppid = 0;
        rest >> state >> ppid;
        if (ppid != parent) continue;
        std::string skip;
        for (int i = 0; i < 9; ++i) rest >> skip;  // pgrp .. cmajflt
        unsigned long long utime = 0, stime = 0;
        rest >> utime >> stime;
        return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
    }
    return 0;
}

double mb(size_t b) {
    return static_cast<double>(b) / (1024.0 * 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
    if (!std::getenv("DISPLAY") && !std::getenv("SIGHTLINE_NO_XVFB_REEXEC")) {
        setenv("SIGHTLINE_NO_XVFB_REEXEC", "1", 1);
        std::vector<char*> args = {const_cast<char*>("xvfb-run"), const_cast<char*>("-a"),
                                   const_cast<char*>("-s"),
                                   const_cast<char*>("-screen 0 1920x1080x24 -noreset")};
        for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
        args.push_back(nullptr);
        execvp("xvfb-run", args.data());
        std::fprintf(stderr, "bench_viewer: no DISPLAY and no xvfb-run\n");
        return 1;
    }
    TimelineWidget::installSurfaceFormat();
    QApplication app(argc, argv);
    const QStringList args = QApplication::arguments();
    QString path;
    QStringList paths;
    QSize size(1600, 900);
    bool projection = true;
    bool warmApp = false;
    bool merge = false;
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == "--size" && i + 1 < args.size())
            size = parseSize(args[++i]).value_or(size);
        else if (args[i] == "--no-projection")
            projection = false;
        else if (args[i] == "--warm-app")
            warmApp = true;
        else if (args[i] == "--merge")
            merge = true;
        else
            paths << args[i];
    }
    if (paths.isEmpty() || (!merge && paths.size() != 1)) {
        std::fprintf(stderr,
                     "usage: bench_viewer REPORT [--size WxH] [--no-projection] [--warm-app]\n"
                     "       bench_viewer --merge REPORT|DIR... [options]  (several reports as one timeline)\n");
        return 2;
    }
    if (merge) {
        // The GUI's own path for several reports as one timeline (sightline-ui --merge): a key
        // that openReportFile resolves by merging (viewer/window/MergeOpen.h).
        MergeRequest request;
        for (const QString& p : paths) request.paths.push_back(p.toStdString());
        path = registerMerge(request);
    } else {
        path = paths.front();
    }
    if (QString gl = TimelineWidget::checkOpenGL(); !gl.isEmpty()) {
        std::fprintf(stderr, "bench_viewer: %s\n", qPrintable(gl));
        return 1;
    }
    if (warmApp) {
        // The application already running, as when a user opens a report in a new tab: a
        // timeline on a small generated report has been shown, zoomed and closed, so the
        // memory measured below is what this report costs, not the GUI stack's one-off cost
        // (Qt, the GL driver, its shader compiler, glyph caches), which is the same for any
        // report.
        GeneratorOptions o;
        o.events = 50'000;
        std::shared_ptr<Report> small = generateReport(o);
        auto warm = std::make_unique<TimelineWidget>();
        uint64_t shown = 0;
        QObject::connect(warm.get(), &TimelineWidget::frameSwapped, [&shown] { ++shown; });
        warm->setScene(std::make_unique<TimelineScene>(small, buildRowTree(*small)));
        warm->resize(size);
        warm->show();
        while (shown == 0) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        // Down to single events and back, hovering on the way: every kind of frame once.
        for (int i = 0; i < 60; ++i) {
            const uint64_t before = shown;
            warm->view().zoomAround((small->tMin() + small->tMax()) / 3, i < 30 ? 0.6 : 1.0 / 0.6);
            while (shown == before) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
            QMouseEvent move(QEvent::MouseMove, QPointF(400 + 20 * (i % 40), 200), QPointF(),
                             Qt::NoButton, Qt::NoButton, Qt::NoModifier);
            QCoreApplication::sendEvent(warm.get(), &move);
        }
        warm.reset();
        small.reset();
        for (int i = 0; i < 10; ++i) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
#if defined(__GLIBC__)
        malloc_trim(0);
#endif
    }
    const size_t rssStart = rssBytes();

    // Step 1: open to first frame.
    QElapsedTimer open;
    open.start();
    auto r = openReportFile(path.toStdString(), {});
    if (!r) {
        std::fprintf(stderr, "bench_viewer: %s\n", r.error().c_str());
        return 1;
    }
    std::shared_ptr<Report> report = std::move(r.value());
    const double readMs = static_cast<double>(open.nsecsElapsed()) / 1e6;
    auto rows = buildRowTree(*report);
    const double rowsMs = static_cast<double>(open.nsecsElapsed()) / 1e6 - readMs;
#if defined(__GLIBC__)
    malloc_trim(0);  // as the app's loader does: the reader's temporaries are not the model
#endif
    const size_t rssModel = rssBytes();
    const size_t anonModel = rssBytes("RssAnon:"), fileModel = rssBytes("RssFile:");
    TimelineWidget w;
    uint64_t swaps = 0;
    QObject::connect(&w, &TimelineWidget::frameSwapped, [&swaps] { ++swaps; });
    w.setScene(std::make_unique<TimelineScene>(report, std::move(rows)));
    w.resize(size);
    w.show();
    while (swaps == 0) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    const double firstFrameMs = static_cast<double>(open.nsecsElapsed()) / 1e6;
    const size_t rssFirstFrame = rssBytes();
    {
        // What the GPU (llvmpipe here) rasterizes for the full view: instanced boxes, lines,
        // labels. Bounded by pixels x rows, whatever the event count.
        DrawList full;
        w.scene()->build(w.view().range(), full);
        std::printf("full view draw list: %zu boxes, %zu strips, %zu lines, %zu labels, %zu polylines\n",
                    full.boxes.size(), full.strips.size(), full.lines.size(), full.labels.size(),
                    full.polylines.size());
    }
    // The app projects NVTX onto the GPUs on its loader thread after the first frame; here it
    // runs in place so its rows take part in the sequence and its memory counts as the GUI's.
    QElapsedTimer projTimer;
    projTimer.start();
    if (projection) {
        ProjectedNvtx projected(*report);
        if (addProjectedNvtxRows(w.scene()->root(), projected) > 0) w.rowsChanged();
    }
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
    const double projectionMs = static_cast<double>(projTimer.nsecsElapsed()) / 1e6;
    const size_t rssProjected = rssBytes();

    // Step 2: the scripted sequence. Each step changes the view, then waits for the swap.
    std::vector<double> frames, builds, paints, redraws, latencies, composes;
    // Every frame() call (zooms, pans and hover redraws alike), for SL_SLOW_FRAMES.
    struct Call {
        double ms, paintMs, swapMs;
        TimeRange range;
    };
    std::vector<Call> calls;
    QElapsedTimer clock;
    clock.start();
    qint64 paintEnd = 0;
    QObject::connect(&w, &TimelineWidget::frameRendered, [&] { paintEnd = clock.nsecsElapsed(); });
    auto frame = [&](auto&& change) {
        const uint64_t before = swaps;
        const qint64 t0 = clock.nsecsElapsed();
        change();
        w.update();
        while (swaps == before) QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
        const qint64 t1 = clock.nsecsElapsed();
        // Where the time goes: until paintGL starts, paintGL, then the swap (llvmpipe rasterizes
        // the frame there).
        latencies.push_back(static_cast<double>(paintEnd - t0) / 1e6 - w.lastPaintMs());
        composes.push_back(static_cast<double>(t1 - paintEnd) / 1e6);
        calls.push_back({static_cast<double>(t1 - t0) / 1e6, w.lastPaintMs(), composes.back(),
                         w.view().range()});
        return static_cast<double>(t1 - t0) / 1e6;
    };
    ViewState& v = w.view();
    const double cpu0 = bench::processCpuSeconds(), x0 = xServerCpu();
    const TimeRange all = v.bounds();
    // Anchors spread over the report so zooms land on different data.
    const double anchors[] = {0.37, 0.61, 0.13, 0.82};
    int steps = 0;
    for (double a : anchors) {
        const int64_t anchor =
            all.start + static_cast<int64_t>(a * static_cast<double>(all.span()));
        // Down to single events: a span of 20 us shows microsecond kernels a few pixels wide.
        while (v.range().span() > 20'000) {
            frames.push_back(frame([&] { v.zoomAround(anchor, 0.8); }));
            builds.push_back(w.lastBuildMs());
            paints.push_back(w.lastPaintMs());
            if (++steps % 5 == 0)
                for (int p : {1, -1, 1}) {
                    frames.push_back(frame([&] { v.pan(p * v.range().span() / 10); }));
                    builds.push_back(w.lastBuildMs());
                }
        }
        for (int i = 0; i < 10; ++i) {
            const float x = static_cast<float>(TimelineScene::kHeaderWidth + 100 + i * 100);
            redraws.push_back(frame([&] {
                QMouseEvent e(QEvent::MouseMove, QPointF(x, 300), w.mapToGlobal(QPointF(x, 300)),
                              Qt::NoButton, Qt::NoButton, Qt::NoModifier);
                QApplication::sendEvent(&w, &e);
            }));
        }
        while (v.range().span() < all.span()) {
            frames.push_back(frame([&] { v.zoomAround(anchor, 1.25); }));
            builds.push_back(w.lastBuildMs());
        }
    }
    if (qEnvironmentVariableIsSet("SL_SLOW_FRAMES")) {
        std::vector<size_t> idx(calls.size());
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
        std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return calls[a].ms > calls[b].ms; });
        for (size_t k = 0; k < 40 && k < idx.size(); ++k) {
            const Call& c = calls[idx[k]];
            DrawList dl;
            QElapsedTimer bt;
            bt.start();
            w.scene()->build(c.range, dl);
            const double buildMs = static_cast<double>(bt.nsecsElapsed()) / 1e6;
            size_t area = 0, translucent = 0, tarea = 0;
            for (const auto& b : dl.boxes) {
                const auto a = static_cast<size_t>(b.w * b.h);
                area += a;
                if ((b.argb >> 24) != 0xFF) {
                    ++translucent;
                    tarea += a;
                }
            }
            size_t stripArea = 0;
            for (const auto& s : dl.strips) stripArea += static_cast<size_t>(s.count * s.h);
            std::printf(
                "slow frame %zu: %.2f ms (paintGL %.2f, swap %.2f; draw list alone %.2f), span %lld ns, boxes %zu "
                "(translucent %zu, area %zu px, translucent area %zu px), strips %zu (%zu "
                "columns, area %zu px), labels %zu, lines %zu\n",
                idx[k], c.ms, c.paintMs, c.swapMs, buildMs, static_cast<long long>(c.range.span()),
                dl.boxes.size(), translucent, area, tarea, dl.strips.size(), dl.stripPixels.size(),
                stripArea, dl.labels.size(), dl.lines.size());
        }
    }
    const double cpuPerFrame =
        (bench::processCpuSeconds() - cpu0) * 1e3 / static_cast<double>(frames.size() + redraws.size());
    const double xPerFrame =
        (xServerCpu() - x0) * 1e3 / static_cast<double>(frames.size() + redraws.size());
    const size_t rssEnd = rssBytes();
    const size_t anonEnd = rssBytes("RssAnon:"), fileEnd = rssBytes("RssFile:");
    const size_t model = report->memoryBytes();
    const size_t gui = rssEnd > rssModel ? rssEnd - rssModel : 0;
    std::printf("report: %s\n", qPrintable(path));
    std::printf("events: %llu  rows laid out: %zu  window: %dx%d\n",
                static_cast<unsigned long long>(report->eventCount()), w.scene()->layout().size(),
                size.width(), size.height());
    std::printf("open_to_first_frame_ms: %.1f  (read %.1f, row tree %.1f, show+first frame %.1f)\n",
                firstFrameMs, readMs, rowsMs, firstFrameMs - readMs - rowsMs);
    std::printf("nvtx_projection_ms (after the first frame, off the GUI thread in the app): %.1f\n",
                projectionMs);
    std::printf("frames: %zu  frame_ms p50 %.2f  p95 %.2f  max %.2f\n", frames.size(),
                percentile(frames, 0.5), percentile(frames, 0.95), percentile(frames, 1.0));
    std::printf("rebuild_ms (draw list + upload + label eliding) p50 %.2f  p95 %.2f\n",
                percentile(builds, 0.5), percentile(builds, 0.95));
    std::printf("paintGL_ms (zoom-in frames, rebuild included) p50 %.2f  p95 %.2f\n",
                percentile(paints, 0.5), percentile(paints, 0.95));
    std::printf("breakdown p50: until paintGL %.2f ms, swap (rasterizing) after paintGL %.2f ms\n",
                percentile(latencies, 0.5), percentile(composes, 0.5));
    std::printf(
        "cpu_ms per frame (mean, load-independent): this process %.2f (GUI thread + llvmpipe "
        "threads), "
        "X server %.2f\n",
        cpuPerFrame, xPerFrame);
    std::printf("hover_redraw_ms p50 %.2f  p95 %.2f  (%zu redraws)\n", percentile(redraws, 0.5),
                percentile(redraws, 0.95), redraws.size());
    std::printf(
        "memory: model %.1f MiB (Report::memoryBytes)  rss: start %.1f, after load %.1f, after "
        "first frame "
        "%.1f, after the NVTX projection %.1f, after sequence %.1f MiB (peak %.1f)\n",
        mb(model), mb(rssStart), mb(rssModel), mb(rssFirstFrame), mb(rssProjected), mb(rssEnd),
        mb(rssBytes("VmHWM:")));
    std::printf("gui_beyond_model%s: %.1f MiB = %.1f%% of the model  (draw lists %.2f MiB)\n",
                warmApp ? " (app already running: this report's own cost)" : "", mb(gui),
                100.0 * static_cast<double>(gui) / static_cast<double>(std::max<size_t>(1, model)),
                mb(w.drawListBytes()));
    // Of that, resident pages of shared libraries (Mesa, LLVM, Qt: code that the OS shares and
    // can drop) vs the process's own memory (heap, GL buffers, thread stacks).
    std::printf(
        "gui_beyond_model split: anonymous %.1f MiB = %.1f%% of the model, file-backed (library "
        "code) %.1f MiB\n",
        mb(anonEnd > anonModel ? anonEnd - anonModel : 0),
        100.0 * static_cast<double>(anonEnd > anonModel ? anonEnd - anonModel : 0) /
            static_cast<double>(std::max<size_t>(1, model)),
        mb(fileEnd > fileModel ? fileEnd - fileModel : 0));
    return 0;
}
