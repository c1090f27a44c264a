// One selection path per report tab (issue #21 item 2), with real widgets under Xvfb: a click on
// the timeline, a double-click in the events view and a find hit select the same event through
// the tab's SelectionModel, so the details panel shows the same fields each time, the tooltip
// shows the panel's values, and the event's row comes into view; the status bar's selection line
// follows the current tab, clears on a switch to a tab with nothing selected and when its tab
// closes.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QStringList>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "model/analysis/EventQueryDetails.h"
#include "model/core/ReportBuilder.h"
#include "model/rep/RepWriter.h"
#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/DetailsPanel.h"
#include "viewer/analysis/EventsModel.h"
#include "viewer/analysis/EventsView.h"
#include "viewer/analysis/FindBar.h"
#include "viewer/analysis/SelectionModel.h"
#include "viewer/analysis/TimelineAnalysis.h"
#include "viewer/analysis/TimelineOverlay.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"

namespace sl::viewer {
namespace {

using analysis::EventField;
using analysis::EventRef;

// Process 1 with 40 threads that each make a CUDA call (none folds away), then GPU 0 with one
// kernel "kernel" [200, 300] (grid 4 x 2 x 1) launched by thread 10's cudaLaunchKernel [100, 120]:
// with the rows scrolled to the top, the kernel's row is far below the view.
std::shared_ptr<Report> makeReport() {
    ReportBuilder b;
    b.report().session.durationNs = 1000;
    b.ensureProcess(1).name = "app";
    Gpu g;
    g.deviceId = 0;
    g.name = "Test GPU";
    b.report().gpus = {g};
    const uint32_t launch = b.intern("cudaLaunchKernel"), malloc = b.intern("cudaMalloc"),
                   kernel = b.intern("kernel");
    for (int i = 0; i < 40; ++i) {
        const auto tid = static_cast<uint32_t>(10 + i);
        b.ensureThread(1, tid).name = "worker";
        CudaApiCall c;
        c.pid = 1;
        c.tid = tid;
        c.start = i == 0 ? 100 : 20;
        c.end = i == 0 ? 120 : 40;
        c.name = i == 0 ? launch : malloc;
        c.correlation = i == 0 ? 1 : 100 + static_cast<uint32_t>(i);
        c.cbid = i == 0 ? 211 : 20;
        b.add(c);
    }
    KernelExec k;
    k.place = {1, 0, 1, 7};
    k.start = 200;
    k.end = 300;
    k.name = kernel;
    k.correlation = 1;
    k.launch.shortName = kernel;
    k.launch.grid[0] = 4;
    k.launch.grid[1] = 2;
    k.launch.grid[2] = 1;
    k.launch.block[0] = 128;
    k.launch.block[1] = k.launch.block[2] = 1;
    k.launch.registersPerThread = 32;
    b.add(k);
    return b.finish();
}

EventRef first(const Report& r, EventKind kind, const char* name) {
    for (uint32_t t = 0; t < r.tracks.size(); ++t)
        for (uint32_t i = 0; i < r.tracks[t].size(); ++i)
            if (r.tracks[t].key.kind == kind && r.str(r.tracks[t].name[i]) == name) return {t, i};
    return {};
}

// A report opened in a main window, as a user has it.
struct Window {
    QTemporaryDir dir;
    MainWindow window;
    std::shared_ptr<Report> report = makeReport();

    Window() {
        window.resize(1600, 900);
        window.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&window));
    }
    ReportTab* open(const QString& name) {
        const QString path = dir.filePath(name);
        EXPECT_TRUE(writeReport(*report, path.toStdString()).ok());
        ReportTab* tab = window.openReport(path);
        EXPECT_TRUE(
            QTest::qWaitFor([&] { return tab->state() != ReportTab::State::Loading; }, 20000));
        EXPECT_EQ(tab->state(), ReportTab::State::Ready) << tab->errorMessage().toStdString();
        EXPECT_TRUE(QTest::qWaitFor([&] { return tab->timeline()->frameCount() > 0; }, 10000));
        return tab;
    }
    QString selectionLine() const { return window.selectionLabel()->toolTip(); }
};

void render(TimelineWidget* t) {
    QSignalSpy frame(t, &TimelineWidget::frameRendered);
    t->update();
    frame.wait(2000);
}

