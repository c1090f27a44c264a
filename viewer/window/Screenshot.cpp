#include "viewer/window/Screenshot.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QImage>

#include "viewer/timeline/ProjectedNvtxRow.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimelineScene.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/ReportOpener.h"

namespace sl::viewer {

QString writeScreenshot(const ScreenshotOptions& o) {
    if (QString gl = TimelineWidget::checkOpenGL(); !gl.isEmpty())
        return "OpenGL is not available: " + gl;
    auto r = openReportFile(o.report.toStdString(), {});
    if (!r) return QString::fromStdString(r.error());
    std::shared_ptr<Report> report = std::move(r.value());
    ProjectedNvtx projected(*report);
    auto rows = buildRowTree(*report, &projected);
    TimelineWidget w;
    w.setWindowTitle("Sightline screenshot");
    w.setScene(std::make_unique<TimelineScene>(report, std::move(rows)));
    w.resize(o.size);
    if (o.range) {
        const int64_t origin = report->timeOrigin();
        w.view().setRange(origin + o.range->first, origin + o.range->second, false);
    }
    w.show();
    // Wait until the window is exposed and has rendered a frame.
    QElapsedTimer t;
    t.start();
    while (w.frameCount() == 0 && t.elapsed() < 30000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    if (!w.glError().isEmpty()) return "the timeline cannot draw: " + w.glError();
    const QImage img = w.renderImage();
    if (img.isNull()) return "rendering the timeline failed";
    if (!img.save(o.output, "PNG")) return o.output + ": cannot write the PNG";
    return {};
}

}  // namespace sl::viewer
