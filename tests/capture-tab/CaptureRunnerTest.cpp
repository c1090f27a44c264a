// CaptureRunner against a fake `sightline` script (TestSupport.cpp): argv, output forwarding,
// progress, Stop = SIGINT keeps the report, failures.
#include <gtest/gtest.h>

#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include "TestSupport.h"
#include "viewer/capture/CaptureRunner.h"
#include "viewer/capture/ProfileCommandBuilder.h"

using namespace sl::viewer;

namespace {

struct RunnerFixture : ::testing::Test {
    QTemporaryDir dir;
    CaptureRunner runner;
    QStringList out, err;
    QString finished, failed;
    void SetUp() override {
        runner.setProfilerPath(test::writeFakeSightline(dir.path()));
        qputenv("FAKE_SIGHTLINE_LOG", dir.filePath("argv.txt").toLocal8Bit());
        QObject::connect(&runner, &CaptureRunner::outputLine,
                         [this](const QString& l, bool e) { (e ? err : out) << l; });
        QObject::connect(&runner, &CaptureRunner::captureFinished,
                         [this](const QString& p) { finished = p; });
        QObject::connect(&runner, &CaptureRunner::captureFailed,
                         [this](const QString& m) { failed = m; });
    }
    void TearDown() override { qunsetenv("FAKE_SIGHTLINE_LOG"); }
    bool waitDone(int ms = 15000) {
        return test::waitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, ms);
    }
};

}  // namespace

TEST_F(RunnerFixture, RunsTheProfilerWithTheBuiltArgvAndFindsTheReport) {
    CaptureSettings s;
    s.program = "/bin/echo";
    s.arguments = {"hello", "from the program"};
    s.workingDirectory = dir.path();
    s.set("output", "run1");
    s.set("trace", "nvtx,osrt");
    ASSERT_TRUE(runner.start(s));
    ASSERT_TRUE(waitDone());
    EXPECT_EQ(failed, "");
    EXPECT_EQ(finished, dir.filePath("run1.rep"));
    EXPECT_EQ(test::readText(finished), "fake report of ended\n");
    EXPECT_TRUE(out.contains("hello from the program"));
    EXPECT_TRUE(err.contains("sightline: merging [##########] 100%"))
        << err.join('|').toStdString();
    EXPECT_EQ(runner.progress().processes(), 1);
    EXPECT_EQ(runner.progress().events(), 1042);
    EXPECT_GT(runner.progress().rootPid(), 0);
    // The built argv, with the progress channel's descriptor after "profile".
    QStringList argv = test::readText(dir.filePath("argv.txt")).split('\n', Qt::SkipEmptyParts);
    ASSERT_GE(argv.size(), 2);
    EXPECT_TRUE(argv[1].startsWith("--progress-fd=")) << argv[1].toStdString();
    argv.removeAt(1);
    EXPECT_EQ(argv, ProfileCommandBuilder::arguments(s));
    EXPECT_FALSE(runner.isRunning());
}

TEST_F(RunnerFixture, StopSendsSigintAndKeepsTheReport) {
    CaptureSettings s;
    s.program = "sleep";
    s.arguments = {"30"};
    s.workingDirectory = dir.path();
    s.set("output", "long.rep");
    QSignalSpy progress(&runner, &CaptureRunner::progressChanged);
    ASSERT_TRUE(runner.start(s));
    // The tree is the fake profiler's one child: `sleep 30`.
    ASSERT_TRUE(test::waitFor([&] { return runner.processesSeen() == 1; }));
    EXPECT_TRUE(runner.isRunning());
    EXPECT_GT(runner.progress().rootPid(), 0);
    EXPECT_EQ(runner.progress().events(), -1);
    EXPECT_GE(progress.count(), 2);
    runner.stop();
    EXPECT_TRUE(runner.isStopping());
    ASSERT_TRUE(waitDone(5000)) << "the fake profiler did not stop on SIGINT";
    EXPECT_EQ(failed, "");
    EXPECT_EQ(finished, dir.filePath("long.rep"));
    EXPECT_EQ(test::readText(finished), "fake report of stopped\n");
    EXPECT_GE(runner.elapsedMs(), 100);
}

TEST_F(RunnerFixture, ProgramStdoutIsATerminalSoBufferedOutputArrivesLive) {
    // Python buffers stdout in blocks on a pipe and by lines on a terminal: "early" arrives while
    // the program still sleeps only when stdout is a terminal.
    if (QStandardPaths::findExecutable("python3").isEmpty()) GTEST_SKIP() << "no python3 in PATH";
    CaptureSettings s;
    s.program = "python3";
    s.arguments = {"-c", "import sys, time; print('early', sys.stdout.isatty()); time.sleep(30)"};
    s.workingDirectory = dir.path();
    s.set("output", "tty.rep");
    ASSERT_TRUE(runner.start(s));
    ASSERT_TRUE(test::waitFor([&] { return out.contains("early True"); }, 10000))
        << out.join('|').toStdString();
    EXPECT_TRUE(runner.isRunning());
    runner.stop();
    ASSERT_TRUE(waitDone(5000));
    EXPECT_EQ(finished, dir.filePath("tty.rep"));
}

