// GUI tests of the timeline and the main window, under Xvfb (Mesa llvmpipe gives GL 4.5).
// Without a display the binary re-runs itself under xvfb-run.
#include <gtest/gtest.h>

#include <unistd.h>
#include <QApplication>
#include <QAction>
#include <QClipboard>
#include <QHeaderView>
#include <QHelpEvent>
#include <QTableWidget>
#include <QToolTip>
#include <QTemporaryDir>
#include <QScreen>
#include <QSettings>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTest>
#include <QTimer>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/viewer/WaitUntil.h"
#include "ViewerFixture.h"
#include "model/gen/SyntheticGenerator.h"
#include "model/rep/RepWriter.h"
#include "viewer/timeline/Palette.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/timeline/TrackRow.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"
#include "viewer/window/Screenshot.h"
#include "viewer/analysis/SelectionStatsDock.h"

using namespace sl;
using namespace sl::viewer;
using sl::test::kMs;
using sl::test::kOrigin;

namespace {

// Relative ranges make the expectations readable: {1 ms, 9 ms} after the origin.
void expectRange(TimelineWidget& w, double startMs, double endMs) {
    const TimeRange r = w.view().range();
    EXPECT_NEAR(static_cast<double>(r.start - kOrigin) / kMs, startMs, 1e-5);
    EXPECT_NEAR(static_cast<double>(r.end - kOrigin) / kMs, endMs, 1e-5);
}

void wheel(QWidget& w, QPoint pos, QPoint angle, Qt::KeyboardModifiers mods) {
    QWheelEvent e(pos, w.mapToGlobal(pos), QPoint(), angle, Qt::NoButton, mods, Qt::NoScrollPhase,
                  false);
    QApplication::sendEvent(&w, &e);
}

using sl::test::waitUntil;

// A plain mouse move (no button), delivered directly: QTest::mouseMove without a pressed
// button does not reach a widget the pointer has not entered under Xvfb.
void hover(QWidget& w, QPoint pos) {
    QMouseEvent e(QEvent::MouseMove, QPointF(pos), w.mapToGlobal(QPointF(pos)), Qt::NoButton,
                  Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &e);
}

void waitForFrame(TimelineWidget& w) {
    const uint64_t before = w.frameCount();
    w.update();
    ASSERT_TRUE(waitUntil([&] { return w.frameCount() > before; }, 10000));
}

class TimelineGui : public ::testing::Test {
protected:
    void SetUp() override {
        m_report = sl::test::makeViewerReport();
        m_widget = std::make_unique<TimelineWidget>();
        m_widget->setScene(std::make_unique<TimelineScene>(m_report, buildRowTree(*m_report)));
        m_widget->resize(1600, 900);
        m_widget->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(m_widget.get()));
        ASSERT_TRUE(waitUntil([&] { return m_widget->frameCount() > 0; }, 10000));
        ASSERT_TRUE(m_widget->glError().isEmpty()) << m_widget->glError().toStdString();
        ASSERT_EQ(m_widget->width(), 1600);
    }
    const LayoutRow& rowLayout(const std::string& path) {
        Row* row = m_widget->scene()->root().find(path);
        EXPECT_NE(row, nullptr) << path;
        for (const LayoutRow& lr : m_widget->scene()->layout())
            if (lr.row == row) return lr;
        ADD_FAILURE() << "not laid out: " << path;
        static LayoutRow none;
        return none;
    }

    std::shared_ptr<Report> m_report;
    std::unique_ptr<TimelineWidget> m_widget;
};

constexpr int kX0 = 280;          // TimelineScene::kHeaderWidth
constexpr double kPxPerMs = 132;  // 1320 px for the fixture's 10 ms

}  // namespace

TEST_F(TimelineGui, ZoomPanSelectZoomToSelectionAndBack) {
    TimelineWidget& w = *m_widget;
    expectRange(w, 0, 10);
    const int y = 500;
    // Ctrl+wheel zooms around the mouse (5 ms): 0.8 per notch.
    wheel(w, {kX0 + 660, y}, {0, 120}, Qt::ControlModifier);
    expectRange(w, 1, 9);
    // Shift+wheel and Alt+wheel pan by 10% of the span (Alt turns the delta horizontal).
    wheel(w, {kX0 + 660, y}, {0, 120}, Qt::ShiftModifier);
    expectRange(w, 0.2, 8.2);
    wheel(w, {kX0 + 660, y}, {-120, 0}, Qt::AltModifier);
    expectRange(w, 1, 9);
    // The plain wheel scrolls rows, never the range.
    wheel(w, {kX0 + 660, y}, {0, -120}, Qt::NoModifier);
    expectRange(w, 1, 9);
    // Middle drag right by 132 px = 0.8 ms at this zoom moves the view earlier.
    QTest::mousePress(&w, Qt::MiddleButton, {}, {kX0 + 660, y});
    QTest::mouseMove(&w, {kX0 + 792, y});
    QTest::mouseRelease(&w, Qt::MiddleButton, {}, {kX0 + 792, y});
    expectRange(w, 0.2, 8.2);
    // Shift+left drag pans too: back by 0.8 ms.
    QTest::mousePress(&w, Qt::LeftButton, Qt::ShiftModifier, {kX0 + 792, y});
    QTest::mouseMove(&w, {kX0 + 660, y});
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::ShiftModifier, {kX0 + 660, y});
    expectRange(w, 1, 9);
    EXPECT_EQ(w.view().historySize(), 0u);
    // Left drag selects [2 ms, 4 ms] (at 8 ms / 1320 px, 1 ms = 165 px).
    QTest::mousePress(&w, Qt::LeftButton, {}, {kX0 + 165, y});
    QTest::mouseMove(&w, {kX0 + 300, y});
    QTest::mouseMove(&w, {kX0 + 495, y});
    QTest::mouseRelease(&w, Qt::LeftButton, {}, {kX0 + 495, y});
    ASSERT_TRUE(w.view().hasSelection());
    EXPECT_NEAR(static_cast<double>(w.view().selection().start - kOrigin) / kMs, 2, 1e-5);
    EXPECT_NEAR(static_cast<double>(w.view().selection().end - kOrigin) / kMs, 4, 1e-5);
    expectRange(w, 1, 9);
    // Shift+Z zooms to it; Backspace comes back.
    QTest::keyClick(&w, Qt::Key_Z, Qt::ShiftModifier);
    expectRange(w, 2, 4);
    EXPECT_FALSE(w.view().hasSelection());
    QTest::keyClick(&w, Qt::Key_Backspace);
    expectRange(w, 1, 9);
    // Home and F show everything; Backspace undoes that too.
    QTest::keyClick(&w, Qt::Key_Home);
    expectRange(w, 0, 10);
    QTest::keyClick(&w, Qt::Key_Backspace);
    expectRange(w, 1, 9);
    QTest::keyClick(&w, Qt::Key_F);
    expectRange(w, 0, 10);
    QTest::keyClick(&w, Qt::Key_Backspace);
    expectRange(w, 1, 9);
}

