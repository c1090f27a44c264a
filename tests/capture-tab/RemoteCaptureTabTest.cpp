// The Capture tab with a remote target, against an sshd the test starts on 127.0.0.1
// (tests/remote/SshServer.h) and this build's `sightline` as the remote one: a capture there,
// opened from the copy; Stop; the remote environment checks; the "Remote reports" list with a
// fetch; the remote directory browser; a wrong key's message; an unknown host key's fingerprint
// question (Yes trusts it, No keeps the error), a changed key's refusal; the copy's progress bar.
// Skips where sshd cannot run.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <cstdlib>
#include <fstream>

#include "TestSupport.h"
#include "app/remote/SshErrors.h"
#include "tests/remote/SshServer.h"
#include "viewer/capture/CaptureCapabilities.h"
#include "viewer/capture/CaptureRunner.h"
#include "viewer/capture/CaptureTab.h"
#include "viewer/capture/HostKeyPrompt.h"
#include "viewer/capture/ProfileCommandBuilder.h"
#include "viewer/capture/RemoteBrowserDialog.h"
#include "viewer/capture/RemoteReportsDialog.h"

using namespace sl::viewer;

namespace {

QString cli() { return SIGHTLINE_CLI; }
QString client(const char* name) { return QString(SIGHTLINE_CLIENTS) + "/" + name; }

sl::test::SshServer& server() {
    static sl::test::SshServer s;
    return s;
}

struct RemoteTab : ::testing::Test {
    QTemporaryDir dir;
    std::unique_ptr<CaptureTab> tab;
    QStringList reports;
    void SetUp() override {
        if (!server().unavailable().empty()) GTEST_SKIP() << "sshd cannot run here: " << server().unavailable();
        setenv("SIGHTLINE_SSH_CONFIG", server().sshConfig().c_str(), 1);
        test::isolateSettings(dir.filePath("settings"));
        tab = std::make_unique<CaptureTab>();
        tab->setProfilerPath(cli());
        QObject::connect(tab.get(), &CaptureTab::reportReady, [this](const QString& p) { reports << p; });
        tab->resize(1500, 950);
        tab->show();
        ASSERT_TRUE(test::waitFor([&] { return tab->capabilitiesKnown(); }));
        tab->findChild<QComboBox*>("target")->setCurrentIndex(1);
        type("remoteHost", QString::fromStdString(server().target()));
        type("remoteKey", QString::fromStdString(server().clientKey()));
        type("remoteSightline", cli());
    }
    void type(const char* field, const QString& text) {
        auto* e = tab->findChild<QLineEdit*>(field);
        ASSERT_NE(e, nullptr) << field;
        e->clear();
        QTest::keyClicks(e, text);
    }
    void click(const char* button) { QTest::mouseClick(tab->findChild<QPushButton*>(button), Qt::LeftButton); }
    bool waitEnd(int ms) {
        return test::waitFor([&] { return !reports.isEmpty() || !tab->errorText().isEmpty(); }, ms);
    }
    // CAPTURE_TAB_SCREENSHOT_DIR: pictures for the docs (the tab, or a dialog of it).
    void shot(const char* name, QWidget* w = nullptr) {
        if (const QString d = qEnvironmentVariable("CAPTURE_TAB_SCREENSHOT_DIR"); !d.isEmpty()) {
            QTest::qWait(150);
            (w ? w : tab->window())->grab().save(d + "/" + name);
        }
    }
};

}  // namespace

