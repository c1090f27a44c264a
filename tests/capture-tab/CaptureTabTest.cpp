// The Capture tab driven through its widgets with QTest, against the fake `sightline`.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
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
#include "viewer/capture/EnvironmentChecksView.h"
#include "viewer/capture/OptionField.h"
#include "model/options/OptionDef.h"

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
    // A click on the box itself (a check box in a wide cell is not clickable at its centre).
    static void tick(QCheckBox* box) {
        QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(6, box->height() / 2));
    }
    void click(const char* button) {
        QTest::mouseClick(child<QPushButton>(button), Qt::LeftButton);
    }
};

}  // namespace

TEST_F(TabFixture, CudaOptionsDisabledWithTheReasonWhenTheCliHasNoCuda) {
    auto* cuda = child<QCheckBox>("trace-cuda");
    EXPECT_FALSE(cuda->isEnabled());
    EXPECT_FALSE(cuda->isChecked());
    EXPECT_FALSE(child<QCheckBox>("cuda-memory-usage")->isEnabled());
    auto* reason = child<QLabel>("cudaReason");
    EXPECT_TRUE(reason->isVisible());
    EXPECT_EQ(reason->text(),
              "This sightline has no CUDA capture ('sightline profile --list-options' lists CUDA "
              "as not available).");
    EXPECT_EQ(cuda->toolTip(), reason->text());
    EXPECT_FALSE(child<QLineEdit>("gpu-metrics-devices")->isEnabled());
    EXPECT_TRUE(child<QCheckBox>("trace-nvtx")->isEnabled());
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
    tick(child<QCheckBox>("trace-osrt"));
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
    auto* env = child<QTableWidget>("env-var");
    ASSERT_EQ(env->rowCount(), 1);
    env->item(0, 0)->setText("OMP_NUM_THREADS");
    env->item(0, 1)->setText("4 threads");
    EXPECT_EQ(tab->commandLine(), bin +
                                      " profile --trace=nvtx --output=out/%p "
                                      "'--env-var=OMP_NUM_THREADS=4 threads' /bin/echo");
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
    child<QComboBox>("capture-range")->setCurrentIndex(1);
    type("nvtx-capture", "epoch@train");
    child<QComboBox>("presetName")->setCurrentText("my preset");
    click("savePreset");
    const QString saved = tab->commandLine();
    type("program", "/bin/true");
    type("arguments", "");
    child<QComboBox>("capture-range")->setCurrentIndex(0);
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
    auto* sample = child<QComboBox>("sample");
    auto* frequency = child<QDoubleSpinBox>("sampling-frequency");
    auto* backtrace = child<QComboBox>("backtrace");
    EXPECT_EQ(sample->currentText(), "process-tree");  // the CLI's default
    // The definition's range, not a copy of it.
    EXPECT_EQ(frequency->minimum(), 100);
    EXPECT_EQ(frequency->maximum(), 8000);
    frequency->setValue(4000);
    backtrace->setCurrentIndex(backtrace->findData("none"));
    EXPECT_TRUE(
        tab->commandLine().endsWith(" --sampling-frequency=4000 --backtrace=none /bin/echo"))
        << tab->commandLine().toStdString();
    sample->setCurrentIndex(sample->findData("none"));
    EXPECT_FALSE(frequency->isEnabled());  // --sampling-frequency only while sampling
    EXPECT_FALSE(backtrace->isEnabled());
    EXPECT_TRUE(tab->commandLine().endsWith(" --sample=none /bin/echo"))
        << tab->commandLine().toStdString();
    EXPECT_TRUE(tab->commandLine().startsWith(bin + " profile --trace="))
        << tab->commandLine().toStdString();
}