TEST_F(TimelineGui, KeyboardZoomPanAndMarkers) {
    TimelineWidget& w = *m_widget;
    hover(w, {kX0 + 165, 500});  // 1.25 ms: W zooms around the mouse
    QTest::keyClick(&w, Qt::Key_W);
    expectRange(w, 0.25, 8.25);
    QTest::keyClick(&w, Qt::Key_S);
    expectRange(w, 0, 10);
    hover(w, {kX0 + 660, 500});  // 5 ms
    QTest::keyClick(&w, Qt::Key_W);
    expectRange(w, 1, 9);
    QTest::keyClick(&w, Qt::Key_D);
    expectRange(w, 1.8, 9.8);
    QTest::keyClick(&w, Qt::Key_A);
    expectRange(w, 1, 9);
    QTest::keyClick(&w, Qt::Key_S);
    expectRange(w, 0, 10);
    QTest::keyClick(&w, Qt::Key_M, Qt::ControlModifier);
    ASSERT_EQ(w.view().markers().size(), 1u);
    EXPECT_EQ(w.view().markers()[0], kOrigin + 5 * kMs);
    // Markers and selection are redraws, not rebuilds.
    waitForFrame(w);
    const uint64_t rebuilds = w.rebuildCount();
    w.view().setSelection(kOrigin + kMs, kOrigin + 2 * kMs);
    waitForFrame(w);
    hover(w, {kX0 + 200, 300});
    waitForFrame(w);
    EXPECT_EQ(w.rebuildCount(), rebuilds);
    w.view().pan(kMs);
    waitForFrame(w);
    EXPECT_EQ(w.rebuildCount(), rebuilds + 1);
}

TEST_F(TimelineGui, HeaderClickCollapsesAndExpandsAGroup) {
    TimelineWidget& w = *m_widget;
    const size_t all = w.scene()->layout().size();
    const LayoutRow& thread = rowLayout("Process 100 (app)/Thread 101 (main)");
    const QPoint header(40, static_cast<int>(thread.y) + 5);
    const uint64_t rebuilds = w.rebuildCount();
    QTest::mouseClick(&w, Qt::LeftButton, {}, header);
    EXPECT_EQ(w.scene()->layout().size(), all - 3);  // NVTX, CUDA API, OS runtime hidden
    waitForFrame(w);
    EXPECT_GT(w.rebuildCount(), rebuilds);
    QTest::mouseClick(&w, Qt::LeftButton, {}, header);
    EXPECT_EQ(w.scene()->layout().size(), all);
    expectRange(w, 0, 10);  // clicks on headers never change the range or select
    EXPECT_FALSE(w.view().hasSelection());
}

TEST_F(TimelineGui, HoverTooltipNamesTheEvent) {
    TimelineWidget& w = *m_widget;
    const LayoutRow& k = rowLayout("GPU 0 (Test GPU)/Context 1/Stream 7 (compute)/Kernels");
    QString text;
    QObject::connect(&w, &TimelineWidget::hovered, [&text](const QString& t) { text = t; });
    hover(w, {kX0 + static_cast<int>(3.5 * kPxPerMs), static_cast<int>(k.y) + 6});
    // The tooltip form of the details formatter: the panel's values for the same fields.
    EXPECT_TRUE(text.startsWith("kernel_b\nKind: CUDA kernels\nStart: 3.000 ms (1003000000 ns)\n"
                                "Duration: 1.000 ms (1000000 ns)"))
        << "[" << text.toStdString() << "]";
    EXPECT_TRUE(text.contains("\nGrid: 4 x 1 x 1\n")) << text.toStdString();
}