TEST_F(RunnerFixture, AnEndlessLineOfTheProgramComesOutInPiecesWithNothingLost) {
    // A program that writes 200,000 bytes without a newline (binary output, a progress bar
    // without \n): shown in pieces of 64 KiB instead of held whole, and every byte arrives.
    CaptureSettings s;
    s.program = "/bin/sh";
    s.arguments = {"-c", "head -c 200000 /dev/zero | tr '\\0' x; echo; echo done"};
    s.workingDirectory = dir.path();
    s.set("output", "long.rep");
    ASSERT_TRUE(runner.start(s));
    ASSERT_TRUE(waitDone());
    ASSERT_TRUE(out.contains("done")) << out.size();
    qsizetype xs = 0, longest = 0;
    for (const QString& l : out) {
        xs += l.count('x');
        longest = std::max(longest, l.size());
    }
    EXPECT_EQ(xs, 200000);
    EXPECT_LE(longest, 64 << 10);
    EXPECT_GE(out.size(), 4);
}

TEST_F(RunnerFixture, ProfilerErrorsBecomeAFailureWithAHint) {
    CaptureSettings s;
    s.program = "no-such-program-for-sightline";
    s.workingDirectory = dir.path();
    ASSERT_TRUE(runner.start(s));
    ASSERT_TRUE(waitDone());
    EXPECT_EQ(finished, "");
    EXPECT_EQ(failed,
              "The capture failed: cannot run 'no-such-program-for-sightline': No such file or "
              "directory. Check the program path and the working directory.");
}

TEST_F(RunnerFixture, UnwritableOutput) {
    // A folder that is a regular file: not writable, even for root.
    test::writeScript(dir.filePath("ro"), "not a folder");
    CaptureSettings s;
    s.program = "/bin/true";
    s.workingDirectory = dir.path();
    s.set("output", "ro/x.rep");
    ASSERT_TRUE(runner.start(s));
    ASSERT_TRUE(waitDone());
    EXPECT_EQ(failed,
              "The capture failed: writing ro/x.rep: cannot create the file. Choose another output "
              "path, or tick 'Overwrite an "
              "existing report' if the file exists.");
}

TEST_F(RunnerFixture, RepeatedRangesGiveOneFinishedSignalPerReport) {
    CaptureSettings s;
    s.program = "/bin/true";
    s.workingDirectory = dir.path();
    s.set("output", "rep");
    s.set("capture-range", "nvtx");
    s.set("nvtx-capture", "step");
    s.set("capture-range-end", "repeat");
    QSignalSpy spy(&runner, &CaptureRunner::captureFinished);
    ASSERT_TRUE(runner.start(s));
    ASSERT_TRUE(test::waitFor([&] { return spy.count() == 2; }));
    EXPECT_EQ(spy[0][0].toString(), dir.filePath("rep.1.rep"));
    EXPECT_EQ(spy[1][0].toString(), dir.filePath("rep.2.rep"));
    EXPECT_EQ(failed, "");
}

TEST_F(RunnerFixture, MissingProfilerBinary) {
    runner.setProfilerPath(dir.filePath("nothing-here"));
    CaptureSettings s;
    s.program = "/bin/true";
    EXPECT_FALSE(runner.start(s));
    EXPECT_TRUE(failed.startsWith("The sightline command-line tool was not found (looked in "))
        << failed.toStdString();
    EXPECT_TRUE(
        failed.endsWith("Install it next to sightline-ui, or set SIGHTLINE_CLI to its path."))
        << failed.toStdString();
}

TEST(CaptureRunnerPaths, ExpectedReportPath) {
    CaptureSettings s;
    s.workingDirectory = "/work/runs";
    EXPECT_EQ(CaptureRunner::expectedReportPath(s), "");
    s.set("output", "a");
    EXPECT_EQ(CaptureRunner::expectedReportPath(s), "/work/runs/a.rep");
    s.set("output", "/abs/b.rep");
    EXPECT_EQ(CaptureRunner::expectedReportPath(s), "/abs/b.rep");
    s.set("output", "c.nsys-rep");  // the name of nsys scripts, kept as the CLI keeps it
    EXPECT_EQ(CaptureRunner::expectedReportPath(s), "/work/runs/c.nsys-rep");
    qputenv("SL_CAPTURE_TAB_TEST", "v1");
    s.set("output", "%h_%q{SL_CAPTURE_TAB_TEST}_100%%");
    EXPECT_EQ(CaptureRunner::expectedReportPath(s),
              "/work/runs/" + QSysInfo::machineHostName() + "_v1_100%.rep");
    s.set("output", "r-%p");
    EXPECT_EQ(CaptureRunner::expectedReportPath(s), "");
}

TEST_F(RunnerFixture, SilentProfilerReportFoundByNameButAnOldFileIsNeverTaken) {
    // A profiler that prints no paths: the runner falls back on the expected name, and only a
    // file written during the run counts.
    CaptureSettings s;
    s.program = "/bin/true";
    s.workingDirectory = dir.path();
    s.set("output", "quiet.rep");
    test::writeScript(dir.filePath("quiet.rep"), "old");
    runner.setProfilerPath(test::writeScript(dir.filePath("silent-noop"), "#!/bin/sh\nexit 0\n"));
    ASSERT_TRUE(runner.start(s));
    ASSERT_TRUE(waitDone());
    EXPECT_EQ(finished, "");
    EXPECT_EQ(failed,
              "The capture ended (exit code 0) without writing a report. See the log below for the "
              "profiler's messages.");
    finished = failed = "";
    QTest::qWait(20);  // a new modification time
    runner.setProfilerPath(
        test::writeScript(dir.filePath("silent-writer"), "#!/bin/sh\necho new > quiet.rep\n"));
    ASSERT_TRUE(runner.start(s));
    ASSERT_TRUE(waitDone());
    EXPECT_EQ(failed, "");
    EXPECT_EQ(finished, dir.filePath("quiet.rep"));
}
