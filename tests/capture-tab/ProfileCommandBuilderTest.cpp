// ProfileCommandBuilder: form state -> argv -> display string, and back.
#include <gtest/gtest.h>

#include <QDir>
#include <QTemporaryDir>

#include "TestSupport.h"
#include "viewer/capture/ProfileCommandBuilder.h"

using namespace sl::viewer;

namespace {

CaptureSettings everything() {
    CaptureSettings s;
    s.program = "/opt/app/bin/train";
    s.arguments = {"--epochs", "3", "a b", "it's"};
    s.environment = {{"OMP_NUM_THREADS", "4"}, {"MODE", "fast mode"}};
    s.traceCuda = false;
    s.traceNvtx = true;
    s.traceOsrt = true;
    s.osrtThresholdNs = 5000;
    s.cudaMemoryUsage = true;
    s.gpuMetricsDevices = "0,1";
    s.gpuMetricsFrequencyHz = 100;
    s.cpuMetrics = false;
    s.samplingFrequencyHz = 500;
    s.delaySeconds = 1.5;
    s.durationSeconds = 10;
    s.captureRange = CaptureRangeKind::Nvtx;
    s.nvtxRange = "step 3";
    s.nvtxDomain = "trainer";
    s.rangeEnd = CaptureRangeEndKind::Repeat;
    s.repeatCount = 2;
    s.output = "out/%h-%p";
    s.forceOverwrite = true;
    return s;
}

}  // namespace

TEST(ProfileCommandBuilder, DefaultsGiveOnlyTraceAndProgram) {
    CaptureSettings s;
    s.program = "./app";
    EXPECT_EQ(ProfileCommandBuilder::arguments(s),
              QStringList({"profile", "--trace=cuda,nvtx,osrt", "./app"}));
    s.traceCuda = s.traceNvtx = s.traceOsrt = false;
    EXPECT_EQ(ProfileCommandBuilder::arguments(s),
              QStringList({"profile", "--trace=none", "./app"}));
}

TEST(ProfileCommandBuilder, EveryOption) {
    EXPECT_EQ(ProfileCommandBuilder::arguments(everything()),
              QStringList({"profile",
                           "--trace=nvtx,osrt",
                           "--osrt-threshold=5000",
                           "--cuda-memory-usage=true",
                           "--gpu-metrics-devices=0,1",
                           "--gpu-metrics-frequency=100",
                           "--cpu-metrics=off",
                           "--sampling-frequency=500",
                           "--delay=1.5",
                           "--duration=10",
                           "--capture-range=nvtx",
                           "--nvtx-capture=step 3@trainer",
                           "--capture-range-end=repeat:2",
                           "--env-var=OMP_NUM_THREADS=4",
                           "--env-var=MODE=fast mode",
                           "--output=out/%h-%p",
                           "--force-overwrite=true",
                           "/opt/app/bin/train",
                           "--epochs",
                           "3",
                           "a b",
                           "it's"}));
}

TEST(ProfileCommandBuilder, CudaProfilerApiRangeAndProgramStartingWithDash) {
    CaptureSettings s;
    s.program = "-weird";
    s.captureRange = CaptureRangeKind::CudaProfilerApi;
    s.rangeEnd = CaptureRangeEndKind::StopShutdown;
    EXPECT_EQ(ProfileCommandBuilder::arguments(s),
              QStringList({"profile", "--trace=cuda,nvtx,osrt", "--capture-range=cudaProfilerApi",
                           "--capture-range-end=stop-shutdown", "--", "-weird"}));
    auto back = ProfileCommandBuilder::parse(ProfileCommandBuilder::arguments(s));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(*back, s);
}

TEST(ProfileCommandBuilder, DisplayQuotesOnlyWhatNeedsIt) {
    CaptureSettings s = everything();
    s.workingDirectory = "/home/me/my runs";
    EXPECT_EQ(ProfileCommandBuilder::displayCommand("sightline", s),
              "cd '/home/me/my runs' && sightline profile --trace=nvtx,osrt --osrt-threshold=5000 "
              "--cuda-memory-usage=true --gpu-metrics-devices=0,1 --gpu-metrics-frequency=100 "
              "--cpu-metrics=off "
              "--sampling-frequency=500 --delay=1.5 --duration=10 --capture-range=nvtx "
              "'--nvtx-capture=step 3@trainer' "
              "--capture-range-end=repeat:2 --env-var=OMP_NUM_THREADS=4 '--env-var=MODE=fast mode' "
              "--output=out/%h-%p "
              "--force-overwrite=true /opt/app/bin/train --epochs 3 'a b' 'it'\\''s'");
    EXPECT_EQ(ProfileCommandBuilder::shellQuote(""), "''");
    EXPECT_EQ(ProfileCommandBuilder::shellQuote("$HOME"), "'$HOME'");
}