TEST_F(TimelineGui, PixelsShowKernelsAndNvtxInTheirColors) {
    TimelineWidget& w = *m_widget;
    const QImage img = w.renderImage();
    ASSERT_EQ(img.width(), 1600);
    ASSERT_EQ(img.height(), 900);
    auto rgb = [&img](int x, int y) { return img.pixel(x, y) & 0xFFFFFFu; };
    const LayoutRow& k = rowLayout("GPU 0 (Test GPU)/Context 1/Stream 7 (compute)/Kernels");
    const int ky = static_cast<int>(k.y + TrackRow::kPad + 1);
    // kernel_a spans [1 ms, 2 ms] = x [412, 544): its stable name color, edge to edge.
    const uint32_t a = Palette::hashColor("kernel_a") & 0xFFFFFFu;
    EXPECT_EQ(rgb(kX0 + 132 + 100, ky), a);
    EXPECT_EQ(rgb(kX0 + 132 + 1, ky), a);
    EXPECT_EQ(rgb(kX0 + 263, ky), a);
    EXPECT_NE(rgb(kX0 + 131, ky), a);
    EXPECT_NE(rgb(kX0 + 265, ky), a);
    EXPECT_EQ(rgb(kX0 + 396 + 100, ky), Palette::hashColor("kernel_b") & 0xFFFFFFu);
    // Between the kernels: the light row background.
    const QColor gap = QColor::fromRgb(img.pixel(kX0 + 330, ky));
    EXPECT_GT(gap.red(), 230);
    EXPECT_GT(gap.green(), 230);
    // The summary row shows the same kernel.
    const LayoutRow& all = rowLayout("GPU 0 (Test GPU)/All kernels");
    EXPECT_EQ(rgb(kX0 + 232, static_cast<int>(all.y + TrackRow::kPad + 1)), a);
    // NVTX "outer" in its own red, "inner" (no color given) by its name below it.
    const LayoutRow& n = rowLayout("Process 100 (app)/Thread 101 (main)/NVTX");
    EXPECT_EQ(rgb(kX0 + 1000, static_cast<int>(n.y + TrackRow::kPad + 1)), 0xFF0000u);
    EXPECT_EQ(rgb(kX0 + 190, static_cast<int>(n.y + TrackRow::kPad + TrackRow::kLaneHeight + 1)),
              Palette::hashColor("inner") & 0xFFFFFFu);
    // The memcpy is HtoD green.
    const LayoutRow& m = rowLayout("GPU 0 (Test GPU)/Context 1/Stream 7 (compute)/Memcpy");
    EXPECT_EQ(rgb(kX0 + 900, static_cast<int>(m.y + TrackRow::kPad + 1)),
              Palette::copyKindColor(CopyKind::HtoD) & 0xFFFFFFu);
}

// Folds are drawn per pixel column (strips read from a texture, boxes for runs of one color):
// what reaches the screen must be each column's color from the draw list, opaque in a row of
// its own and blended over the background in a summary row.
TEST_F(TimelineGui, FoldPixelsComeFromTheirStripColumns) {
    TimelineWidget& w = *m_widget;
    const QImage img = w.renderImage();
    const DrawList& frame = w.frame();
    auto rgb = [&img](int x, int y) { return img.pixel(x, y) & 0xFFFFFFu; };
    // The 1,000 tiny kernels of [5 ms, 6 ms) fold into x [kX0 + 660, kX0 + 792).
    const LayoutRow& k = rowLayout("GPU 0 (Test GPU)/Context 1/Stream 7 (compute)/Kernels");
    const float ky = k.y + TrackRow::kPad;
    // A lane's columns are strips, or boxes where a run of columns shares one color (as
    // here: every column is 10% busy).
    auto columnColor = [&frame](int x, float y) {
        const float cx = static_cast<float>(x) + 0.5f;
        if (const uint32_t c = frame.stripColorAt(cx, y)) return c;
        uint32_t c = 0;
        for (const DrawBox& b : frame.boxes)
            if (b.x <= cx && cx < b.x + b.w && b.y <= y && y < b.y + b.h) c = b.argb;
        return c;
    };
    int columns = 0;
    for (int x = kX0 + 660; x < kX0 + 792; ++x) {
        const uint32_t c = columnColor(x, ky);
        if (c == 0) continue;
        ++columns;
        ASSERT_EQ(c >> 24, 0xFFu);
        // Above and below the "1,000 events" label painted over the fold.
        for (int dy : {1, 16}) EXPECT_EQ(rgb(x, static_cast<int>(ky) + dy), c & 0xFFFFFFu) << x;
    }
    EXPECT_GE(columns, 120);
    // Outside the fold, and below the lane, no strip color.
    EXPECT_EQ(rgb(kX0 + 640, static_cast<int>(ky) + 8), 0xFFFFFFu);
    // The summary row's fold is translucent: the column color at its alpha over white (and
    // the framebuffer's alpha stays opaque, or the image read back would be too light).
    const LayoutRow& all = rowLayout("GPU 0 (Test GPU)/All kernels");
    const float ay = all.y + TrackRow::kPad;
    const uint32_t c = frame.stripColorAt(static_cast<float>(kX0 + 700) + 0.5f, ay);
    ASSERT_NE(c, 0u);
    ASSERT_LT(c >> 24, 0xFFu);
    const QColor want = QColor::fromRgb(blendOver(c, (c >> 24) / 255.0, 0xFFFFFFFFu));
    const QColor got = QColor::fromRgb(img.pixel(kX0 + 700, static_cast<int>(ay) + 1));
    EXPECT_NEAR(got.red(), want.red(), 2);
    EXPECT_NEAR(got.green(), want.green(), 2);
    EXPECT_NEAR(got.blue(), want.blue(), 2);
}

