// The Capture tab with the real `sightline profile` on the test clients (tests/clients): the
// NVTX client's report, Stop on a program that never ends, and the shown command line run by
// hand. Skipped, saying why, where the CLI has no `profile` or the clients are not built.
#include <gtest/gtest.h>

#include <QFile>
#include <QFileInfo>
#include <QCheckBox>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <map>

#include "TestSupport.h"
#include "model/rep/RepReader.h"
#include "viewer/capture/CaptureForm.h"
#include "viewer/capture/CaptureRunner.h"
#include "viewer/capture/CaptureTab.h"
#include "viewer/timeline/Row.h"
#include "viewer/timeline/TimelineScene.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"

#include <QTabWidget>
#include <cstdio>

using namespace sl;
using namespace sl::viewer;

namespace {

// CAPTURE_TAB_SIGHTLINE / CAPTURE_TAB_CLIENTS point the tests at another build (e.g. a branch's).
QString cli() {
    return qEnvironmentVariable("CAPTURE_TAB_SIGHTLINE", SIGHTLINE_CLI);
}
QString client(const char* name) {
    return qEnvironmentVariable("CAPTURE_TAB_CLIENTS", SIGHTLINE_CLIENTS) + "/" + name;
}

// Why the real capture cannot run here, or "".
QString unavailable() {
    QProcess p;
    p.start(cli(), {"profile", "--help"});
    if (!p.waitForFinished(10000) || p.exitCode() != 0)
        return "sightline has no 'profile' command in this build";
    if (!QFileInfo(client("nvtx_threads")).isExecutable())
        return "the test clients (tests/clients) are not built";
    return {};
}

// Event count per name of one kind, over all tracks.
std::map<std::string, size_t> countByName(const Report& r, EventKind kind) {
    std::map<std::string, size_t> out;
    for (const Track& t : r.tracks) {
        if (t.key.kind != kind) continue;
        for (size_t i = 0; i < t.size(); ++i) ++out[std::string(r.str(t.nameAt(i)))];
    }
    return out;
}

void dump(const Row& row, int depth = 0) {
    std::printf("%*s%s [%llu]\n", depth * 2, "", row.title().c_str(),
                static_cast<unsigned long long>(row.count()));
    for (const auto& c : row.children()) dump(*c, depth + 1);
}

struct EndToEnd : ::testing::Test {
    QTemporaryDir dir;
    std::unique_ptr<CaptureTab> tab;
    QStringList reports;
    void SetUp() override {
        if (QString why = unavailable(); !why.isEmpty()) GTEST_SKIP() << why.toStdString();
        test::isolateSettings(dir.filePath("settings"));
        tab = std::make_unique<CaptureTab>();
        tab->setProfilerPath(cli());
        QObject::connect(tab.get(), &CaptureTab::reportReady,
                         [this](const QString& p) { reports << p; });
        tab->show();
        ASSERT_TRUE(test::waitFor([&] { return tab->capabilitiesKnown(); }));
    }
    void type(const char* field, const QString& text) {
        auto* e = tab->findChild<QLineEdit*>(field);
        ASSERT_NE(e, nullptr) << field;
        e->clear();
        QTest::keyClicks(e, text);
    }
    void click(const char* button) {
        QTest::mouseClick(tab->findChild<QPushButton*>(button), Qt::LeftButton);
    }
    std::shared_ptr<Report> load(const QString& path) {
        auto r = readReport(path.toStdString());
        EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error());
        return r.ok() ? *r : nullptr;
    }
};

}  // namespace

TEST_F(EndToEnd, NvtxClientCaptureGivesItsRanges) {
    type("program", client("nvtx_threads"));
    type("workingDirectory", dir.path());
    type("output", "nvtx.rep");
    click("start");
    ASSERT_TRUE(
        test::waitFor([&] { return !reports.isEmpty() || !tab->errorText().isEmpty(); }, 60000))
        << tab->logText().toStdString();
    ASSERT_EQ(tab->errorText(), "") << tab->logText().toStdString();
    ASSERT_EQ(reports, QStringList({dir.filePath("nvtx.rep")}));
    EXPECT_TRUE(tab->statusText().startsWith("Report written: " + dir.filePath("nvtx.rep") + " ("))
        << tab->statusText().toStdString();
    auto r = load(reports[0]);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->processes.size(), 1u);
    EXPECT_EQ(r->processes[0].name, "nvtx_threads");
    const auto ranges = countByName(*r, EventKind::NvtxRange);
    for (int level = 0; level < 5; ++level)
        EXPECT_EQ(ranges.at("level" + std::to_string(level)), 80u) << level;
    EXPECT_EQ(ranges.at("sleep-100ms"), 1u);
    if (const QString shot = qEnvironmentVariable("CAPTURE_TAB_SCREENSHOT"); !shot.isEmpty()) {
        tab->resize(1400, 900);
        QTest::qWait(100);
        EXPECT_TRUE(tab->grab().save(shot));
    }
}