TEST_F(RemoteTab, CapturesThereAndOpensTheCopiedReport) {
    type("program", client("exit_code"));
    type("arguments", "3");
    type("output", dir.filePath("remote.rep"));
    EXPECT_TRUE(tab->commandLine().contains("--remote=" + QString::fromStdString(server().target())))
        << tab->commandLine().toStdString();
    EXPECT_EQ(tab->checkText(), "");
    click("start");
    ASSERT_TRUE(waitEnd(60000)) << tab->logText().toStdString();
    ASSERT_EQ(tab->errorText(), "") << tab->logText().toStdString();
    EXPECT_EQ(reports, QStringList({dir.filePath("remote.rep")}));
    EXPECT_TRUE(QFileInfo(dir.filePath("remote.rep")).size() > 0);
    EXPECT_TRUE(tab->logText().contains("capturing on " + QString::fromStdString(server().target())))
        << tab->logText().toStdString();
    EXPECT_TRUE(tab->logText().contains("copied")) << tab->logText().toStdString();
    EXPECT_TRUE(tab->statusText().startsWith("Report written: " + dir.filePath("remote.rep")))
        << tab->statusText().toStdString();
    EXPECT_EQ(tab->runner()->progress().exitCode(), 3);
    shot("remote-capture.png");
}

TEST_F(RemoteTab, StopEndsTheRemoteProgramAndTheReportIsCopied) {
    type("program", client("sleeper"));
    type("output", dir.filePath("stopped.rep"));
    click("start");
    ASSERT_TRUE(test::waitFor([&] { return tab->logText().contains("capture running"); }, 30000))
        << tab->logText().toStdString();
    QTest::qWait(300);
    click("stop");
    ASSERT_TRUE(waitEnd(60000)) << tab->logText().toStdString();
    EXPECT_EQ(tab->errorText(), "") << tab->logText().toStdString();
    EXPECT_EQ(reports, QStringList({dir.filePath("stopped.rep")}));
    EXPECT_EQ(tab->runner()->progress().exitCode(), 130);
}

TEST_F(RemoteTab, ChecksTheRemoteMachine) {
    click("checkRemote");
    ASSERT_TRUE(test::waitFor([&] { return tab->environmentKnown(); }, 30000));
    EXPECT_TRUE(tab->environmentText().startsWith("Checks on " + QString::fromStdString(server().target()) + ": "))
        << tab->environmentText().toStdString();
    EXPECT_FALSE(tab->environmentText().contains("unavailable:")) << tab->environmentText().toStdString();
    shot("remote-check.png");
}

TEST_F(RemoteTab, RemoteReportsAreListedAndFetched) {
    // A capture there, made by the CLI as a script would.
    QProcess p;
    p.start(cli(), {"profile", "--remote", QString::fromStdString(server().target()), "--remote-key",
                    QString::fromStdString(server().clientKey()), "--remote-sightline", cli(), "-q",
                    "-o", dir.filePath("first.rep"), client("exit_code"), "0"});
    ASSERT_TRUE(p.waitForFinished(60000));
    ASSERT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
    RemoteReportsDialog* d = tab->openRemoteReports();
    ASSERT_NE(d, nullptr);
    ASSERT_TRUE(test::waitFor([&] { return !d->isBusy(); }, 30000));
    ASSERT_GE(d->rows(), 1) << d->messageText().toStdString();
    EXPECT_EQ(d->stateAt(0), "finished");
    const QString id = d->idAt(0);
    d->findChild<QLineEdit*>("fetchFolder")->setText(dir.path());
    shot("remote-reports.png", d);
    d->fetch(0);
    ASSERT_TRUE(test::waitFor([&] { return !d->isBusy(); }, 30000));
    EXPECT_EQ(reports, QStringList({dir.filePath(id + ".rep")})) << d->messageText().toStdString();
    EXPECT_TRUE(QFileInfo(dir.filePath(id + ".rep")).isFile());
}

TEST_F(RemoteTab, BrowsesTheRemoteDirectoriesForTheProgram) {
    RemoteBrowserDialog* d = tab->openRemoteBrowser(true);
    ASSERT_NE(d, nullptr);
    ASSERT_TRUE(test::waitFor([&] { return !d->isLoading(); }, 30000));
    EXPECT_EQ(d->errorText(), "");
    EXPECT_EQ(d->directory(), QString::fromStdString(server().home()));
    d->list(QFileInfo(client("exit_code")).path());
    ASSERT_TRUE(test::waitFor([&] { return !d->isLoading(); }, 30000));
    auto* list = d->findChild<QListWidget*>("remoteEntries");
    ASSERT_NE(list, nullptr);
    const auto found = list->findItems("exit_code", Qt::MatchExactly);
    ASSERT_EQ(found.size(), 1);
    list->setCurrentItem(found[0]);
    shot("remote-browser.png", d);
    d->accept();
    EXPECT_EQ(tab->settings().program, client("exit_code"));
}