TEST(ProfileCommandBuilder, ParseIsTheInverse) {
    const CaptureSettings s = everything();
    auto back = ProfileCommandBuilder::parse(ProfileCommandBuilder::arguments(s));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(*back, s);
    // The display string, split as a shell would, parses back too (the cd aside).
    auto words =
        ProfileCommandBuilder::shellSplit(ProfileCommandBuilder::displayCommand("sightline", s));
    ASSERT_TRUE(words.ok());
    auto again = ProfileCommandBuilder::parse(words->mid(1));
    ASSERT_TRUE(again.ok()) << again.error();
    EXPECT_EQ(*again, s);
}

TEST(ProfileCommandBuilder, ParseAcceptsShortAndSeparatedForms) {
    auto r = ProfileCommandBuilder::parse({"profile", "-t", "nvtx", "-o", "x.rep", "-f", "-y2",
                                           "--duration", "3", "-e", "A=1,B=2", "-c", "nvtx", "-p",
                                           "r", "./prog", "-o", "kept"});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_FALSE(r->traceCuda);
    EXPECT_TRUE(r->traceNvtx);
    EXPECT_FALSE(r->traceOsrt);
    EXPECT_EQ(r->output, "x.rep");
    EXPECT_TRUE(r->forceOverwrite);
    EXPECT_EQ(r->delaySeconds, 2.0);
    EXPECT_EQ(r->durationSeconds, 3.0);
    ASSERT_EQ(r->environment.size(), 2);
    EXPECT_EQ(r->environment[1], qMakePair(QString("B"), QString("2")));
    EXPECT_EQ(r->nvtxRange, "r");
    EXPECT_EQ(r->nvtxDomain, "");
    EXPECT_EQ(r->program, "./prog");
    EXPECT_EQ(r->arguments, QStringList({"-o", "kept"}));
}

TEST(ProfileCommandBuilder, ParseErrorsNameTheOption) {
    EXPECT_EQ(ProfileCommandBuilder::parse({"profile", "--trace=gpu", "x"}).error(),
              "--trace: unknown value 'gpu' (expected cuda, nvtx, osrt or none)");
    EXPECT_EQ(ProfileCommandBuilder::parse({"profile", "--delay=-1", "x"}).error(),
              "--delay: expected a number of seconds, got '-1'");
    EXPECT_EQ(ProfileCommandBuilder::parse({"profile", "--bogus=1", "x"}).error(),
              "unknown option --bogus");
    EXPECT_EQ(ProfileCommandBuilder::parse({"profile", "--trace=nvtx"}).error(),
              "no program to profile in the command line");
    EXPECT_EQ(ProfileCommandBuilder::parse({"profile", "-o"}).error(), "--output needs a value");
}

TEST(ProfileCommandBuilder, ShellSplit) {
    auto w = ProfileCommandBuilder::shellSplit(R"(  a "b c" 'd "e"' f\ g "h\"i" '' )");
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(*w, QStringList({"a", "b c", "d \"e\"", "f g", "h\"i", ""}));
    EXPECT_EQ(ProfileCommandBuilder::shellSplit("a 'b").error(), "unclosed ' in the arguments");
    EXPECT_EQ(ProfileCommandBuilder::shellSplit("").value(), QStringList());
}