TEST_F(EndToEnd, StopDuringALongRunningClientKeepsTheReport) {
    type("program", client("sleeper"));
    type("workingDirectory", dir.path());
    type("output", "sleeper.rep");
    click("start");
    ASSERT_TRUE(test::waitFor([&] { return tab->runner()->processesSeen() == 1; }, 20000))
        << tab->logText().toStdString();
    QTest::qWait(500);  // ~50 ticks of 10 ms
    ASSERT_TRUE(tab->runner()->isRunning());
    click("stop");
    ASSERT_TRUE(
        test::waitFor([&] { return !reports.isEmpty() || !tab->errorText().isEmpty(); }, 30000))
        << tab->logText().toStdString();
    ASSERT_EQ(tab->errorText(), "") << tab->logText().toStdString();
    ASSERT_EQ(reports, QStringList({dir.filePath("sleeper.rep")}));
    EXPECT_TRUE(tab->logText().contains("received SIGINT")) << tab->logText().toStdString();
    auto r = load(reports[0]);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->processes.size(), 1u);
    const size_t ticks = countByName(*r, EventKind::NvtxRange)["tick"];
    EXPECT_GE(ticks, 20u);
    EXPECT_LE(ticks, 2000u);
}

TEST_F(EndToEnd, TheShownCommandLineRunByHandGivesAnEquivalentReport) {
    type("program", client("nvtx_threads"));
    type("workingDirectory", dir.path());
    type("output", "same.rep");
    tab->findChild<QCheckBox*>("force-overwrite")->setChecked(true);
    click("start");
    ASSERT_TRUE(
        test::waitFor([&] { return !reports.isEmpty() || !tab->errorText().isEmpty(); }, 60000))
        << tab->logText().toStdString();
    ASSERT_EQ(tab->errorText(), "") << tab->logText().toStdString();
    ASSERT_TRUE(QFile::rename(dir.filePath("same.rep"), dir.filePath("from-gui.rep")));
    // What a user pastes into a terminal.
    QProcess sh;
    sh.start("/bin/sh", {"-c", tab->commandLine()});
    ASSERT_TRUE(sh.waitForFinished(60000));
    ASSERT_EQ(sh.exitCode(), 0) << sh.readAllStandardError().toStdString();
    auto gui = load(dir.filePath("from-gui.rep"));
    auto hand = load(dir.filePath("same.rep"));
    ASSERT_TRUE(gui && hand);
    EXPECT_EQ(gui->session.argv, hand->session.argv);
    EXPECT_EQ(gui->session.captureOptions, hand->session.captureOptions);
    EXPECT_EQ(gui->session.workingDirectory, hand->session.workingDirectory);
    EXPECT_EQ(gui->processes.size(), hand->processes.size());
    EXPECT_EQ(gui->threads.size(), hand->threads.size());
    EXPECT_EQ(countByName(*gui, EventKind::NvtxRange), countByName(*hand, EventKind::NvtxRange));
    EXPECT_EQ(countByName(*gui, EventKind::NvtxMark), countByName(*hand, EventKind::NvtxMark));
}

