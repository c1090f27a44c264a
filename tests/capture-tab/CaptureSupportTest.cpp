// SightlineLocator, CaptureProgress, CaptureCapabilities and CapturePresets.
#include <gtest/gtest.h>

#include <QDir>
#include <QSettings>
#include <QTemporaryDir>

#include "TestSupport.h"
#include "viewer/capture/CaptureCapabilities.h"
#include "viewer/capture/CapturePresets.h"
#include "viewer/capture/CaptureProgress.h"
#include "viewer/capture/LineCutter.h"
#include "viewer/capture/ProcessTreeWatcher.h"
#include "viewer/capture/SightlineLocator.h"

#include <unistd.h>
#include <QCoreApplication>

using namespace sl::viewer;

TEST(SightlineLocator, OverrideThenNextToTheAppThenTheBuildTree) {
    QTemporaryDir root;
    QDir(root.path()).mkpath("app/gui");
    QDir(root.path()).mkpath("app/cli");
    const QString gui = root.filePath("app/gui");
    EXPECT_EQ(SightlineLocator::candidates(gui, ""),
              QStringList({gui + "/sightline", root.filePath("app/cli/sightline")}));
    EXPECT_EQ(SightlineLocator::candidates(gui, "/x/sl"),
              QStringList({"/x/sl", gui + "/sightline", root.filePath("app/cli/sightline")}));
    EXPECT_EQ(SightlineLocator::find(gui, ""), "");
    const QString buildTree = test::writeScript(root.filePath("app/cli/sightline"), "#!/bin/sh\n");
    EXPECT_EQ(SightlineLocator::find(gui, ""), buildTree);
    const QString installed = test::writeScript(gui + "/sightline", "#!/bin/sh\n");
    EXPECT_EQ(SightlineLocator::find(gui, ""), installed);
    const QString over = test::writeScript(root.filePath("mine"), "#!/bin/sh\n");
    EXPECT_EQ(SightlineLocator::find(gui, over), over);
    // A non-executable override is skipped.
    QFile::setPermissions(over, QFileDevice::ReadOwner);
    EXPECT_EQ(SightlineLocator::find(gui, over), installed);
    // Not in PATH: the absolute path is shown.
    EXPECT_EQ(SightlineLocator::displayName(installed), installed);
}

TEST(CaptureProgress, ReadsTheJsonLinesOfTheProgressChannel) {
    // The lines capture/launcher/ProgressChannel writes; anything else is ignored.
    CaptureProgress p;
    EXPECT_EQ(p.events(), -1);
    EXPECT_FALSE(p.feedLine("sightline: 1,234 events, 2 processes"));  // text is never parsed
    EXPECT_FALSE(p.feedLine("{\"event\":\"progress\""));                  // half a line
    EXPECT_FALSE(p.feedLine("[1,2]"));
    EXPECT_EQ(p.events(), -1);
    EXPECT_TRUE(p.feedLine(R"({"event":"started","pid":4242,"command":["./app","5 events"]})"));
    EXPECT_EQ(p.rootPid(), 4242);
    EXPECT_EQ(p.events(), -1);
    EXPECT_TRUE(p.feedLine(R"({"event":"progress","seconds":3,"processes":2,"events":1234})"));
    EXPECT_EQ(p.events(), 1234);
    EXPECT_EQ(p.processes(), 2);
    EXPECT_TRUE(p.feedLine(R"({"event":"progress","seconds":4,"processes":3,"events":12345678901})"));
    EXPECT_EQ(p.events(), 12345678901);
    EXPECT_FALSE(p.feedLine(R"({"event":"message","text":"merging"})"));
    EXPECT_TRUE(p.feedLine(R"({"event":"warning","text":"CPU sampling off"})"));
    EXPECT_EQ(p.warnings(), QStringList({"CPU sampling off"}));
    EXPECT_TRUE(p.feedLine(R"({"event":"report","path":"/tmp/my dir/r.1.rep","bytes":4096})"));
    EXPECT_TRUE(p.feedLine(R"({"event":"report","path":"/tmp/my dir/r.2.rep","bytes":4096})"));
    EXPECT_EQ(p.reportPaths(), QStringList({"/tmp/my dir/r.1.rep", "/tmp/my dir/r.2.rep"}));
    EXPECT_FALSE(p.finished());
    EXPECT_TRUE(p.feedLine(R"({"event":"finished","exit_code":3})"));
    EXPECT_TRUE(p.finished());
    EXPECT_EQ(p.exitCode(), 3);
    CaptureProgress failed;
    EXPECT_TRUE(failed.feedLine(R"({"event":"error","message":"out.rep already exists"})"));
    EXPECT_EQ(failed.lastError(), "out.rep already exists");
    EXPECT_TRUE(failed.finished());
}