// The renderer packs every strip's columns into texture rows 4096 texels wide, splitting a strip
// at the end of a row: each column must still come out in its own color. Strips added through
// the frame hook, every column a different color, enough of them to fill more than one texture
// row, and one longer than a row that starts left of the window, so its visible part is its
// second piece.
TEST_F(TimelineGui, EveryStripColumnGetsItsOwnColorAcrossTextureRows) {
    TimelineWidget& w = *m_widget;
    float contentBottom = 0;
    for (const LayoutRow& lr : w.scene()->layout()) contentBottom = std::max(contentBottom, lr.y + lr.h);
    ASSERT_LT(contentBottom, 780);  // the strips below go where no row draws
    auto color = [](uint32_t strip, uint32_t i) {
        return 0xFF000000u | ((i * 37u) & 0xFFu) << 16 | ((i / 5u) & 0xFFu) << 8 | (strip * 40u);
    };
    struct Spec {
        float x, y;
        uint32_t count;
    };
    const std::vector<Spec> specs = {{280, 790, 1300}, {300, 796, 1300}, {320, 802, 1300},
                                     {340, 808, 1300}, {280.0f - 4000, 814, 5320}};
    w.setFrameHook([&](const TimeRange&, DrawList& out) {
        for (uint32_t k = 0; k < specs.size(); ++k) {
            out.beginStrip(specs[k].x, specs[k].y, 4);
            for (uint32_t i = 0; i < specs[k].count; ++i) out.addColumn(color(k, i));
            out.endStrip();
        }
    });
    const QImage img = w.renderImage();
    int checked = 0;
    for (uint32_t k = 0; k < specs.size(); ++k) {
        const Spec& sp = specs[k];
        for (int x = std::max(280, static_cast<int>(sp.x)); x < std::min(1600, static_cast<int>(sp.x) + static_cast<int>(sp.count)); ++x) {
            const uint32_t want = color(k, static_cast<uint32_t>(x - static_cast<int>(sp.x))) & 0xFFFFFFu;
            for (int dy : {0, 3}) {
                const uint32_t got = img.pixel(x, static_cast<int>(sp.y) + dy) & 0xFFFFFFu;
                if (got != want) {
                    ADD_FAILURE() << "strip " << k << " x " << x << " dy " << dy << ": " << std::hex
                                  << got << " != " << want;
                    return;
                }
                ++checked;
            }
        }
        // Nothing just below the strip.
        EXPECT_EQ(img.pixel(static_cast<int>(std::max(sp.x, 280.0f)) + 5, static_cast<int>(sp.y) + 4) & 0xFFFFFFu,
                  0xFFFFFFu);
    }
    EXPECT_GT(checked, 2 * 4 * 1200);
    w.setFrameHook({});
}

// The timeline draws through a native GL window (TimelineSurface) that covers the widget: the
// real input lands on that window. QTest on a QWindow goes through Qt's window-system input
// path, as X events do; everything must reach the widget's handlers and its event filters.
TEST_F(TimelineGui, InputOnTheGlWindowReachesTheWidget) {
    TimelineWidget& w = *m_widget;
    QWindow* s = w.surface();
    ASSERT_NE(s, nullptr);
    ASSERT_TRUE(QTest::qWaitForWindowExposed(s));
    EXPECT_EQ(s->size(), QSize(1600, 900));
    struct PressCounter : QObject {
        int presses = 0;
        bool eventFilter(QObject*, QEvent* e) override {
            presses += e->type() == QEvent::MouseButtonPress;
            return false;
        }
    } filter;
    w.installEventFilter(&filter);
    const int y = 500;
    QWheelEvent zoom(QPointF(kX0 + 660, y), s->mapToGlobal(QPointF(kX0 + 660, y)), QPoint(),
                     QPoint(0, 120), Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(s, &zoom);
    expectRange(w, 1, 9);
    // Middle drag: the closed-hand cursor shows on the window while panning.
    QTest::mousePress(s, Qt::MiddleButton, {}, {kX0 + 660, y});
    EXPECT_EQ(s->cursor().shape(), Qt::ClosedHandCursor);
    QTest::mouseMove(s, {kX0 + 792, y});
    QTest::mouseRelease(s, Qt::MiddleButton, {}, {kX0 + 792, y});
    expectRange(w, 0.2, 8.2);
    EXPECT_EQ(s->cursor().shape(), Qt::ArrowCursor);
    QTest::keyClick(s, Qt::Key_Home);
    expectRange(w, 0, 10);
    // Hover through the window names the kernel under the mouse.
    const LayoutRow& k = rowLayout("GPU 0 (Test GPU)/Context 1/Stream 7 (compute)/Kernels");
    QString text;
    QObject::connect(&w, &TimelineWidget::hovered, [&text](const QString& t) { text = t; });
    QTest::mouseMove(s, {kX0 + static_cast<int>(3.5 * kPxPerMs), static_cast<int>(k.y) + 6});
    EXPECT_TRUE(text.startsWith("kernel_b\n")) << text.toStdString();
    // A header click collapses the thread group.
    const size_t all = w.scene()->layout().size();
    const QPoint header(40, static_cast<int>(rowLayout("Process 100 (app)/Thread 101 (main)").y) + 5);
    QTest::mouseClick(s, Qt::LeftButton, {}, header);
    EXPECT_EQ(w.scene()->layout().size(), all - 3);
    EXPECT_EQ(filter.presses, 2);
    // A right press opens the row's context menu (the widget's handler).
    QStringList items;
    QTimer closer;
    QObject::connect(&closer, &QTimer::timeout, [&items] {
        if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())) {
            for (QAction* a : menu->actions()) items << a->text();
            menu->close();
        }
    });
    closer.start(20);
    QTest::mousePress(s, Qt::RightButton, {}, header);
    QTest::mouseRelease(s, Qt::RightButton, {}, header);
    closer.stop();
    EXPECT_EQ(items.join('|').toStdString(),
              "Pin row to top|Expand|Collapse all at this level|Expand all at this level|"
              "Show everything\tHome|Clear markers");
    // Frames keep reaching the window after all this.
    waitForFrame(w);
}

