// The Capture tab driven through its widgets with QTest, against the fake `sightline`.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "TestSupport.h"
#include "viewer/capture/CaptureForm.h"
#include "viewer/capture/CaptureRunner.h"
#include "viewer/capture/CaptureTab.h"

using namespace sl::viewer;

namespace {

struct TabFixture : ::testing::Test {
    QTemporaryDir dir;
    std::unique_ptr<CaptureTab> tab;
    QString report;
    void SetUp() override {
        test::isolateSettings(dir.filePath("settings"));
        tab = std::make_unique<CaptureTab>();
        tab->setProfilerPath(test::writeFakeSightline(dir.path()));
        QObject::connect(tab.get(), &CaptureTab::reportReady,
                         [this](const QString& p) { report = p; });
        tab->show();
        ASSERT_TRUE(test::waitFor([&] { return tab->capabilitiesKnown(); }));
    }
    template <class W>
    W* child(const char* name) {
        W* w = tab->findChild<W*>(name);
        EXPECT_NE(w, nullptr) << name;
        return w;
    }
    void type(const char* field, const QString& text) {
        auto* e = child<QLineEdit>(field);
        e->clear();
        QTest::keyClicks(e, text);
    }
    void click(const char* button) {
        QTest::mouseClick(child<QPushButton>(button), Qt::LeftButton);
    }
};

}  // namespace

TEST_F(TabFixture, CudaOptionsDisabledWithTheReasonWhenTheCliHasNoCuda) {
    auto* cuda = child<QCheckBox>("traceCuda");
    EXPECT_FALSE(cuda->isEnabled());
    EXPECT_FALSE(cuda->isChecked());
    EXPECT_FALSE(child<QCheckBox>("cudaMemoryUsage")->isEnabled());
    auto* reason = child<QLabel>("cudaReason");
    EXPECT_TRUE(reason->isVisible());
    EXPECT_EQ(reason->text(),
              "This sightline has no CUDA capture ('sightline profile --list-options' lists CUDA "
              "as not available).");
    EXPECT_EQ(cuda->toolTip(), reason->text());
    EXPECT_FALSE(child<QCheckBox>("gpuMetrics")->isEnabled());
    EXPECT_TRUE(child<QCheckBox>("traceNvtx")->isEnabled());
    // For the docs and for eyes: CAPTURE_TAB_SCREENSHOT=out.png saves the tab as shown.
    if (const QString shot = qEnvironmentVariable("CAPTURE_TAB_SCREENSHOT"); !shot.isEmpty()) {
        tab->resize(1400, 900);
        type("program", "/usr/bin/python3");
        type("arguments", "train.py --epochs 3");
        type("output", "runs/%h-%p");
        QTest::qWait(100);
        EXPECT_TRUE(tab->grab().save(shot));
    }
}

TEST_F(TabFixture, CommandLineFollowsTheFormAndCopies) {
    type("program", "/bin/echo");
    type("arguments", "one 'two words'");
    type("output", "out/%p");
    QTest::mouseClick(child<QCheckBox>("traceOsrt"), Qt::LeftButton);
    const QString bin = tab->runner()->profilerPath();
    EXPECT_EQ(tab->commandLine(),
              bin + " profile --trace=nvtx --output=out/%p /bin/echo one 'two words'");
    click("copyCommand");
    EXPECT_EQ(QGuiApplication::clipboard()->text(), tab->commandLine());
    type("arguments", "unclosed 'quote");
    EXPECT_EQ(tab->commandLine(), "(unclosed ' in the arguments)");
    EXPECT_TRUE(tab->checkText().endsWith("\nArguments: unclosed ' in the arguments."))
        << tab->checkText().toStdString();
    type("arguments", "");
    // The environment table: Add, then edit the cells as a user would.
    click("addEnv");
    auto* env = child<QTableWidget>("environment");
    ASSERT_EQ(env->rowCount(), 1);
    env->item(0, 0)->setText("OMP_NUM_THREADS");
    env->item(0, 1)->setText("4 threads");
    EXPECT_EQ(tab->commandLine(), bin +
                                      " profile --trace=nvtx '--env-var=OMP_NUM_THREADS=4 threads' "
                                      "--output=out/%p /bin/echo");
    env->setCurrentCell(0, 0);
    click("removeEnv");
    EXPECT_EQ(env->rowCount(), 0);
    EXPECT_EQ(tab->commandLine(), bin + " profile --trace=nvtx --output=out/%p /bin/echo");
}

TEST_F(TabFixture, ClosingTheTabMidCaptureDoesNotWaitAndKeepsTheReport) {
    type("program", "sleep");
    type("arguments", "60");
    type("workingDirectory", dir.path());
    type("output", "closed.rep");
    click("start");
    ASSERT_TRUE(test::waitFor([&] { return tab->runner()->processesSeen() == 1; }));
    QElapsedTimer t;
    t.start();
    tab.reset();
    EXPECT_LT(t.elapsed(), 500);
    ASSERT_TRUE(test::waitFor(
        [&] { return test::readText(dir.filePath("closed.rep")) == "fake report of stopped\n"; },
        5000));
}