EventPlace placeOf(TimelineWidget* t, EventRef e) {
    return placeEvent(*t->scene(), t->view().range(), e);
}

// Scrolls the rows back to the top and zooms before the kernel: it is off screen both ways.
void lookAway(TimelineWidget* t, EventRef kernel) {
    t->view().setRange(0, 50, false);
    t->scene()->setScroll(0);
    t->refreshFrame();
    render(t);
    ASSERT_EQ(placeOf(t, kernel).side, EventPlace::Side::Right);
}

// A real double-click (press, release, press within the interval) through the window system.
void doubleClick(QWidget* w, QPoint pos) {
    QWidget* top = w->window();
    QTest::mouseDClick(top->windowHandle(), Qt::LeftButton, {}, w->mapTo(top, pos));
}

// The tooltip's "Field: value" lines (its first line is the name; "  frame" lines continue a
// call stack).
std::vector<EventField> tooltipFields(const QString& tooltip) {
    const QStringList lines = tooltip.split('\n');
    std::vector<EventField> out{{"Name", lines.value(0).toStdString()}};
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines[i].indexOf(": ");
        if (lines[i].startsWith("  ") || colon < 0) continue;
        out.push_back({lines[i].left(colon).toStdString(), lines[i].mid(colon + 2).toStdString()});
    }
    return out;
}