// Clicking the GL window focuses the timeline (its keys go to the widget), and a widget
// update() from outside (analysis panels) is a GL frame.
TEST(TimelineSurface, ClickFocusesTheTimelineAndUpdateDraws) {
    QWidget top;
    auto* layout = new QVBoxLayout(&top);
    auto* edit = new QLineEdit;
    auto* w = new TimelineWidget;
    layout->addWidget(edit);
    layout->addWidget(w, 1);
    auto report = sl::test::makeViewerReport();
    w->setScene(std::make_unique<TimelineScene>(report, buildRowTree(*report)));
    top.resize(1000, 600);
    top.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&top));
    ASSERT_TRUE(waitUntil([&] { return w->frameCount() > 0; }));
    edit->setFocus();
    EXPECT_EQ(top.focusWidget(), edit);
    ASSERT_TRUE(QTest::qWaitForWindowExposed(w->surface()));
    QTest::mouseClick(w->surface(), Qt::LeftButton, {}, QPoint(600, 300));
    EXPECT_EQ(top.focusWidget(), w);
    const uint64_t frames = w->frameCount();
    w->update();
    EXPECT_TRUE(waitUntil([&] { return w->frameCount() > frames; }));
}

// A context below GL 3.3 (here OpenGL ES 2, which Mesa offers through GLX) must leave a
// timeline that says why, never a crash or a silently empty window.
TEST(TimelineSurface, OldGlShowsTheReason) {
    auto report = sl::test::makeViewerReport();
    TimelineWidget w;
    QSurfaceFormat es = w.surface()->requestedFormat();
    es.setRenderableType(QSurfaceFormat::OpenGLES);
    es.setProfile(QSurfaceFormat::NoProfile);
    es.setVersion(2, 0);
    w.surface()->setFormat(es);
    w.setScene(std::make_unique<TimelineScene>(report, buildRowTree(*report)));
    w.resize(800, 400);
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    ASSERT_TRUE(waitUntil([&] { return !w.glError().isEmpty(); }, 5000));
    EXPECT_TRUE(w.glError().startsWith("OpenGL 3.3 is needed, this display offers "))
        << w.glError().toStdString();
    EXPECT_EQ(w.frameCount(), 0u);
    EXPECT_TRUE(w.renderImage().isNull());
}

// renderImage() draws into its own framebuffer: a timeline that was never shown renders too.
TEST(TimelineSurface, RendersAnImageWithoutBeingShown) {
    auto report = sl::test::makeViewerReport();
    TimelineWidget w;
    w.setScene(std::make_unique<TimelineScene>(report, buildRowTree(*report)));
    w.resize(800, 400);
    const QImage img = w.renderImage();
    ASSERT_EQ(img.size(), QSize(800, 400));
    ASSERT_TRUE(w.glError().isEmpty()) << w.glError().toStdString();
    const uint32_t a = Palette::hashColor("kernel_a") & 0xFFFFFFu;
    int kernelPixels = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) kernelPixels += (img.pixel(x, y) & 0xFFFFFFu) == a;
    // kernel_a is 1 ms of 10 ms across 520 event pixels: 52 columns times its box height.
    EXPECT_GT(kernelPixels, 52 * 8);
}

TEST(Screenshot, WritesPngOfTheRequestedRange) {
    sl::test::ViewerTempDir dir;
    auto r = sl::test::makeViewerReport();
    ASSERT_TRUE(writeReport(*r, dir.file("fixture.rep")).ok());
    ScreenshotOptions o;
    o.report = QString::fromStdString(dir.file("fixture.rep"));
    o.output = QString::fromStdString(dir.file("out.png"));
    o.size = QSize(1000, 500);
    o.range = std::make_pair(int64_t{0}, 4 * kMs);  // kernel_a at x 280 + [180, 360)
    ASSERT_EQ(writeScreenshot(o), QString());
    QImage img(o.output);
    ASSERT_FALSE(img.isNull());
    EXPECT_EQ(img.size(), QSize(1000, 500));
    // Find the kernel_a color in column 280 + 270 somewhere down the image.
    const uint32_t a = Palette::hashColor("kernel_a") & 0xFFFFFFu;
    int found = 0;
    for (int y = 0; y < img.height(); ++y) found += (img.pixel(280 + 270, y) & 0xFFFFFFu) == a;
    EXPECT_GE(found, 2 * 15);  // the stream row and the summary row
    found = 0;
    for (int y = 0; y < img.height(); ++y) found += (img.pixel(280 + 170, y) & 0xFFFFFFu) == a;
    EXPECT_EQ(found, 0);
    // A missing report is a clear error.
    o.report = "/nonexistent/x.rep";
    EXPECT_TRUE(writeScreenshot(o).contains("no such file"));
}