TEST(CaptureProgress, IgnoresValuesOutOfTheirRange) {
    // A number a double holds but qint64 does not must not be converted; a negative count or a
    // pid of 0 is not one; an exit status is 0-255.
    CaptureProgress p;
    EXPECT_FALSE(p.feedLine(R"({"event":"started","pid":1e300})"));
    EXPECT_FALSE(p.feedLine(R"({"event":"started","pid":0})"));
    EXPECT_FALSE(p.feedLine(R"({"event":"started","pid":"12"})"));
    EXPECT_EQ(p.rootPid(), -1);
    EXPECT_FALSE(p.feedLine(R"({"event":"progress","events":-5,"processes":1.5})"));
    EXPECT_FALSE(p.feedLine(R"({"event":"progress","events":1e19})"));
    EXPECT_EQ(p.events(), -1);
    EXPECT_EQ(p.processes(), -1);
    EXPECT_TRUE(p.feedLine(R"({"event":"progress","events":7,"processes":1e12})"));
    EXPECT_EQ(p.events(), 7);
    EXPECT_EQ(p.processes(), -1);
    EXPECT_TRUE(p.feedLine(R"({"event":"finished","exit_code":-9e99})"));
    EXPECT_EQ(p.exitCode(), 0);
}

TEST(LineCutter, CutsLinesAcrossReads) {
    LineCutter c(100, LineCutter::OverLong::Drop);
    EXPECT_TRUE(c.append("{\"a\"").isEmpty());
    EXPECT_EQ(c.append(":1}\n{\"b\":2}\n\n{\"c\""), QList<QByteArray>({"{\"a\":1}", "{\"b\":2}", ""}));
    EXPECT_EQ(c.takeRest(), "{\"c\"");
    EXPECT_EQ(c.takeRest(), "");
}

TEST(LineCutter, DropsAnOverLongLineUpToItsNewline) {
    // The progress channel: a writer that never ends a line holds at most the limit.
    LineCutter c(8, LineCutter::OverLong::Drop);
    EXPECT_EQ(c.append("12345678\n123"), QList<QByteArray>({"12345678"}));
    EXPECT_TRUE(c.append("456789").isEmpty());                  // over 8: dropped from here
    EXPECT_TRUE(c.append(QByteArray(1 << 20, 'x')).isEmpty());  // still the same line
    EXPECT_EQ(c.takeRest(), "");
    LineCutter d(8, LineCutter::OverLong::Drop);
    d.append("123456789");
    EXPECT_EQ(d.append("abc\nok\n"), QList<QByteArray>({"ok"}));
    EXPECT_EQ(d.overLongLines(), 1);
}

TEST(LineCutter, SplitsAnOverLongLineIntoPiecesAndLosesNothing) {
    // The program's own output: shown in pieces of the limit, every byte kept.
    LineCutter c(4, LineCutter::OverLong::Split);
    EXPECT_EQ(c.append("abcdefghij"), QList<QByteArray>({"abcd", "efgh"}));
    EXPECT_EQ(c.append("\nxy\n"), QList<QByteArray>({"ij", "xy"}));
    EXPECT_EQ(c.append("1234\n"), QList<QByteArray>({"1234"}));  // exactly the limit: one line
    EXPECT_EQ(c.append("12345678\n"), QList<QByteArray>({"1234", "5678"}));  // no empty third piece
    EXPECT_EQ(c.overLongLines(), 2);
}

TEST(ProcessTreeWatcher, DescendantsAndProc) {
    const QHash<qint64, qint64> parents{{1, 0}, {10, 1}, {11, 10}, {12, 11}, {13, 10}, {20, 1}};
    EXPECT_EQ(ProcessTreeWatcher::descendants(parents, 10), QSet<qint64>({11, 12, 13}));
    EXPECT_EQ(ProcessTreeWatcher::descendants(parents, 12), QSet<qint64>());
    const auto real = ProcessTreeWatcher::readParents();
    EXPECT_EQ(real.value(QCoreApplication::applicationPid()), qint64(getppid()));
}