TEST_F(RemoteTab, TheFormsBrowseButtonsBrowseTheRemoteMachine) {
    click("browseDirectory");
    auto* d = tab->findChild<RemoteBrowserDialog*>();
    ASSERT_NE(d, nullptr);
    ASSERT_TRUE(test::waitFor([&] { return !d->isLoading(); }, 30000));
    EXPECT_EQ(d->directory(), QString::fromStdString(server().home()));
    d->accept();
    EXPECT_EQ(tab->settings().workingDirectory, QString::fromStdString(server().home()));
    EXPECT_TRUE(tab->commandLine().contains("--remote-workdir=" + QString::fromStdString(server().home())))
        << tab->commandLine().toStdString();
}

TEST_F(RemoteTab, WrongKeySaysWhatToDo) {
    type("remoteKey", QString::fromStdString(server().wrongKey()));
    type("program", client("exit_code"));
    type("output", dir.filePath("never.rep"));
    click("start");
    ASSERT_TRUE(waitEnd(60000));
    EXPECT_TRUE(reports.isEmpty());
    EXPECT_TRUE(tab->errorText().contains("authentication")) << tab->errorText().toStdString();
    EXPECT_TRUE(tab->errorText().contains("--remote-key") || tab->logText().contains("--remote-key"))
        << tab->logText().toStdString();
}