class MainWindowGui : public ::testing::Test {
protected:
    ReportTab* openAndWait(MainWindow& w, const std::string& path, ReportTab::State want) {
        ReportTab* tab = w.openReport(QString::fromStdString(path));
        EXPECT_TRUE(waitUntil([&] { return tab->state() != ReportTab::State::Loading; }, 20000));
        EXPECT_EQ(tab->state(), want) << tab->errorMessage().toStdString();
        return tab;
    }
    sl::test::ViewerTempDir m_dir;
};

TEST_F(MainWindowGui, OpensAReportInATabAndRemembersIt) {
    auto r = sl::test::makeViewerReport();
    const std::string path = m_dir.file("fixture.rep");
    ASSERT_TRUE(writeReport(*r, path).ok());
    MainWindow w;
    w.show();
    ReportTab* tab = openAndWait(w, path, ReportTab::State::Ready);
    ASSERT_NE(tab->timeline(), nullptr);
    EXPECT_EQ(tab->report()->eventCount(), r->eventCount());
    EXPECT_EQ(w.tabs()->count(), 1);
    EXPECT_EQ(w.tabs()->tabText(0), "fixture.rep");
    EXPECT_EQ(tab->timeline()->view().range(), (TimeRange{kOrigin, kOrigin + 10 * kMs}));
    ASSERT_FALSE(w.recentFiles().isEmpty());
    EXPECT_EQ(w.recentFiles().front(), QFileInfo(QString::fromStdString(path)).absoluteFilePath());
}

// What X shows, not what the timeline rendered offscreen: the GL window inside the main
// window's tab must really be on screen, with the kernels in their colors.
TEST_F(MainWindowGui, TimelineFramesReachTheScreen) {
    auto r = sl::test::makeViewerReport();
    const std::string path = m_dir.file("onscreen.rep");
    ASSERT_TRUE(writeReport(*r, path).ok());
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    ReportTab* tab = openAndWait(w, path, ReportTab::State::Ready);
    TimelineWidget* t = tab->timeline();
    ASSERT_NE(t, nullptr);
    ASSERT_TRUE(waitUntil([&] { return t->frameCount() > 0; }));
    ASSERT_TRUE(QTest::qWaitForWindowExposed(t->surface()));
    waitForFrame(*t);
    const QPoint origin = t->mapTo(&w, QPoint(0, 0));
    const uint32_t a = Palette::hashColor("kernel_a") & 0xFFFFFFu;
    // The X server takes the swapped frame asynchronously (later on a loaded machine): look
    // again for up to 3 s before concluding it never arrived.
    int kernelPixels = 0;
    for (int attempt = 0; attempt < 60 && kernelPixels <= 50; ++attempt) {
        QTest::qWait(50);
        const QImage screen = w.screen()->grabWindow(w.winId()).toImage();
        ASSERT_FALSE(screen.isNull());
        kernelPixels = 0;
        for (int y = origin.y(); y < std::min(screen.height(), origin.y() + t->height()); ++y)
            for (int x = origin.x(); x < std::min(screen.width(), origin.x() + t->width()); ++x)
                kernelPixels += (screen.pixel(x, y) & 0xFFFFFFu) == a;
    }
    EXPECT_GT(kernelPixels, 50) << "the timeline's frame is not on screen";
}

TEST_F(MainWindowGui, CorruptMissingAndForeignFilesShowClearErrors) {
    auto r = sl::test::makeViewerReport();
    const std::string good = m_dir.file("good.rep");
    ASSERT_TRUE(writeReport(*r, good).ok());
    // Truncated to half: corrupt.
    const std::string corrupt = m_dir.file("corrupt.rep");
    std::filesystem::copy_file(good, corrupt);
    std::filesystem::resize_file(corrupt, std::filesystem::file_size(good) / 2);
    const std::string text = m_dir.file("notes.txt");
    std::ofstream(text) << "just some text, not a report\n";
    MainWindow w;
    w.show();
    ReportTab* c = openAndWait(w, corrupt, ReportTab::State::Failed);
    EXPECT_FALSE(c->errorMessage().isEmpty());
    EXPECT_EQ(c->timeline(), nullptr);
    auto* label = c->findChild<QLabel*>("errorLabel");
    ASSERT_NE(label, nullptr);
    EXPECT_TRUE(label->text().contains("Cannot open this report"));
    ReportTab* m = openAndWait(w, m_dir.file("missing.rep"), ReportTab::State::Failed);
    EXPECT_TRUE(m->errorMessage().contains("no such file")) << m->errorMessage().toStdString();
    ReportTab* t = openAndWait(w, text, ReportTab::State::Failed);
    // With the importer: "... is not a supported trace: expected ..."; without: "not a Sightline
    // report".
    EXPECT_TRUE(t->errorMessage().contains("notes.txt")) << t->errorMessage().toStdString();
    EXPECT_TRUE(t->errorMessage().contains("not a supported trace") ||
                t->errorMessage().contains("not a Sightline report"))
        << t->errorMessage().toStdString();
    EXPECT_EQ(w.tabs()->count(), 3);
}

