// `sightline-ui [REPORT...]`: the desktop application (main window, one tab per report), and
// `sightline-ui --screenshot out.png [--size WxH] [--range START:END] REPORT`, which renders
// a report's timeline to a PNG and exits (documentation, CI, headless servers under xvfb-run).
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QMessageBox>
#include <cstdio>
#include <cstdlib>

#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/CommandLine.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/MergeOpen.h"
#include "viewer/window/Screenshot.h"

namespace {

void setupParser(QCommandLineParser& p) {
    p.setApplicationDescription(
        "Sightline: a CUDA and CPU timeline profiler. Opens reports (.rep) in a window.");
    p.addHelpOption();
    p.addVersionOption();
    p.addPositionalArgument("REPORT", "Reports to open, one tab each.", "[REPORT...]");
    p.addOption({"screenshot",
                 "Render the timeline of REPORT to a PNG file and exit (needs a display; "
                 "use xvfb-run on servers).",
                 "out.png"});
    p.addOption({"compare",
                 "Open the two REPORTs side by side in one compare tab: BASELINE COMPARISON "
                 "(timelines on one time axis and their diff table)."});
    p.addOption({"merge",
                 "Open the REPORTs as one timeline, a top-level group per rank, aligned on the "
                 "wall clock (also a folder REPORT: every .rep in it)."});
    p.addOption({"size", "Screenshot size in pixels (default 1600x900).", "WxH", "1600x900"});
    p.addOption({"range",
                 "Screenshot time range relative to the session start, e.g. 1.5s:2s or 100ms:250ms "
                 "(units ns, us, ms, s; a bare number is seconds).",
                 "START:END"});
}

int fail(const QString& msg) {
    std::fprintf(stderr, "sightline-ui: %s\n", qPrintable(msg));
    return 1;
}

bool hasDisplay() {
    return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") ||
           std::getenv("QT_QPA_PLATFORM");
}

}  // namespace

int main(int argc, char** argv) {
    // --help and --version work without a display.
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        if (a == "-h" || a == "--help" || a == "-v" || a == "--version" || a == "--help-all") {
            QCoreApplication app(argc, argv);
            QCoreApplication::setApplicationVersion(SIGHTLINE_VERSION);
            QCommandLineParser p;
            setupParser(p);
            p.process(app);  // prints and exits
            return 0;
        }
    }
    if (!hasDisplay())
        return fail(
            "no display (DISPLAY is not set). Run it in a desktop session, or under xvfb-run for "
            "--screenshot.");
    sl::viewer::TimelineWidget::installSurfaceFormat();
    QApplication app(argc, argv);
    QApplication::setApplicationName("Sightline");
    QApplication::setOrganizationName("Sightline");
    QApplication::setApplicationVersion(SIGHTLINE_VERSION);
    QCommandLineParser parser;
    setupParser(parser);
    parser.process(app);
    const QStringList reports = parser.positionalArguments();
    if (parser.isSet("compare") && (reports.size() != 2 || parser.isSet("screenshot")))
        return fail(
            "--compare needs exactly two REPORTs, BASELINE COMPARISON (and no --screenshot)");

    if (parser.isSet("merge") && (reports.isEmpty() || parser.isSet("compare")))
        return fail("--merge needs one or more REPORTs or folders (and no --compare)");
    // A folder given alone is merged too: its reports are the ranks of one job.
    const bool merge =
        parser.isSet("merge") || (reports.size() == 1 && QFileInfo(reports.front()).isDir());
    auto mergeRequest = [&reports] {
        sl::MergeRequest request;
        for (const QString& r : reports) request.paths.push_back(r.toStdString());
        return request;
    };

    if (parser.isSet("screenshot")) {
        if (reports.size() != 1 && !merge) return fail("--screenshot needs exactly one REPORT (or --merge)");
        sl::viewer::ScreenshotOptions o;
        o.report = merge ? sl::viewer::registerMerge(mergeRequest()) : reports.front();
        o.output = parser.value("screenshot");
        const auto size = sl::viewer::parseSize(parser.value("size"));
        if (!size)
            return fail("--size: expected WxH between 64 and 16384, e.g. 1600x900, got '" +
                        parser.value("size") + "'");
        o.size = *size;
        if (parser.isSet("range")) {
            o.range = sl::viewer::parseTimeRange(parser.value("range"));
            if (!o.range)
                return fail("--range: expected START:END with START < END, e.g. 1.5s:2s, got '" +
                            parser.value("range") + "'");
        }
        if (QString err = sl::viewer::writeScreenshot(o); !err.isEmpty()) return fail(err);
        if (merge)  // the files that could not be opened are named; the others are in the picture
            for (const std::string& left : sl::viewer::mergeOutcome(o.report).skipped)
                std::fprintf(stderr, "sightline-ui: left out %s\n", left.c_str());
        std::printf("sightline-ui: wrote %s\n", qPrintable(o.output));
        return 0;
    }

    if (QString gl = sl::viewer::TimelineWidget::checkOpenGL(); !gl.isEmpty()) {
        const QString msg = "OpenGL is not available, so the timeline cannot be shown: " + gl;
        std::fprintf(stderr, "sightline-ui: %s\n", qPrintable(msg));
        if (QGuiApplication::platformName() != "offscreen" &&
            QGuiApplication::platformName() != "minimal")
            QMessageBox::critical(nullptr, "Sightline", msg);
        return 1;
    }
    sl::viewer::MainWindow w;
    if (parser.isSet("compare"))
        w.openCompare(reports[0], reports[1]);
    else if (merge)
        w.openMerged(mergeRequest());
    else
        for (const QString& r : reports) w.openReport(r);
    if (reports.isEmpty()) w.showCaptureTab();  // nothing to open: start from a capture
    w.show();
    return QApplication::exec();
}