namespace {

// A client config like the server's, with a known_hosts of this test's own (`known`: its text),
// so that trusting a key here leaves the other tests' files alone.
std::string configWithKnownHosts(const QTemporaryDir& dir, const std::string& known) {
    const std::string knownHosts = dir.filePath("known_hosts").toStdString();
    std::ofstream(knownHosts) << known;
    const std::string config = dir.filePath("ssh_config").toStdString();
    std::ofstream(config) << "Host *\n  UserKnownHostsFile " << knownHosts
                          << "\n  GlobalKnownHostsFile /dev/null\n  IdentitiesOnly yes\n"
                          << "  IdentityAgent none\n  IdentityFile /dev/null\n";
    return config;
}

QString readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

TEST_F(RemoteTab, AnUnknownHostKeyIsShownAndTrustedOnYes) {
    setenv("SIGHTLINE_SSH_CONFIG", configWithKnownHosts(dir, "").c_str(), 1);
    click("checkRemote");
    QMessageBox* box = nullptr;
    ASSERT_TRUE(test::waitFor([&] { return (box = tab->findChild<QMessageBox*>("hostKeyDialog")) && box->isVisible(); }, 30000))
        << tab->environmentText().toStdString();
    const std::string print = server().hostFingerprint();
    ASSERT_FALSE(print.empty());
    const QString port = QString::number(server().port());
    EXPECT_EQ(box->text(), "The authenticity of host '[127.0.0.1]:" + port + "' can't be established.\n"
                           "ED25519 key fingerprint is " + QString::fromStdString(print) + ".\nTrust it and connect?");
    shot("remote-host-key.png", box);
    EXPECT_FALSE(tab->environmentKnown());
    box->button(QMessageBox::Yes)->click();
    ASSERT_TRUE(test::waitFor([&] { return tab->environmentKnown(); }, 30000));
    EXPECT_TRUE(tab->environmentText().startsWith("Checks on " + QString::fromStdString(server().target()) + ": "))
        << tab->environmentText().toStdString();
    EXPECT_TRUE(readAll(dir.filePath("known_hosts")).contains("[127.0.0.1]:" + port));
    // Recorded: the next check asks nothing.
    click("checkRemote");
    EXPECT_FALSE(tab->environmentKnown());
    ASSERT_TRUE(test::waitFor([&] { return tab->environmentKnown(); }, 30000));
    EXPECT_EQ(tab->findChild<QMessageBox*>("hostKeyDialog"), nullptr);
    EXPECT_TRUE(tab->environmentText().startsWith("Checks on ")) << tab->environmentText().toStdString();
}

TEST_F(RemoteTab, AnUnknownHostKeyRefusedKeepsTheErrorThenStartTrustsIt) {
    setenv("SIGHTLINE_SSH_CONFIG", configWithKnownHosts(dir, "").c_str(), 1);
    type("program", client("exit_code"));
    type("output", dir.filePath("trusted.rep"));
    click("start");
    QMessageBox* box = nullptr;
    auto asked = [&] { return (box = tab->findChild<QMessageBox*>("hostKeyDialog")) && box->isVisible(); };
    ASSERT_TRUE(test::waitFor(asked, 30000)) << tab->logText().toStdString();
    EXPECT_TRUE(box->text().contains(QString::fromStdString(server().hostFingerprint()))) << box->text().toStdString();
    EXPECT_TRUE(tab->errorText().contains("not in known_hosts")) << tab->errorText().toStdString();
    box->button(QMessageBox::No)->click();
    QTest::qWait(300);
    EXPECT_TRUE(tab->errorText().contains("not in known_hosts")) << tab->errorText().toStdString();
    EXPECT_FALSE(tab->runner()->isRunning());
    EXPECT_TRUE(reports.isEmpty());
    EXPECT_EQ(readAll(dir.filePath("known_hosts")), "");
    // Start again, Yes: the capture runs and its report is copied.
    click("start");
    ASSERT_TRUE(test::waitFor(asked, 30000)) << tab->logText().toStdString();
    box->button(QMessageBox::Yes)->click();
    ASSERT_TRUE(test::waitFor([&] { return !reports.isEmpty(); }, 60000))
        << tab->errorText().toStdString() << tab->logText().toStdString();
    EXPECT_EQ(tab->errorText(), "");
    EXPECT_EQ(reports, QStringList({dir.filePath("trusted.rep")}));
    EXPECT_TRUE(tab->logText().contains("--remote-accept-new-host-key")) << tab->logText().toStdString();
}

TEST_F(RemoteTab, AChangedHostKeyIsNeverOffered) {
    // known_hosts holds another key for this host: possibly someone in between.
    const QString other = dir.filePath("other");
    ASSERT_EQ(QProcess::execute("ssh-keygen", {"-q", "-t", "ed25519", "-N", "", "-f", other}), 0);
    const QString pub = readAll(other + ".pub").section(' ', 0, 1);
    setenv("SIGHTLINE_SSH_CONFIG",
           configWithKnownHosts(dir, "[127.0.0.1]:" + std::to_string(server().port()) + " " + pub.toStdString() + "\n").c_str(), 1);
    click("checkRemote");
    ASSERT_TRUE(test::waitFor([&] { return tab->environmentKnown(); }, 30000));
    EXPECT_EQ(tab->findChild<QMessageBox*>("hostKeyDialog"), nullptr);
    EXPECT_TRUE(tab->environmentText().contains("CHANGED")) << tab->environmentText().toStdString();
}

TEST_F(RemoteTab, TheCopyBackShowsAProgressBar) {
    // Enough events for a report of some megabytes: the copy reports about every 1%.
    type("program", client("flood"));
    type("arguments", "4 150000");
    type("output", dir.filePath("big.rep"));
    auto* bar = tab->findChild<QProgressBar*>("copyProgress");
    ASSERT_NE(bar, nullptr);
    EXPECT_FALSE(bar->isVisible());
    int seenVisible = 0, seenHiddenWhileCopying = 0, lastValue = -1;
    bool partial = false;
    QObject::connect(tab->runner(), &CaptureRunner::progressChanged, tab.get(), [&] {
        const CaptureProgress& p = tab->runner()->progress();
        if (p.copyTotal() <= 0) return;
        if (!bar->isVisible()) ++seenHiddenWhileCopying;
        else ++seenVisible;
        EXPECT_EQ(bar->value(), int(p.copiedBytes() * 1000 / p.copyTotal()));
        EXPECT_GE(bar->value(), lastValue);
        lastValue = bar->value();
        if (p.copiedBytes() < p.copyTotal()) partial = true;
    });
    click("start");
    ASSERT_TRUE(waitEnd(120000)) << tab->logText().toStdString();
    ASSERT_EQ(tab->errorText(), "") << tab->logText().toStdString();
    EXPECT_GT(seenVisible, 1);
    EXPECT_EQ(seenHiddenWhileCopying, 0);
    EXPECT_TRUE(partial) << "the report was copied in one piece: " << QFileInfo(dir.filePath("big.rep")).size();
    EXPECT_EQ(lastValue, 1000);
    EXPECT_FALSE(bar->isVisible());
}

// The command line of a remote target, without a server.
TEST(RemoteCommandLine, TheTargetBecomesRemoteOptionsAndReadsBack) {
    CaptureSettings s;
    s.program = "/opt/app/train";
    s.arguments = {"--epochs", "2 3"};
    s.workingDirectory = "/data/run 1";
    s.remote = {"alice@gpu01:2222", "/home/a/.ssh/id_ed25519", "bastion", "/opt/sl/bin/sightline"};
    const QStringList a = ProfileCommandBuilder::arguments(s);
    for (const char* want : {"--remote=alice@gpu01:2222", "--remote-key=/home/a/.ssh/id_ed25519",
                             "--remote-jump=bastion", "--remote-sightline=/opt/sl/bin/sightline",
                             "--remote-workdir=/data/run 1"})
        EXPECT_TRUE(a.contains(want)) << want;
    EXPECT_EQ(a.mid(a.size() - 3), QStringList({"/opt/app/train", "--epochs", "2 3"}));
    // The directory is there, not here: no "cd" in front.
    const QString shown = ProfileCommandBuilder::displayCommand("sightline", s);
    EXPECT_TRUE(shown.startsWith("sightline profile ")) << shown.toStdString();
    EXPECT_TRUE(shown.contains("'--remote-workdir=/data/run 1'")) << shown.toStdString();
    // Presets keep the target.
    auto back = ProfileCommandBuilder::parse(a);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->remote, s.remote);
    EXPECT_EQ(back->workingDirectory, s.workingDirectory);
    EXPECT_EQ(back->program, s.program);
    // This computer: none of them.
    s.remote = {};
    for (const QString& w : ProfileCommandBuilder::arguments(s)) EXPECT_FALSE(w.startsWith("--remote")) << w.toStdString();
}