TEST_F(MainWindowGui, ImportsNsysExportAndAddsProjectedNvtxLater) {
    MainWindow w;
    w.show();
    ReportTab* tab =
        openAndWait(w, std::string(SIGHTLINE_VIEWER_TEST_DATA) + "/extrap_concurrent_s1.sqlite",
                    ReportTab::State::Ready);
    ASSERT_NE(tab->timeline(), nullptr);
    Row& root = tab->timeline()->scene()->root();
    Row* gpu = nullptr;
    for (const auto& c : root.children())
        if (c->device() == 0) gpu = c.get();
    ASSERT_NE(gpu, nullptr);
    EXPECT_TRUE(waitUntil([&] { return gpu->find("NVTX (projected)") != nullptr; }, 20000));
    // The status bar said the projection was running and now says it is done.
    EXPECT_TRUE(waitUntil(
        [&] { return w.statusBar()->currentMessage().contains("NVTX ranges are projected"); }, 5000))
        << w.statusBar()->currentMessage().toStdString();
    Row* projected = gpu->find("NVTX (projected)");
    ASSERT_NE(projected, nullptr);
    EXPECT_EQ(projected->count(), 67u);
    // Placed right after the two summary rows, and laid out.
    ASSERT_GE(gpu->children().size(), 3u);
    EXPECT_EQ(gpu->children()[2]->title(), "NVTX (projected)");
    waitForFrame(*tab->timeline());
    bool laidOut = false;
    for (const LayoutRow& lr : tab->timeline()->scene()->layout()) laidOut |= lr.row == projected;
    EXPECT_TRUE(laidOut);
}

TEST_F(MainWindowGui, CancelStopsALoad) {
    GeneratorOptions o;
    o.events = 3'000'000;
    const std::string path = m_dir.file("big.rep");
    ASSERT_TRUE(generateReportFile(o, path).ok());
    MainWindow w;
    w.show();
    ReportTab* tab = w.openReport(QString::fromStdString(path));
    tab->cancel();
    EXPECT_TRUE(waitUntil([&] { return tab->state() != ReportTab::State::Loading; }, 30000));
    EXPECT_EQ(tab->state(), ReportTab::State::Failed);
    EXPECT_TRUE(tab->errorMessage().contains("cancel")) << tab->errorMessage().toStdString();
    EXPECT_EQ(tab->timeline(), nullptr);
}

TEST_F(MainWindowGui, ClosingATabWhileItProjectsDoesNotWait) {
    GeneratorOptions o;
    o.events = 1'000'000;
    const std::string path = m_dir.file("one.rep");
    ASSERT_TRUE(generateReportFile(o, path).ok());
    MainWindow w;
    w.show();
    ReportTab* tab = openAndWait(w, path, ReportTab::State::Ready);
    bool projected = false;
    QObject::connect(tab, &ReportTab::projectionAdded, [&projected] { projected = true; });
    // The NVTX projection of 1M events runs now on the loader's thread; close the tab.
    QElapsedTimer t;
    t.start();
    delete tab;
    EXPECT_LT(t.elapsed(), 250);
    EXPECT_EQ(w.tabs()->count(), 0);
    QTest::qWait(1500);  // the worker finishes and posts to a loader that is gone: ignored
    EXPECT_FALSE(projected);
}

