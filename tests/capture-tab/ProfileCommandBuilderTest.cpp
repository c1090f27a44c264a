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
    s.set("trace", "nvtx,osrt");
    s.set("osrt-threshold", "5000");
    s.set("gpu-metrics-devices", "0,1");
    s.set("gpu-metrics-frequency", "100");
    s.set("cpu-metrics", "false");
    s.set("sampling-frequency", "500");
    s.set("delay", "1.5");
    s.set("duration", "10");
    s.set("capture-range", "nvtx");
    s.set("nvtx-capture", "step 3@trainer");
    s.set("capture-range-end", "repeat:2");
    s.set("output", "out/%h-%p");
    s.set("force-overwrite", "true");
    return s;
}

}  // namespace

TEST(ProfileCommandBuilder, DefaultsGiveOnlyTraceAndProgram) {
    CaptureSettings s;
    s.program = "./app";
    EXPECT_EQ(ProfileCommandBuilder::arguments(s),
              QStringList({"profile", "--trace=cuda,nvtx,osrt", "./app"}));
    s.set("trace", "none");
    EXPECT_EQ(ProfileCommandBuilder::arguments(s),
              QStringList({"profile", "--trace=none", "./app"}));
    // Setting an option to its default removes it.
    s.set("trace", "cuda,nvtx,osrt");
    s.set("sampling-frequency", "1000");
    EXPECT_TRUE(s.options.isEmpty());
}

TEST(ProfileCommandBuilder, EveryOption) {
    // In the order of the option definition; --env-var last, then the program.
    EXPECT_EQ(ProfileCommandBuilder::arguments(everything()),
              QStringList({"profile",
                           "--trace=nvtx,osrt",
                           "--osrt-threshold=5000",
                           "--gpu-metrics-devices=0,1",
                           "--gpu-metrics-frequency=100",
                           "--sampling-frequency=500",
                           "--cpu-metrics=false",
                           "--delay=1.5",
                           "--duration=10",
                           "--capture-range=nvtx",
                           "--nvtx-capture=step 3@trainer",
                           "--capture-range-end=repeat:2",
                           "--output=out/%h-%p",
                           "--force-overwrite=true",
                           "--env-var=OMP_NUM_THREADS=4",
                           "--env-var=MODE=fast mode",
                           "/opt/app/bin/train",
                           "--epochs",
                           "3",
                           "a b",
                           "it's"}));
}

TEST(ProfileCommandBuilder, OptionsThatDoNotApplyAreLeftOut) {
    CaptureSettings s;
    s.program = "./app";
    s.set("trace", "nvtx");
    s.set("cuda-memory-usage", "true");   // only with CUDA traced
    s.set("osrt-threshold", "5000");      // only with OS runtime traced
    s.set("nvtx-capture", "step");        // only with --capture-range=nvtx
    s.set("capture-range-end", "repeat"); // only with a capture range
    s.set("sample", "none");
    s.set("sampling-frequency", "500");   // only while sampling
    EXPECT_EQ(ProfileCommandBuilder::arguments(s),
              QStringList({"profile", "--trace=nvtx", "--sample=none", "./app"}));
    s.set("trace", "cuda,osrt");
    s.set("sample", "process-tree");
    s.set("capture-range", "nvtx");
    EXPECT_EQ(ProfileCommandBuilder::arguments(s),
              QStringList({"profile", "--trace=cuda,osrt", "--osrt-threshold=5000",
                           "--cuda-memory-usage=true", "--sampling-frequency=500",
                           "--capture-range=nvtx", "--nvtx-capture=step",
                           "--capture-range-end=repeat", "./app"}));
}