// The CLI's JSON for an ssh failure, read as the tab reads it (no server): only an unknown host
// key with a fingerprint may be trusted, never a changed one.
TEST(RemoteHostKey, TheClassificationReachesTheTabAsData) {
    sl::remote::SshTarget t;
    t.user = "alice";
    t.host = "gpu \"01\"";
    t.port = 2222;
    const std::string prints = "256 SHA256:abc/+= [gpu \"01\"]:2222 (ED25519)\n3072 SHA256:def [gpu \"01\"]:2222 (RSA)\n";
    auto unknown = SshFailureInfo::parse(QByteArray::fromStdString(
        sl::remote::sshFailureJson(t, sl::remote::SshFailure::UnknownHostKey, prints)));
    ASSERT_TRUE(unknown.has_value());
    EXPECT_EQ(unknown->failure, "unknown_host_key");
    EXPECT_EQ(unknown->host, "gpu \"01\"");
    EXPECT_EQ(unknown->port, 2222);
    EXPECT_EQ(unknown->knownHostsName, "[gpu \"01\"]:2222");
    ASSERT_EQ(unknown->keys.size(), 2);
    EXPECT_EQ(unknown->keys[0].bits, 256);
    EXPECT_EQ(unknown->keys[0].fingerprint, "SHA256:abc/+=");
    EXPECT_EQ(unknown->keys[1].type, "RSA");
    EXPECT_TRUE(unknown->canTrustHostKey());
    EXPECT_EQ(hostKeyQuestion(*unknown), "The authenticity of host '[gpu \"01\"]:2222' can't be established.\n"
                                         "ED25519 key fingerprint is SHA256:abc/+=.\n"
                                         "RSA key fingerprint is SHA256:def.\nTrust it and connect?");
    // Without a fingerprint (ssh-keyscan failed) there is nothing to confirm.
    auto blind = SshFailureInfo::parse(QByteArray::fromStdString(
        sl::remote::sshFailureJson(t, sl::remote::SshFailure::UnknownHostKey, "")));
    ASSERT_TRUE(blind.has_value());
    EXPECT_FALSE(blind->canTrustHostKey());
    auto changed = SshFailureInfo::parse(QByteArray::fromStdString(
        sl::remote::sshFailureJson(t, sl::remote::SshFailure::ChangedHostKey, prints)));
    ASSERT_TRUE(changed.has_value());
    EXPECT_EQ(changed->failure, "changed_host_key");
    EXPECT_TRUE(changed->keys.isEmpty());
    EXPECT_FALSE(changed->canTrustHostKey());
    EXPECT_FALSE(SshFailureInfo::parse("").has_value());
    EXPECT_FALSE(SshFailureInfo::parse("{\"event\":\"copy\"}").has_value());
}