TEST_F(TabFixture, StartRunsAndReportsTheNewReport) {
    type("program", "/bin/echo");
    type("arguments", "hello tab");
    type("workingDirectory", dir.path());
    type("output", "tab1.rep");
    QSignalSpy ready(tab.get(), &CaptureTab::reportReady);
    click("start");
    EXPECT_FALSE(child<QPushButton>("start")->isEnabled());
    EXPECT_TRUE(child<QPushButton>("stop")->isEnabled());
    ASSERT_TRUE(test::waitFor([&] { return ready.count() == 1; }));
    EXPECT_EQ(report, dir.filePath("tab1.rep"));
    EXPECT_TRUE(tab->statusText().startsWith("Report written: " + dir.filePath("tab1.rep") + " ("))
        << tab->statusText().toStdString();
    EXPECT_TRUE(tab->logText().contains("hello tab"));
    EXPECT_TRUE(tab->logText().startsWith("$ cd " + dir.path()));
    EXPECT_EQ(tab->errorText(), "");
    EXPECT_TRUE(child<QPushButton>("start")->isEnabled());
    EXPECT_FALSE(child<QPushButton>("stop")->isEnabled());
}

TEST_F(TabFixture, StopDuringALongRunKeepsTheReport) {
    type("program", "sleep");
    type("arguments", "60");
    type("workingDirectory", dir.path());
    type("output", "long.rep");
    click("start");
    ASSERT_TRUE(test::waitFor([&] { return tab->statusText().endsWith(", 1 process"); }));
    EXPECT_TRUE(tab->statusText().startsWith("Capturing... ")) << tab->statusText().toStdString();
    EXPECT_FALSE(tab->statusText().contains("events"));
    EXPECT_TRUE(tab->statusText().endsWith(" 1 process")) << tab->statusText().toStdString();
    click("stop");
    EXPECT_EQ(child<QPushButton>("stop")->text(), "Kill");  // until the report is written
    ASSERT_TRUE(test::waitFor([&] { return !report.isEmpty(); }, 5000));
    EXPECT_EQ(child<QPushButton>("stop")->text(), "Stop");
    EXPECT_FALSE(child<QPushButton>("stop")->isEnabled());
    EXPECT_EQ(report, dir.filePath("long.rep"));
    EXPECT_EQ(test::readText(report), "fake report of stopped\n");
    EXPECT_EQ(tab->statusText(), "Report written: " + report + " (1,042 events)");
}

TEST_F(TabFixture, MissingProgramShowsTheErrorAndStartsNothing) {
    type("program", dir.filePath("does-not-exist"));
    // Checked while typing, before any Start.
    EXPECT_EQ(tab->checkText(),
              "Program not found: '" + dir.filePath("does-not-exist") +
                  "'. Check the path, or choose the program with the '...' button.");
    click("start");
    EXPECT_EQ(tab->errorText(),
              "Program not found: '" + dir.filePath("does-not-exist") +
                  "'. Check the path, or choose the program with the '...' button.");
    EXPECT_TRUE(child<QLabel>("error")->isVisible());
    EXPECT_FALSE(tab->runner()->isRunning());
    EXPECT_EQ(tab->statusText(), "Not started.");
    type("program", "/bin/true");
    EXPECT_EQ(tab->checkText(), "");
}

TEST_F(TabFixture, PresetsSaveAndRestoreTheForm) {
    type("program", "/bin/echo");
    type("arguments", "preset args");
    type("output", "p.rep");
    child<QComboBox>("captureRange")->setCurrentIndex(1);
    type("nvtxRange", "epoch");
    type("nvtxDomain", "train");
    child<QComboBox>("presetName")->setCurrentText("my preset");
    click("savePreset");
    const QString saved = tab->commandLine();
    type("program", "/bin/true");
    type("arguments", "");
    child<QComboBox>("captureRange")->setCurrentIndex(0);
    EXPECT_NE(tab->commandLine(), saved);
    child<QComboBox>("presetName")->setCurrentText("my preset");
    click("loadPreset");
    EXPECT_EQ(tab->commandLine(), saved);
    EXPECT_EQ(child<QComboBox>("presetName")->count(), 1);
    child<QComboBox>("presetName")->setCurrentText("other");
    click("savePreset");
    EXPECT_EQ(child<QComboBox>("presetName")->count(), 2);
    child<QComboBox>("presetName")->setCurrentText("other");
    click("deletePreset");
    EXPECT_EQ(child<QComboBox>("presetName")->count(), 1);
    EXPECT_EQ(child<QComboBox>("presetName")->itemText(0), "my preset");
    // A new tab (a new session) lists the preset from QSettings.
    CaptureTab again;
    EXPECT_EQ(again.findChild<QComboBox*>("presetName")->itemText(0), "my preset");
}

TEST_F(TabFixture, CpuSamplingOptionsReachTheCommandLine) {
    type("program", "/bin/echo");
    const QString bin = tab->runner()->profilerPath();
    EXPECT_FALSE(tab->commandLine().contains("--sampl")) << tab->commandLine().toStdString();
    auto* sample = child<QCheckBox>("sampleCpu");
    auto* frequency = child<QSpinBox>("samplingFrequency");
    auto* backtrace = child<QComboBox>("backtrace");
    EXPECT_TRUE(sample->isChecked());  // the CLI samples the process tree by default
    frequency->setValue(4000);
    backtrace->setCurrentIndex(backtrace->findData("none"));
    EXPECT_TRUE(
        tab->commandLine().endsWith(" --sampling-frequency=4000 --backtrace=none /bin/echo"))
        << tab->commandLine().toStdString();
    QTest::mouseClick(sample, Qt::LeftButton);
    EXPECT_FALSE(frequency->isEnabled());
    EXPECT_FALSE(backtrace->isEnabled());
    EXPECT_TRUE(tab->commandLine().endsWith(" --sample=none /bin/echo"))
        << tab->commandLine().toStdString();
    EXPECT_TRUE(tab->commandLine().startsWith(bin + " profile --trace="))
        << tab->commandLine().toStdString();
}