TEST_F(TabFixture, TheFormOffersExactlyTheDefinitionsOptions) {
    // Every capture setting of `sightline profile` has one field, with the definition's limits;
    // nothing else in the form claims to be an option.
    auto* form = tab->findChild<CaptureForm*>();
    ASSERT_NE(form, nullptr);
    // Limits and defaults on a form that has not been told what this machine lacks.
    CaptureForm fresh;
    QStringList expected, offered;
    for (const sl::options::OptionDef* o : sl::options::optionsOf("profile"))
        if (!o->group.empty()) expected << QString::fromUtf8(o->name.data(), o->name.size());
    for (QWidget* w : form->findChildren<QWidget*>())
        if (w->property("option").isValid()) offered << w->property("option").toString();
    expected.sort();
    offered.sort();
    EXPECT_EQ(offered, expected);
    for (OptionField* f : fresh.fields()) {
        const sl::options::OptionDef& d = f->def();
        SCOPED_TRACE(f->name().toStdString());
        // Nsys's not-available options are offered, greyed out, saying why.
        if (d.support == sl::options::Support::Unavailable) {
            EXPECT_FALSE(f->isEnabled());
            EXPECT_TRUE(f->toolTip().contains(QString::fromUtf8(d.note.data(), d.note.size())));
        }
        EXPECT_EQ(f->value(), QString::fromUtf8(d.defaultValue.data(), d.defaultValue.size()))
            << "the field starts at the definition's default";
        switch (d.kind) {
            case sl::options::ValueKind::Integer: {
                auto* n = f->findChild<QDoubleSpinBox*>();
                ASSERT_NE(n, nullptr);
                // One step below the range means "not set" for an option without a default.
                EXPECT_EQ(n->minimum(), double(d.min) - (d.defaultValue.empty() ? 1 : 0));
                EXPECT_EQ(n->maximum(), double(d.max));
                break;
            }
            case sl::options::ValueKind::Choice: {
                auto* c = f->findChild<QComboBox*>();
                ASSERT_NE(c, nullptr);
                QStringList listed, values;
                for (int i = 0; i < c->count(); ++i) listed << c->itemData(i).toString();
                for (const auto& v : d.values)
                    if (!v.hidden) values << QString::fromUtf8(v.name.data(), v.name.size());
                EXPECT_EQ(listed, values);
                break;
            }
            case sl::options::ValueKind::List: {
                QStringList boxes, values;
                for (auto* b : f->findChildren<QCheckBox*>()) boxes << b->text();
                for (const auto& v : d.values)
                    if (!v.hidden && v.name != "none")
                        values << QString::fromUtf8(v.name.data(), v.name.size());
                EXPECT_EQ(boxes, values);
                break;
            }
            case sl::options::ValueKind::Switch:
                EXPECT_NE(f->findChild<QCheckBox*>(), nullptr);
                break;
            default:
                break;
        }
    }
    // Each field's value reaches the command line in the CLI's own spelling.
    type("program", "/bin/echo");
    child<QComboBox>("capture-range")->setCurrentIndex(
        child<QComboBox>("capture-range")->findData("nvtx"));
    type("nvtx-capture", "step");
    auto* end = child<QComboBox>("capture-range-end");
    end->setCurrentIndex(end->findData("repeat-shutdown:N"));
    child<QSpinBox>("capture-range-end-count")->setValue(3);
    tick(child<QCheckBox>("stop-on-exit"));
    EXPECT_TRUE(tab->commandLine().endsWith(" --capture-range=nvtx --nvtx-capture=step "
                                            "--capture-range-end=repeat-shutdown:3 "
                                            "--stop-on-exit=false /bin/echo"))
        << tab->commandLine().toStdString();
}

TEST_F(TabFixture, MachineChecksAreShownBeforeStart) {
    // What `sightline status -e` says, before any capture: the summary, then what is not OK with
    // the fix.
    ASSERT_TRUE(test::waitFor([&] { return tab->environmentKnown(); }));
    EXPECT_EQ(tab->environmentText(),
              "Machine checks: 3 run, 1 failed, 1 warning.\n"
              "FAIL  perf_event_paranoid: 4: CPU sampling off\n"
              "      fix: sudo sysctl kernel.perf_event_paranoid=1\n"
              "WARN  CUDA driver: no NVIDIA driver\n"
              "      fix: install the NVIDIA driver");
    EXPECT_TRUE(child<QLabel>("environmentProblems")->isVisible());
    // No sightline at all: said so, nothing else breaks.
    tab->setProfilerPath(dir.filePath("missing-sightline"));
    ASSERT_TRUE(test::waitFor([&] { return tab->environmentKnown(); }));
    EXPECT_EQ(tab->environmentText(),
              "Machine checks unavailable: sightline was not found\n");
}

TEST(EnvironmentChecksView, ParseRejectsWhatIsNotTheChecks) {
    EXPECT_FALSE(EnvironmentChecksView::parse("").ok());
    EXPECT_FALSE(EnvironmentChecksView::parse("{\"a\":1}").ok());
    EXPECT_FALSE(EnvironmentChecksView::parse("[{\"id\":\"x\"}]").ok());
    auto ok = EnvironmentChecksView::parse(
        R"([{"id":"a","title":"A","level":"ok","detail":"fine","fix":""}])");
    ASSERT_TRUE(ok.ok()) << ok.error();
    ASSERT_EQ(ok->size(), 1);
    EXPECT_EQ(ok->front().detail, "fine");
}