TEST(CaptureCapabilities, ReasonsForWhatIsMissing) {
    // The shape of `sightline profile --list-options --format json` (model/options/OptionDocs).
    const QString withCuda =
        R"({"command":"profile","cuda":true,"options":[)"
        R"({"name":"cuda-memory-usage","support":"implemented"},)"
        R"({"name":"gpu-metrics-devices","support":"different"}]})";
    auto c = CaptureCapabilities::evaluate(withCuda, "", "", "");
    EXPECT_TRUE(c.cuda);
    EXPECT_TRUE(c.gpuMetrics);
    EXPECT_EQ(c.cudaReason, "");
    c = CaptureCapabilities::evaluate(withCuda, "", "libcuda.so.1 cannot be loaded (x)",
                                      "libnvidia-ml.so.1 cannot be loaded (y)");
    EXPECT_FALSE(c.cuda);
    EXPECT_EQ(c.cudaReason, "No NVIDIA driver: libcuda.so.1 cannot be loaded (x)");
    EXPECT_EQ(c.gpuMetricsReason,
              "No NVML (NVIDIA driver): libnvidia-ml.so.1 cannot be loaded (y)");
    c = CaptureCapabilities::evaluate(withCuda, "libsightline-cuda.so is not in /d (why).", "",
                                      "");
    EXPECT_EQ(
        c.cudaReason,
        "This sightline was built without CUDA capture: libsightline-cuda.so is not in /d (why).");
    EXPECT_TRUE(c.gpuMetrics);
    c = CaptureCapabilities::evaluate(
        R"({"command":"profile","cuda":false,"options":[)"
        R"({"name":"cuda-memory-usage","support":"not available"},)"
        R"({"name":"gpu-metrics-devices","support":"not available"}]})",
        "", "", "");
    EXPECT_FALSE(c.cuda);
    EXPECT_EQ(c.cudaReason,
              "This sightline has no CUDA capture ('sightline profile --list-options' lists CUDA "
              "as not available).");
    EXPECT_FALSE(c.gpuMetrics);
    EXPECT_EQ(c.gpuMetricsReason, "This sightline has no GPU metrics.");
    c = CaptureCapabilities::evaluate("", "", "", "");
    EXPECT_EQ(c.cudaReason,
              "The sightline command-line tool did not answer, so CUDA capture cannot be checked.");
    EXPECT_NE(CaptureCapabilities::libraryProblem("libsightline-no-such-lib.so.9"), "");
    EXPECT_EQ(CaptureCapabilities::libraryProblem("libc.so.6"), "");
}

TEST(CaptureCapabilities, CuptiModuleNextToTheInjectionModule) {
    QTemporaryDir root;
    QDir(root.path()).mkpath("app/cli");
    QDir(root.path()).mkpath("lib/sightline");
    const QString bin = test::writeScript(root.filePath("app/cli/sightline"), "#!/bin/sh\n");
    // No module folder at all: cannot tell, so no objection.
    EXPECT_EQ(CaptureCapabilities::cuptiModuleProblem(bin, ""), "");
    test::writeScript(root.filePath("lib/sightline/libsightline-inject.so"), "");
    EXPECT_EQ(CaptureCapabilities::cuptiModuleProblem(bin, ""),
              "libsightline-cuda.so is not in " + root.filePath("lib/sightline") +
                  " (the CUDA toolkit was missing when it was built).");
    test::writeScript(root.filePath("lib/sightline/libsightline-cuda.so"), "");
    EXPECT_EQ(CaptureCapabilities::cuptiModuleProblem(bin, ""), "");
    // $SIGHTLINE_INJECT_DIR wins.
    QDir(root.path()).mkpath("other");
    test::writeScript(root.filePath("other/libsightline-inject.so"), "");
    EXPECT_EQ(CaptureCapabilities::cuptiModuleProblem(bin, root.filePath("other")),
              "libsightline-cuda.so is not in " + root.filePath("other") +
                  " (the CUDA toolkit was missing when it was built).");
}

TEST(CapturePresets, SaveListLoadRemove) {
    QTemporaryDir dir;
    QSettings settings(dir.filePath("presets.ini"), QSettings::IniFormat);
    CapturePresets presets(&settings);
    CaptureSettings a;
    a.program = "/bin/true";
    a.arguments = {"x y"};
    a.workingDirectory = "/tmp";
    a.set("trace", "cuda,nvtx");
    a.set("duration", "2.5");
    CaptureSettings b;
    b.program = "";  // a preset of options only
    b.set("capture-range", "nvtx");
    b.set("nvtx-capture", "epoch");
    presets.save("zeta/with slash", a);
    presets.save("Alpha", b);
    presets.saveLast(a);
    EXPECT_EQ(presets.names(), QStringList({"Alpha", "zeta/with slash"}));
    auto la = presets.load("zeta/with slash");
    ASSERT_TRUE(la.ok()) << la.error();
    EXPECT_EQ(*la, a);
    auto lb = presets.load("Alpha");
    ASSERT_TRUE(lb.ok()) << lb.error();
    EXPECT_EQ(*lb, b);
    EXPECT_EQ(presets.loadLast().value(), a);
    presets.remove("Alpha");
    EXPECT_EQ(presets.names(), QStringList({"zeta/with slash"}));
    EXPECT_EQ(presets.load("Alpha").error(), "no capture preset named 'Alpha'");
    // Survives a new QSettings on the same file.
    QSettings reopened(dir.filePath("presets.ini"), QSettings::IniFormat);
    EXPECT_EQ(CapturePresets(&reopened).load("zeta/with slash").value(), a);
}