TEST(ProfileCommandBuilder, ValidateExplainsWhatToDo) {
    QTemporaryDir dir;
    CaptureSettings s;
    EXPECT_EQ(ProfileCommandBuilder::validate(s),
              QStringList({"No program: choose the program to profile with the '...' button."}));
    s.program = dir.filePath("missing");
    EXPECT_EQ(ProfileCommandBuilder::validate(s),
              QStringList({"Program not found: '" + s.program +
                           "'. Check the path, or choose the program with the '...' button."}));
    s.program = "no-such-program-sightline-test";
    EXPECT_EQ(ProfileCommandBuilder::validate(s).value(0),
              "Program not found: 'no-such-program-sightline-test' is not in PATH. Check the path, "
              "or choose the program with the '...' button.");
    const QString notExec = test::writeScript(dir.filePath("data.txt"), "x");
    QFile::setPermissions(notExec, QFileDevice::ReadOwner);
    s.program = notExec;
    EXPECT_EQ(
        ProfileCommandBuilder::validate(s).value(0),
        "'" + notExec +
            "' is not an executable file: make it executable (chmod +x) or pick another program.");
    // Relative programs resolve against the working directory.
    test::writeScript(dir.filePath("tool"), "#!/bin/sh\n");
    s.program = "./tool";
    s.workingDirectory = dir.path();
    EXPECT_TRUE(ProfileCommandBuilder::validate(s).isEmpty())
        << ProfileCommandBuilder::validate(s).join('\n').toStdString();
    s.output = "nowhere/r.rep";
    EXPECT_EQ(ProfileCommandBuilder::validate(s),
              QStringList({"The output folder '" + dir.filePath("nowhere") +
                           "' does not exist: create it or choose another output path."}));
    s.output = "r-%p";
    s.environment = {{"1BAD", "x"}, {"OK", "a,b"}};
    s.captureRange = CaptureRangeKind::Nvtx;
    EXPECT_EQ(ProfileCommandBuilder::validate(s),
              QStringList(
                  {"Environment variable name '1BAD' is not valid: use letters, digits and '_'.",
                   "The value of OK contains a comma, which --env-var cannot pass: set it in the "
                   "environment of sightline instead.",
                   "The NVTX capture range needs the name of the range that starts the capture."}));
    s = CaptureSettings();
    s.program = "sh";
    s.workingDirectory = dir.filePath("gone");
    EXPECT_EQ(ProfileCommandBuilder::validate(s),
              QStringList({"The working directory '" + s.workingDirectory +
                           "' does not exist: pick an existing folder or leave it empty."}));
}

TEST(ProfileCommandBuilder, CpuSamplingOptions) {
    CaptureSettings s;
    s.program = "./app";
    // Sampling the process tree at 1000 Hz with frame-pointer stacks is the CLI's default.
    EXPECT_EQ(ProfileCommandBuilder::arguments(s),
              QStringList({"profile", "--trace=cuda,nvtx,osrt", "./app"}));
    s.samplingFrequencyHz = 4000;
    s.backtrace = "none";
    EXPECT_EQ(ProfileCommandBuilder::arguments(s),
              QStringList({"profile", "--trace=cuda,nvtx,osrt", "--sampling-frequency=4000",
                           "--backtrace=none", "./app"}));
    auto back = ProfileCommandBuilder::parse(ProfileCommandBuilder::arguments(s));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(*back, s);
    // No sampling: the frequency and backtrace options are left out.
    s.sampleCpu = false;
    EXPECT_EQ(ProfileCommandBuilder::arguments(s),
              QStringList({"profile", "--trace=cuda,nvtx,osrt", "--sample=none", "./app"}));
    // The short forms -s and -b, as the CLI spells them.
    auto shortForms =
        ProfileCommandBuilder::parse({"profile", "-s", "none", "-b", "none", "./app"});
    ASSERT_TRUE(shortForms.ok()) << shortForms.error();
    EXPECT_FALSE(shortForms->sampleCpu);
    EXPECT_EQ(shortForms->backtrace, "none");
    auto on = ProfileCommandBuilder::parse(
        {"profile", "--sample=process-tree", "--backtrace=fp", "./app"});
    ASSERT_TRUE(on.ok()) << on.error();
    EXPECT_TRUE(on->sampleCpu);
    EXPECT_EQ(on->backtrace, "fp");
    auto bad = ProfileCommandBuilder::parse({"profile", "--sample=system-wide", "./app"});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error(), "--sample: expected process-tree or none, got 'system-wide'");
    bad = ProfileCommandBuilder::parse({"profile", "-b", "lbr", "./app"});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error(), "--backtrace: expected fp or none, got 'lbr'");
    // As the CLI: "auto" picks frame pointers, and the frequency is 100 to 8000 Hz.
    auto autoBt = ProfileCommandBuilder::parse({"profile", "--backtrace=auto", "./app"});
    ASSERT_TRUE(autoBt.ok()) << autoBt.error();
    EXPECT_EQ(autoBt->backtrace, "fp");
    bad = ProfileCommandBuilder::parse({"profile", "--sampling-frequency=20000", "./app"});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error(), "--sampling-frequency: expected 100 to 8000 Hz, got '20000'");
}