TEST(RemoteCommandLine, RemoteProgramsAreNotLookedForHereButTheTargetIsChecked) {
    CaptureSettings s;
    s.program = "/only/on/the/server";
    s.workingDirectory = "/nor/this";
    s.remote.host = "alice@gpu01";
    EXPECT_EQ(ProfileCommandBuilder::validate(s), QStringList());
    s.remote.host = " ";
    EXPECT_EQ(ProfileCommandBuilder::validate(s).size(), 1);
    s.remote.host = "alice@gpu01:port";
    EXPECT_TRUE(ProfileCommandBuilder::validate(s).join(' ').contains("user@host[:port]"));
    s.remote.host = "alice@[fe80::1]:22";
    EXPECT_EQ(ProfileCommandBuilder::validate(s), QStringList());
    s.remote.keyFile = "/no/such/key";
    EXPECT_TRUE(ProfileCommandBuilder::validate(s).join(' ').contains("cannot be read"));
}

// A laptop without a GPU capturing on a GPU server: this machine's missing CUDA driver must not
// grey out the CUDA options of a remote capture (the remote machine's checks say what it lacks);
// back on this computer they are disabled again with the reason.
TEST(RemoteCapabilities, TheLocalDriverDoesNotDecideForARemoteTarget) {
    if (CaptureCapabilities::libraryProblem("libcuda.so.1").isEmpty())
        GTEST_SKIP() << "this machine has a CUDA driver: CUDA is offered either way";
    QTemporaryDir dir;
    test::isolateSettings(dir.filePath("settings"));
    CaptureTab tab;
    tab.setProfilerPath(cli());
    tab.show();
    ASSERT_TRUE(test::waitFor([&] { return tab.capabilitiesKnown(); }));
    QProcess listing;
    listing.start(cli(), {"profile", "--list-options", "--format", "json"});
    ASSERT_TRUE(listing.waitForFinished(30000));
    if (!CaptureCapabilities::helpOffersCuda(QString::fromUtf8(listing.readAllStandardOutput())))
        GTEST_SKIP() << "this sightline is built without CUDA capture";
    auto* cuda = tab.findChild<QCheckBox*>("trace-cuda");
    ASSERT_NE(cuda, nullptr);
    EXPECT_FALSE(cuda->isEnabled());
    auto* target = tab.findChild<QComboBox*>("target");
    target->setCurrentIndex(1);
    EXPECT_TRUE(cuda->isEnabled());
    target->setCurrentIndex(0);
    EXPECT_FALSE(cuda->isEnabled());
}