// The scenario in the application window: File > New Capture, run the NVTX client, and
// the report opens in a new tab whose timeline has the client's NVTX rows.
TEST_F(EndToEnd, MainWindowOpensTheCapturedReportInANewTabWithItsNvtxRows) {
    tab.reset();  // the window has its own Capture tab
    MainWindow w;
    CaptureTab* capture = w.showCaptureTab();
    capture->setProfilerPath(cli());
    ASSERT_TRUE(test::waitFor([&] { return capture->capabilitiesKnown(); }));
    EXPECT_EQ(w.tabs()->count(), 1);
    EXPECT_EQ(w.tabs()->tabText(0), "Capture");
    w.show();
    auto typeIn = [&](const char* field, const QString& text) {
        auto* e = capture->findChild<QLineEdit*>(field);
        e->clear();
        QTest::keyClicks(e, text);
    };
    typeIn("program", client("nvtx_threads"));
    typeIn("workingDirectory", dir.path());
    typeIn("output", "window.rep");
    QTest::mouseClick(capture->findChild<QPushButton*>("start"), Qt::LeftButton);
    ASSERT_TRUE(test::waitFor(
        [&] { return w.tabs()->count() == 2 || !capture->errorText().isEmpty(); }, 60000))
        << capture->logText().toStdString();
    ASSERT_EQ(capture->errorText(), "");
    EXPECT_EQ(w.tabs()->tabText(1), "window.rep");
    auto* report = qobject_cast<ReportTab*>(w.tabs()->widget(1));
    ASSERT_NE(report, nullptr);
    EXPECT_EQ(w.tabs()->currentWidget(), report);
    ASSERT_TRUE(test::waitFor([&] { return report->state() != ReportTab::State::Loading; }, 30000));
    ASSERT_EQ(report->state(), ReportTab::State::Ready) << report->errorMessage().toStdString();
    ASSERT_TRUE(report->timeline() && report->timeline()->scene());
    Row& root = report->timeline()->scene()->root();
    if (qEnvironmentVariableIsSet("CAPTURE_TAB_DUMP_ROWS")) dump(root);
    // The client's documented structure (tests/clients/nvtx_threads.cpp), row by row.
    ASSERT_EQ(root.children().size(), 2u);  // the process and its metrics
    const Row& process = *root.children()[0];
    EXPECT_TRUE(QString::fromStdString(process.title()).endsWith(" (nvtx_threads)"))
        << process.title();
    auto thread = [&](const std::string& suffix) -> const Row* {
        for (const auto& t : process.children())
            if (t->title().size() > suffix.size() && t->title().ends_with(suffix)) return t.get();
        return nullptr;
    };
    auto countOf = [](const Row* t, const char* child) -> int64_t {
        if (!t) return -1;
        for (const auto& c : t->children())
            if (c->title() == child) return int64_t(c->count());
        return 0;
    };
    const Row* mainThread = thread(" (nvtx_threads)");
    ASSERT_NE(mainThread, nullptr);
    EXPECT_EQ(countOf(mainThread, "NVTX"),
              8);  // the cross-<i> start/end ranges begin on the main thread
    uint64_t nvtxInRows = countOf(mainThread, "NVTX");
    for (int i = 0; i < 8; ++i) {
        const Row* t =
            thread(std::string(i % 2 ? " (nvtx-worker-" : " (worker-") + std::to_string(i) + ")");
        ASSERT_NE(t, nullptr) << i;
        EXPECT_EQ(countOf(t, "NVTX"), i == 0 ? 51 : 50)
            << i;  // 10 x 5 nested levels; worker 0 also sleep-100ms
        EXPECT_EQ(countOf(t, "NVTX marks"), 3) << i;
        EXPECT_EQ(countOf(t, "NVTX (alpha)"), 6) << i;
        EXPECT_EQ(countOf(t, "NVTX (beta)"), 2) << i;
        for (const char* c : {"NVTX", "NVTX marks", "NVTX (alpha)", "NVTX (beta)"})
            nvtxInRows += uint64_t(countOf(t, c));
    }
    EXPECT_EQ(nvtxInRows, 497u);
    uint64_t inReport = 0;
    for (EventKind k : {EventKind::NvtxRange, EventKind::NvtxMark})
        for (const auto& [name, n] : countByName(*report->report(), k)) inReport += n;
    EXPECT_EQ(inReport, 497u);
}

// The real profiler's errors reach the tab with what to do.
TEST_F(EndToEnd, ExistingReportWithoutOverwriteShowsTheProfilersErrorAndTheFix) {
    test::writeScript(dir.filePath("taken.rep"), "not a report");
    type("program", client("nvtx_threads"));
    type("workingDirectory", dir.path());
    type("output", "taken.rep");
    click("start");
    ASSERT_TRUE(
        test::waitFor([&] { return !reports.isEmpty() || !tab->errorText().isEmpty(); }, 60000))
        << tab->logText().toStdString();
    EXPECT_TRUE(reports.isEmpty());
    EXPECT_EQ(
        tab->errorText(),
        "The capture failed: taken.rep already exists (use -f/--force-overwrite to replace it). "
        "Choose another output path, or tick 'Overwrite an existing report' if the file exists.");
    EXPECT_EQ(tab->statusText(), "Capture failed.");
    EXPECT_EQ(test::readText(dir.filePath("taken.rep")), "not a report");
}

TEST_F(EndToEnd, ProgramThatCannotRunIsReportedByTheRunner) {
    // The form refuses a missing program before starting; the runner still explains the
    // profiler's own message if it happens (e.g. the file disappears in between).
    CaptureRunner runner;
    runner.setProfilerPath(cli());
    QString failed, finished;
    QObject::connect(&runner, &CaptureRunner::captureFailed, [&](const QString& m) { failed = m; });
    QObject::connect(&runner, &CaptureRunner::captureFinished,
                     [&](const QString& p) { finished = p; });
    CaptureSettings s;
    s.program = dir.filePath("vanished");
    s.workingDirectory = dir.path();
    s.set("output", "never.rep");
    ASSERT_TRUE(runner.start(s));
    ASSERT_TRUE(test::waitFor([&] { return !failed.isEmpty() || !finished.isEmpty(); }, 30000));
    EXPECT_EQ(finished, "");
    EXPECT_EQ(
        failed,
        "The capture failed: cannot run '" + dir.filePath("vanished") +
            "': No such file or directory. Check the program path and the working directory.");
    EXPECT_FALSE(QFileInfo::exists(dir.filePath("never.rep")));
}