TEST(SelectionPath, ClickEventsViewDoubleClickAndFindShowTheSameDetailsAndBringTheRowIntoView) {
    Window w;
    ReportTab* tab = w.open("path.rep");
    TimelineWidget* t = tab->timeline();
    AnalysisDocks* docks = tab->analysis()->docks();
    SelectionModel* selection = tab->selection();
    ASSERT_EQ(selection, docks->selection());
    const EventRef kernel = first(*tab->report(), EventKind::Kernel, "kernel");
    ASSERT_TRUE(kernel.valid());

    // 1. A click on the kernel (the pointer hovers it first: its tooltip shows).
    t->view().setRange(0, 1000, false);
    t->refreshFrame();
    render(t);
    if (placeOf(t, kernel).side != EventPlace::Side::OnScreen) {
        t->scene()->setScroll(t->scene()->scroll() + placeOf(t, kernel).y0 - t->height() / 2.0f);
        t->refreshFrame();
        render(t);
    }
    const EventPlace k = placeOf(t, kernel);
    ASSERT_EQ(k.side, EventPlace::Side::OnScreen);
    const QPoint at(static_cast<int>((k.x0 + k.x1) / 2), static_cast<int>((k.y0 + k.y1) / 2));
    QString tooltip;
    QObject::connect(t, &TimelineWidget::hovered, [&tooltip](const QString& s) { tooltip = s; });
    // The pointer's move as the widget gets it (QTest::mouseMove may be merged away by the
    // window system when the pointer is already there).
    QMouseEvent move(QEvent::MouseMove, QPointF(at), t->mapToGlobal(QPointF(at)), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(t, &move);
    QTest::mouseClick(t, Qt::LeftButton, {}, at);
    ASSERT_EQ(selection->selectedEvent(), kernel);
    const std::vector<EventField> clicked = docks->details()->fields();
    EXPECT_EQ(analysis::detailValue(clicked, "Name"), "kernel");
    EXPECT_EQ(analysis::detailValue(clicked, "Grid"), "4 x 2 x 1");
    EXPECT_EQ(analysis::detailValue(clicked, "Launched by").rfind("cudaLaunchKernel on ", 0), 0u);
    EXPECT_EQ(w.selectionLine(), "kernel (CUDA kernels, 100 ns)");
    // The tooltip shows the panel's values, field by field (a subset of them).
    ASSERT_TRUE(tooltip.startsWith("kernel\n")) << tooltip.toStdString();
    const auto shown = tooltipFields(tooltip);
    EXPECT_GE(shown.size(), 6u) << tooltip.toStdString();
    for (const EventField& f : shown)
        EXPECT_EQ(analysis::detailValue(clicked, f.field), f.value) << f.field;
    // A click on empty space clears the selection: the panel and the status bar are empty.
    QTest::mouseClick(t, Qt::LeftButton, {}, QPoint(t->width() - 5, t->height() - 5));
    EXPECT_FALSE(selection->selectedEvent().valid());
    EXPECT_TRUE(docks->details()->fields().empty());
    EXPECT_TRUE(w.selectionLine().isEmpty());

    // 2. A double-click on its row in the events view, the kernel off screen both ways.
    ASSERT_NO_FATAL_FAILURE(lookAway(t, kernel));
    EventsView* ev = docks->events();
    ev->showKind(EventKind::Kernel);
    ASSERT_EQ(ev->model()->eventAt(0), kernel);
    const QRect cell = ev->table()->visualRect(ev->model()->index(0, 3));
    doubleClick(ev->table()->viewport(), cell.center());
    ASSERT_EQ(selection->selectedEvent(), kernel);
    EXPECT_EQ(docks->details()->fields(), clicked);
    EXPECT_EQ(w.selectionLine(), "kernel (CUDA kernels, 100 ns)");
    render(t);
    EXPECT_EQ(placeOf(t, kernel).side, EventPlace::Side::OnScreen);

    // 3. A find hit.
    selection->clearSelectedEvent();
    ASSERT_NO_FATAL_FAILURE(lookAway(t, kernel));
    FindBar* find = docks->findBar();
    find->regexBox()->setChecked(true);  // not cudaLaunchKernel, which comes first in time
    find->edit()->setText("^kernel$");
    find->findNext();
    ASSERT_EQ(selection->selectedEvent(), kernel) << find->statusLabel()->text().toStdString();
    EXPECT_EQ(docks->details()->fields(), clicked);
    render(t);
    EXPECT_EQ(placeOf(t, kernel).side, EventPlace::Side::OnScreen);
    // The side panel with the Details starts hidden; the status bar's line is a link to it.
    EXPECT_FALSE(docks->detailsDock()->isVisible());
    emit w.window.selectionLabel()->linkActivated("details");
    EXPECT_TRUE(docks->detailsDock()->isVisible());
}

TEST(SelectionPath, TheStatusBarFollowsTheCurrentTabAndClearsOnSwitchAndClose) {
    Window w;
    ReportTab* a = w.open("a.rep");
    ReportTab* b = w.open("b.rep");
    ASSERT_EQ(w.window.currentTab(), b);
    const EventRef kernel = first(*a->report(), EventKind::Kernel, "kernel");
    const EventRef call = first(*b->report(), EventKind::CudaApi, "cudaLaunchKernel");
    w.window.tabs()->setCurrentWidget(a);
    a->selection()->selectEvent(kernel.track, kernel.index);
    EXPECT_EQ(w.selectionLine(), "kernel (CUDA kernels, 100 ns)");
    EXPECT_FALSE(a->analysis()->docks()->details()->fields().empty());
    // To B, which has nothing selected: the line clears, B's panel is empty.
    w.window.tabs()->setCurrentWidget(b);
    EXPECT_TRUE(w.selectionLine().isEmpty()) << w.selectionLine().toStdString();
    EXPECT_TRUE(b->analysis()->docks()->details()->fields().empty());
    b->selection()->selectEvent(call.track, call.index);
    EXPECT_EQ(w.selectionLine(), "cudaLaunchKernel (CUDA API calls, 20 ns)");
    // A's selection was kept in A: back there, its line shows again; B's change does not reach it.
    w.window.tabs()->setCurrentWidget(a);
    EXPECT_EQ(w.selectionLine(), "kernel (CUDA kernels, 100 ns)");
    b->selection()->clearSelectedEvent();
    EXPECT_EQ(w.selectionLine(), "kernel (CUDA kernels, 100 ns)");
    // A closes: B is current, with nothing selected.
    emit w.window.tabs()->tabCloseRequested(w.window.tabs()->indexOf(a));
    ASSERT_EQ(w.window.currentTab(), b);
    EXPECT_TRUE(w.selectionLine().isEmpty()) << w.selectionLine().toStdString();
    b->selection()->selectEvent(call.track, call.index);
    EXPECT_FALSE(w.selectionLine().isEmpty());
    emit w.window.tabs()->tabCloseRequested(0);
    EXPECT_EQ(w.window.tabs()->count(), 0);
    EXPECT_TRUE(w.selectionLine().isEmpty());
    EXPECT_TRUE(w.window.selectionLabel()->text().isEmpty());
}

}  // namespace
}  // namespace sl::viewer