TEST(App, HelpScreenshotAndNoGlExitCleanly) {
    const QString ui = SIGHTLINE_UI;
    QProcess help;
    help.start(ui, {"--help"});
    ASSERT_TRUE(help.waitForFinished(20000));
    EXPECT_EQ(help.exitCode(), 0);
    EXPECT_TRUE(help.readAllStandardOutput().contains("--screenshot"));

    sl::test::ViewerTempDir dir;
    auto r = sl::test::makeViewerReport();
    ASSERT_TRUE(writeReport(*r, dir.file("f.rep")).ok());
    QProcess shot;
    shot.start(ui, {"--screenshot", QString::fromStdString(dir.file("f.png")), "--size", "800x600",
                    QString::fromStdString(dir.file("f.rep"))});
    ASSERT_TRUE(shot.waitForFinished(60000));
    EXPECT_EQ(shot.exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(shot.exitCode(), 0) << shot.readAllStandardError().toStdString();
    EXPECT_EQ(QImage(QString::fromStdString(dir.file("f.png"))).size(), QSize(800, 600));

    // Without OpenGL (Qt's offscreen platform): a message and exit code 1, no crash.
    QProcess nogl;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    nogl.setProcessEnvironment(env);
    nogl.start(ui, {"--screenshot", QString::fromStdString(dir.file("g.png")),
                    QString::fromStdString(dir.file("f.rep"))});
    ASSERT_TRUE(nogl.waitForFinished(30000));
    EXPECT_EQ(nogl.exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(nogl.exitCode(), 1);
    EXPECT_TRUE(nogl.readAllStandardError().contains("OpenGL is not available"));
    QProcess noglGui;
    noglGui.setProcessEnvironment(env);
    noglGui.start(ui, {QString::fromStdString(dir.file("f.rep"))});
    ASSERT_TRUE(noglGui.waitForFinished(30000));
    EXPECT_EQ(noglGui.exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(noglGui.exitCode(), 1);
}


// Issue #21 item 3: a demangled C++ name of ~400 characters must not push Count, Total, Average,
// Min and Max off screen; the name is elided in the middle and shown whole in its tooltip.
TEST(SelectionStatsGui, NumericColumnsStayVisibleBesideALongName) {
    ReportBuilder b;
    b.report().session.source = "test";
    b.report().session.startMonotonicNs = kOrigin;
    b.report().processes.push_back({100, 1, "app", "./app", kOrigin, kOrigin + 10 * kMs, 0, 0});
    std::string longName = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_256x128_16x3_nn";
    while (longName.size() < 400) longName += "<cutlass::epilogue::thread::LinearCombination<float, 4>>";
    longName += "(Params)";
    const uint32_t names[] = {b.intern(longName.c_str()), b.intern("tiny")};
    for (int i = 0; i < 20; ++i) {
        KernelExec k;
        k.place = {100, 0, 1, 7};
        k.start = kOrigin + i * kMs / 4;
        k.end = k.start + (i % 2 ? 1'000 : 123'456'789);
        k.name = names[i % 2];
        k.correlation = static_cast<uint32_t>(i + 1);
        b.add(k);
    }
    std::shared_ptr<const Report> r = b.finish();
    SelectionStatsDock dock(r);
    dock.resize(1600, 400);
    dock.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&dock));
    bool ready = false;
    QObject::connect(&dock, &SelectionStatsDock::statsReady, [&] { ready = true; });
    dock.setSelection(r->tMin(), r->tMax() + 1);
    QElapsedTimer t;
    t.start();
    while (!ready && t.elapsed() < 10000) QTest::qWait(5);
    ASSERT_TRUE(ready);
    QTest::qWait(50);
    QTableWidget* table = dock.eventsTable();
    ASSERT_GE(table->rowCount(), 2);
    QHeaderView* header = table->horizontalHeader();
    const QRect viewport = table->viewport()->rect();
    for (int c = 2; c < table->columnCount(); ++c) {
        const int x = header->sectionViewportPosition(c);
        const QRect section(x, 0, header->sectionSize(c), 1);
        EXPECT_TRUE(viewport.left() <= section.left() && section.right() <= viewport.right())
            << table->horizontalHeaderItem(c)->text().toStdString() << " at " << x << "+"
            << section.width() << " outside " << viewport.width();
        // Wide enough for its widest cell.
        for (int row = 0; row < table->rowCount(); ++row)
            EXPECT_GE(section.width(),
                      table->fontMetrics().horizontalAdvance(table->item(row, c)->text()))
                << table->item(row, c)->text().toStdString();
    }
    // Each time column has one unit for all its rows.
    for (int c = 3; c <= 6; ++c)
        EXPECT_EQ(table->item(0, c)->text().section(' ', -1), table->item(1, c)->text().section(' ', -1))
            << table->horizontalHeaderItem(c)->text().toStdString();
    // The name column is narrower than the name: elided in the middle, whole in the tooltip.
    int longRow = -1;
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->item(row, 1)->text().size() > 100) longRow = row;
    ASSERT_GE(longRow, 0);
    EXPECT_LT(header->sectionSize(1), table->fontMetrics().horizontalAdvance(
                                          QString::fromStdString(longName)));
    EXPECT_EQ(table->textElideMode(), Qt::ElideMiddle);
    const QRect cellRect = table->visualRect(table->model()->index(longRow, 1));
    ASSERT_TRUE(viewport.contains(cellRect.center()));
    QHelpEvent help(QEvent::ToolTip, cellRect.center(), table->viewport()->mapToGlobal(cellRect.center()));
    QApplication::sendEvent(table->viewport(), &help);
    EXPECT_EQ(QToolTip::text().toStdString(), longName);
    // "Copy name" copies the whole name of the current row.
    table->setCurrentCell(longRow, 4);
    QAction* copy = table->findChild<QAction*>(QStringLiteral("copyName"));
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(table->contextMenuPolicy(), Qt::ActionsContextMenu);
    copy->trigger();
    EXPECT_EQ(QApplication::clipboard()->text().toStdString(), longName);
    // Counts and times sort largest first on the first click.
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                      QPoint(header->sectionViewportPosition(3) + 5, header->height() / 2));
    EXPECT_EQ(header->sortIndicatorSection(), 3);
    EXPECT_EQ(header->sortIndicatorOrder(), Qt::DescendingOrder);
    EXPECT_EQ(table->item(0, 1)->text().toStdString(), longName);  // 10 x 123 ms first
    if (const char* dir = std::getenv("SIGHTLINE_SHOT_DIR"))
        dock.grab().save(QString::fromUtf8(dir) + "/selection_stats.png");
}

int main(int argc, char** argv) {
    bool listing = false;
    for (int i = 1; i < argc; ++i)
        listing |= std::string(argv[i]).rfind("--gtest_list_tests", 0) == 0;
    // GL needs an X display; re-run under xvfb-run when there is none (test discovery needs none).
    if (!listing && !std::getenv("DISPLAY") && !std::getenv("SIGHTLINE_NO_XVFB_REEXEC")) {
        setenv("SIGHTLINE_NO_XVFB_REEXEC", "1", 1);
        std::vector<char*> args = {const_cast<char*>("xvfb-run"), const_cast<char*>("-a"),
                                   const_cast<char*>("-s"),
                                   const_cast<char*>("-screen 0 1920x1080x24 -noreset")};
        for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
        args.push_back(nullptr);
        execvp("xvfb-run", args.data());
        std::fprintf(stderr,
                     "no DISPLAY and cannot run xvfb-run: the GUI tests need an X server\n");
        return 1;
    }
    ::testing::InitGoogleTest(&argc, argv);
    if (listing) return RUN_ALL_TESTS();
    QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
    TimelineWidget::installSurfaceFormat();
    QApplication app(argc, argv);
    // Each test process gets its own settings: ctest runs GUI tests in parallel, and a shared
    // settings file (recent files, window state) would leak between them.
    QTemporaryDir settingsDir;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    QApplication::setOrganizationName("SightlineTest");
    QApplication::setApplicationName("viewer_gui_tests");
    return RUN_ALL_TESTS();
}
