#pragma once
// A window with a real timeline (TimelineWidget under Xvfb) of a report and the analysis docks
// around it, as a report tab has them: the GUI tests of the analysis panels drive it.
#include <QMainWindow>
#include <QSignalSpy>
#include <QTest>
#include <memory>
#include <string>

#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/TimelineAnalysis.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimelineWidget.h"

namespace sl::viewer {

struct TimelineHarness {
    explicit TimelineHarness(std::shared_ptr<const Report> r) : report(std::move(r)) {
        timeline = new TimelineWidget;
        timeline->setScene(std::make_unique<TimelineScene>(report, buildRowTree(*report)));
        window.setCentralWidget(timeline);
        analysis = new TimelineAnalysis(&window, timeline, report);
        window.resize(1400, 900);
        window.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&window));
        render();
    }
    // Draws a frame now and waits for it (up to 2 s).
    void render() {
        QSignalSpy frame(timeline, &TimelineWidget::frameRendered);
        timeline->update();
        frame.wait(2000);
    }
    AnalysisDocks* docks() const { return analysis->docks(); }
    // The layout entry of the row at `path` ("Process 1 (app)/Thread 10 (main)/..."), or
    // nullptr when it is not laid out.
    const LayoutRow* row(const std::string& path) {
        Row* r = timeline->scene()->root().find(path);
        for (const LayoutRow& lr : timeline->scene()->layout())
            if (lr.row == r) return &lr;
        return nullptr;
    }

    std::shared_ptr<const Report> report;
    QMainWindow window;
    TimelineWidget* timeline = nullptr;
    TimelineAnalysis* analysis = nullptr;
};

}  // namespace sl::viewer