TEST(ProfileCommandBuilder, CudaProfilerApiRangeAndProgramStartingWithDash) {
    CaptureSettings s;
    s.program = "-weird";
    s.set("capture-range", "cudaProfilerApi");
    s.set("capture-range-end", "stop-shutdown");
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
    const QString display = ProfileCommandBuilder::displayCommand("sightline", s);
    EXPECT_TRUE(display.startsWith("cd '/home/me/my runs' && sightline profile --trace=nvtx,osrt "))
        << display.toStdString();
    EXPECT_TRUE(display.contains(" '--nvtx-capture=step 3@trainer' ")) << display.toStdString();
    EXPECT_TRUE(display.contains(" '--env-var=MODE=fast mode' ")) << display.toStdString();
    EXPECT_TRUE(display.endsWith(" /opt/app/bin/train --epochs 3 'a b' 'it'\\''s'"))
        << display.toStdString();
    // Before a program is chosen, a placeholder stands where it goes.
    CaptureSettings none;
    none.arguments = {"x y"};
    EXPECT_EQ(ProfileCommandBuilder::displayCommand("sightline", none),
              "sightline profile --trace=cuda,nvtx,osrt PROGRAM 'x y'");
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

TEST(ProfileCommandBuilder, ParseAcceptsEverySpellingTheCliAccepts) {
    auto r = ProfileCommandBuilder::parse({"profile", "-t", "nvtx", "-o", "x.rep", "-f", "true",
                                           "-y2", "--duration", "3", "-e", "A=1,B=2", "-c", "nvtx",
                                           "-p", "r", "-s", "cpu", "-w", "true", "./prog", "-o",
                                           "kept"});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_FALSE(r->has("trace", "cuda"));
    EXPECT_TRUE(r->has("trace", "nvtx"));
    EXPECT_EQ(r->value("trace"), "nvtx");
    EXPECT_EQ(r->value("output"), "x.rep");
    EXPECT_TRUE(r->isTrue("force-overwrite"));
    EXPECT_EQ(r->value("delay").toDouble(), 2.0);
    EXPECT_EQ(r->value("duration").toDouble(), 3.0);
    ASSERT_EQ(r->environment.size(), 2);
    EXPECT_EQ(r->environment[1], qMakePair(QString("B"), QString("2")));
    EXPECT_EQ(r->value("nvtx-capture"), "r");
    EXPECT_EQ(r->value("sample"), "process-tree");  // nsys's old spelling "cpu"
    EXPECT_FALSE(r->options.contains("show-output"));  // true is the default
    EXPECT_EQ(r->program, "./prog");
    EXPECT_EQ(r->arguments, QStringList({"-o", "kept"}));
    // Options that are not capture settings are dropped; options of the GUI's own are kept.
    auto p = ProfileCommandBuilder::parse({"profile", "--progress-fd=9", "-x", "false", "-d", "5",
                                           "--kill", "sigkill", "./prog"});
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(p->options, (QMap<QString, QString>{{"stop-on-exit", "false"},
                                                  {"duration", "5"},
                                                  {"kill", "sigkill"}}));
}

TEST(ProfileCommandBuilder, ParseErrorsAreTheClis) {
    // The CLI's own messages (model/options/OptionParser), so the tab and the CLI never disagree.
    EXPECT_TRUE(ProfileCommandBuilder::parse({"profile", "--trace=gpu", "x"})
                    .error()
                    .starts_with("--trace: 'gpu' is not a valid value (expected a comma-separated "
                                 "list of cuda, nvtx, osrt, "));
    EXPECT_EQ(ProfileCommandBuilder::parse({"profile", "--delay=-1", "x"}).error(),
              "--delay: '-1' is not a valid value (expected a number of seconds (decimals "
              "allowed))");
    EXPECT_EQ(ProfileCommandBuilder::parse({"profile", "--bogus=1", "x"}).error(),
              "unknown option '--bogus'");
    EXPECT_EQ(ProfileCommandBuilder::parse({"profile", "--trace=nvtx"}).error(),
              "no program to profile in the command line");
    EXPECT_EQ(ProfileCommandBuilder::parse({"profile", "-o"}).error(),
              "option '-o' needs a value (NAME)");
    EXPECT_EQ(ProfileCommandBuilder::parse({"profile", "--sampling-frequency=20000", "x"}).error(),
              "--sampling-frequency: '20000' is not a valid value (expected a whole number from "
              "100 to 8000 HZ)");
    EXPECT_EQ(ProfileCommandBuilder::parse({"profile", "-e", "NOVALUE", "x"}).error(),
              "--env-var: expected NAME=VALUE, got 'NOVALUE'");
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
    s.set("output", "nowhere/r.rep");
    EXPECT_EQ(ProfileCommandBuilder::validate(s),
              QStringList({"The output folder '" + dir.filePath("nowhere") +
                           "' does not exist: create it or choose another output path."}));
    // With --output-dir the CLI creates the folder.
    s.set("output-dir", "made-by-the-cli");
    EXPECT_TRUE(ProfileCommandBuilder::validate(s).isEmpty());
    s.set("output-dir", "");
    s.set("output", "r-%p");
    s.environment = {{"1BAD", "x"}, {"OK", "a,b"}};
    s.set("capture-range", "nvtx");
    s.set("trace", "cuda");
    s.set("sampling-frequency", "20000");  // a preset edited by hand
    EXPECT_EQ(ProfileCommandBuilder::validate(s),
              QStringList(
                  {"Environment variable name '1BAD' is not valid: use letters, digits and '_'.",
                   "The value of OK contains a comma, which --env-var cannot pass: set it in the "
                   "environment of sightline instead.",
                   "--sampling-frequency: '20000' is not a valid value (expected a whole number "
                   "from 100 to 8000 HZ).",
                   "The NVTX capture range needs the name of the range that starts the capture "
                   "(nvtx-capture).",
                   "The NVTX capture range needs NVTX tracing: tick 'nvtx' under Trace."}));
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
    s.set("sampling-frequency", "4000");
    s.set("backtrace", "none");
    EXPECT_EQ(ProfileCommandBuilder::arguments(s),
              QStringList({"profile", "--trace=cuda,nvtx,osrt", "--sampling-frequency=4000",
                           "--backtrace=none", "./app"}));
    auto back = ProfileCommandBuilder::parse(ProfileCommandBuilder::arguments(s));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(*back, s);
    // The short forms -s and -b, as the CLI spells them.
    auto shortForms =
        ProfileCommandBuilder::parse({"profile", "-s", "none", "-b", "none", "./app"});
    ASSERT_TRUE(shortForms.ok()) << shortForms.error();
    EXPECT_EQ(shortForms->value("sample"), "none");
    EXPECT_EQ(shortForms->value("backtrace"), "none");
    // nsys's system-wide sampling and LBR stacks are accepted, as by the CLI (with a warning
    // there when this machine cannot do them).
    auto nsysValues =
        ProfileCommandBuilder::parse({"profile", "--sample=system-wide", "-b", "lbr", "./app"});
    ASSERT_TRUE(nsysValues.ok()) << nsysValues.error();
    EXPECT_EQ(nsysValues->value("sample"), "system-wide");
}
