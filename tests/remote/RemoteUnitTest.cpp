// The pieces of remote capture that need no server: quoting for the remote shell (checked by a
// real /bin/sh), parsing user@host[:port], reading ssh's messages, the version rule, the session
// listing, the local report names.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "app/remote/RemoteSession.h"
#include "app/remote/RemoteVersion.h"
#include "app/remote/ReportCopy.h"
#include "app/remote/ShellQuote.h"
#include "app/remote/SshSession.h"
#include "app/remote/SshErrors.h"
#include "app/remote/SshTarget.h"
#include "app/remote/Subprocess.h"
#include "model/rep/FormatVersion.h"

namespace {

using namespace sl::remote;
namespace fs = std::filesystem;

TEST(ShellQuote, TheShellSplitsTheLineBackIntoTheSameWords) {
    const std::vector<std::string> words = {"plain", "a b", "it's", "$HOME", "x;y", "\"q\"", "",
                                            "`id`", "back\\slash", "new\nline", "*", "~", "a'b'c", "-n"};
    auto r = runProgram({"/bin/sh", "-c", "for w in " + shellJoin(words) + "; do printf '<%s>' \"$w\"; done"});
    ASSERT_TRUE(r.ok());
    std::string expected;
    for (const auto& w : words) expected += "<" + w + ">";
    EXPECT_EQ(r->out, expected);
    EXPECT_EQ(shellQuote("/usr/bin/prog"), "/usr/bin/prog");  // readable where nothing is special
    EXPECT_EQ(shellQuote("it's"), "'it'\\''s'");
}

TEST(SshTarget, ParsesUserHostAndPort) {
    auto t = parseTarget("alice@gpu01:2222");
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->user, "alice");
    EXPECT_EQ(t->host, "gpu01");
    EXPECT_EQ(t->port, 2222);
    EXPECT_EQ(t->destination(), "alice@gpu01");
    EXPECT_EQ(t->display(), "alice@gpu01:2222");
    auto plain = parseTarget("gpu01");
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(plain->user, "");
    EXPECT_EQ(plain->port, 0);
    auto v6 = parseTarget("bob@[fe80::1]:22");
    ASSERT_TRUE(v6.ok());
    EXPECT_EQ(v6->host, "fe80::1");
    EXPECT_EQ(v6->port, 22);
    EXPECT_EQ(v6->display(), "bob@[fe80::1]:22");
    auto bare6 = parseTarget("::1");
    ASSERT_TRUE(bare6.ok());
    EXPECT_EQ(bare6->host, "::1");
    EXPECT_EQ(bare6->port, 0);
}

TEST(SshTarget, RefusesWhatSshWouldMisread) {
    for (const char* bad : {"", "host:", "host:99999", "host:0", "host:2a", "@host", "-oProxyCommand=x",
                            "a b", "[::1", "[::1]x", "user@"}) {
        SCOPED_TRACE(bad);
        auto t = parseTarget(bad);
        EXPECT_FALSE(t.ok());
        if (!t.ok()) {
            EXPECT_FALSE(t.error().empty());
        }
    }
}

TEST(SshErrors, ReadsOpenSshMessages) {
    EXPECT_EQ(classifySshFailure("root@127.0.0.1: Permission denied (publickey).\r\n"), SshFailure::Authentication);
    EXPECT_EQ(classifySshFailure("No ED25519 host key is known for [127.0.0.1]:2222 and you have requested "
                                 "strict checking.\r\nHost key verification failed.\r\n"),
              SshFailure::UnknownHostKey);
    EXPECT_EQ(classifySshFailure("@@@@\r\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r\n"
                                 "Host key verification failed.\r\n"),
              SshFailure::ChangedHostKey);
    EXPECT_EQ(classifySshFailure("ssh: connect to host 10.0.0.9 port 22: No route to host\r\n"), SshFailure::Unreachable);
    EXPECT_EQ(classifySshFailure("ssh: Could not resolve hostname nope: Name or service not known\r\n"),
              SshFailure::Unreachable);
    EXPECT_EQ(classifySshFailure("something new\r\n"), SshFailure::Other);
    SshTarget t;
    t.host = "gpu01";
    t.port = 2222;
    const std::string changed = explainSshFailure(t, "REMOTE HOST IDENTIFICATION HAS CHANGED", "");
    EXPECT_NE(changed.find("ssh-keygen -R '[gpu01]:2222'"), std::string::npos) << changed;
    const std::string other = explainSshFailure(t, "weird\n", "");
    EXPECT_NE(other.find("(ssh: weird)"), std::string::npos) << other;
    EXPECT_NE(other.find("ssh -p 2222 gpu01 true"), std::string::npos) << other;
    // ssh's own "ssh: " prefix is not doubled in ours.
    const std::string refused = explainSshFailure(t, "ssh: connect to host gpu01 port 2222: Connection refused\r\n", "");
    EXPECT_NE(refused.find("(ssh: connect to host gpu01 port 2222: Connection refused)"), std::string::npos) << refused;
    EXPECT_EQ(refused.find("ssh: ssh:"), std::string::npos) << refused;
    // The key is added to the known_hosts file ssh uses, not always ~/.ssh/known_hosts.
    const std::string unknown = explainSshFailure(t, "Host key verification failed.\r\n", "", "/etc/kh file");
    EXPECT_NE(unknown.find("ssh-keyscan -p 2222 gpu01 >> '/etc/kh file'"), std::string::npos) << unknown;
    const std::string generic = explainSshFailure(t, "Host key verification failed.\r\n", "");
    EXPECT_NE(generic.find("the known_hosts file ssh uses"), std::string::npos) << generic;
}

TEST(SshTarget, CommandOptionsRepeatWhatReachesTheHost) {
    SshTarget t;
    t.user = "alice";
    t.host = "gpu01";
    t.port = 2222;
    EXPECT_EQ(t.commandOptions(), "--remote alice@gpu01:2222");
    t.keyFile = "/k/my key";
    t.configFile = "/c/cfg";
    t.jumpHost = "bastion";
    EXPECT_EQ(t.commandOptions(), "--remote alice@gpu01:2222 --remote-key '/k/my key' --remote-ssh-config /c/cfg "
                                  "--remote-jump bastion");
}

TEST(RemoteVersion, FollowsTheReportFormatsCompatibilityRule) {
    auto probe = [](const std::string& json) {
        return parseProbe("motd noise\nsl-probe:path /opt/sl/bin/sightline\nsl-probe:version sightline 9.9.9\n"
                          "sl-probe:json " + json + "\n",
                          "gpu01", "");
    };
    auto same = probe(selfVersionJson());
    ASSERT_TRUE(same.ok()) << same.error();
    EXPECT_EQ(same->path, "/opt/sl/bin/sightline");
    EXPECT_EQ(same->version, "9.9.9");
    EXPECT_TRUE(checkCompatible(*same, "gpu01").ok());
    // A newer writer whose files older readers can still read: allowed.
    auto newer = probe("{\"version\":\"9.9.9\",\"format_version\":" + std::to_string(sl::kFormatVersion + 1) +
                       ",\"min_reader_version\":" + std::to_string(sl::kFormatVersion) + ",\"remote_protocol\":1}");
    ASSERT_TRUE(newer.ok());
    EXPECT_TRUE(checkCompatible(*newer, "gpu01").ok());
    // A writer whose files need a newer reader: refused, with the fix.
    auto unreadable = probe("{\"version\":\"9.9.9\",\"format_version\":" + std::to_string(sl::kFormatVersion + 1) +
                            ",\"min_reader_version\":" + std::to_string(sl::kFormatVersion + 1) +
                            ",\"remote_protocol\":1}");
    ASSERT_TRUE(unreadable.ok());
    const sl::Status s = checkCompatible(*unreadable, "gpu01");
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().find("update this computer's sightline to 9.9.9"), std::string::npos) << s.error();
    // No machine-readable answer: an install older than remote capture.
    auto old = parseProbe("sl-probe:path /usr/bin/sightline\nsl-probe:version sightline 0.0.1\nsl-probe:json \n", "gpu01", "");
    ASSERT_TRUE(old.ok());
    EXPECT_NE(checkCompatible(*old, "gpu01").error().find("too old"), std::string::npos);
    auto missing = parseProbe("sl-probe:missing /usr/bin:/bin\n", "gpu01", "");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("not installed on gpu01"), std::string::npos);
    auto notUs = parseProbe("sl-probe:path /usr/bin/x\nsl-probe:version x 1.0\n", "gpu01", "/usr/bin/x");
    ASSERT_FALSE(notUs.ok());
    EXPECT_NE(notUs.error().find("is not sightline"), std::string::npos);
}

TEST(RemoteSession, ListingIsReadBackWithReportsInOrder) {
    const std::string out =
        "sl-session:20261127-031500-3fa9c2 finished 130 4242 2026-11-27T03:15:00Z\n"
        "sl-command:20261127-031500-3fa9c2 /bin/prog 'a b'\n"
        "sl-report:20261127-031500-3fa9c2 200 /h/.cache/sightline/remote/20261127-031500-3fa9c2/report.rep\n"
        "sl-report:20261127-031500-3fa9c2 100 /h/.cache/sightline/remote/20261127-031500-3fa9c2/report.10.rep\n"
        "sl-report:20261127-031500-3fa9c2 50 /h/.cache/sightline/remote/20261127-031500-3fa9c2/report.2.rep\n"
        "sl-session:20261127-031600-000001 running - 77 2026-11-27T03:16:00Z\n"
        "sl-session:../etc running - 1 x\n";
    const auto s = parseList(out);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].state, "finished");
    EXPECT_EQ(s[0].exitCode, 130);
    EXPECT_EQ(s[0].pid, 4242);
    EXPECT_EQ(s[0].command, "/bin/prog 'a b'");
    ASSERT_EQ(s[0].reports.size(), 3u);
    EXPECT_EQ(s[0].reports[0].bytes, 200u);
    EXPECT_EQ(s[0].reports[1].bytes, 50u);
    EXPECT_EQ(s[0].reports[2].bytes, 100u);
    EXPECT_EQ(s[1].state, "running");
    EXPECT_EQ(s[1].exitCode, -1);
    EXPECT_TRUE(validSessionId(newSessionId()));
    EXPECT_FALSE(validSessionId("../x"));
    EXPECT_FALSE(validSessionId("-rf"));
}

TEST(ReportCopy, LocalNamesExpandTheRemoteHostAndPid) {
    auto name = localReportName("out-%h-%p-%%", "gpu01", 4242, 0);
    ASSERT_TRUE(name.ok()) << name.error();
    EXPECT_EQ(*name, "out-gpu01-4242-%.rep");
    auto second = localReportName("/tmp/x.rep", "gpu01", 1, 2);
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(*second, "/tmp/x.2.rep");
    EXPECT_FALSE(localReportName("bad%z", "h", 1, 0).ok());
}

TEST(ReportCopy, LocalOutputIsCheckedBeforeTheCapture) {
    char templ[] = "/tmp/sl-remote-unit-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    const std::string dir = templ;
    EXPECT_TRUE(checkLocalOutput(dir + "/new.rep", false).ok());
    std::ofstream(dir + "/old.rep") << "x";
    EXPECT_FALSE(checkLocalOutput(dir + "/old.rep", false).ok());
    EXPECT_TRUE(checkLocalOutput(dir + "/old.rep", true).ok());
    EXPECT_FALSE(checkLocalOutput(dir + "/missing/x.rep", true).ok());
    if (geteuid() != 0) {
        fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
        EXPECT_FALSE(checkLocalOutput(dir + "/new.rep", false).ok());
        fs::permissions(dir, fs::perms::owner_all);
    }
    fs::remove_all(dir);
}

TEST(SessionList, ASessionWithoutAReportIsNoError) {
    // The script run by a real sh in a fake home: the last session listed has no report yet.
    char templ[] = "/tmp/sl-list-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    const std::string home = templ;
    const std::string dir = home + "/.cache/sightline/remote/";
    for (const char* id : {"20261127-031500-aaaaaa", "20261127-031600-bbbbbb"}) {
        fs::create_directories(dir + id);
        std::ofstream(dir + id + "/run.sh") << "#\n";
    }
    std::ofstream(dir + "20261127-031500-aaaaaa/report.rep") << "abc";
    std::ofstream(dir + "20261127-031500-aaaaaa/exit") << "0\n";
    std::ofstream(dir + "20261127-031500-aaaaaa/progress.jsonl")
        << "{\"event\":\"started\",\"pid\":4242,\"command\":[\"sh\",\"\\\"pid\\\":7\"]}\n"
           "{\"event\":\"finished\",\"exit_code\":0}\n";
    std::ofstream(dir + "20261127-031500-aaaaaa/pid") << "4240\n";
    auto r = runProgram({"/usr/bin/env", "HOME=" + home, "/bin/sh", "-c", listScript()});
    fs::remove_all(home);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->code, 0) << r->err;
    const auto s = parseList(r->out);
    ASSERT_EQ(s.size(), 2u) << r->out;
    EXPECT_EQ(s[0].reports.size(), 1u);
    // %p is the program's pid (the "started" line), not the remote sightline's.
    EXPECT_EQ(s[0].pid, 4240);
    EXPECT_EQ(s[0].programPid, 4242);
    EXPECT_EQ(s[0].reportPid(), 4242);
    EXPECT_EQ(s[1].programPid, 0);
    EXPECT_EQ(s[1].state, "starting");
    EXPECT_TRUE(s[1].reports.empty());
}

TEST(SessionList, AFailureAlwaysHasAReason) {
    EXPECT_EQ(failureReason(Ran{2, "", "  cd: no such file\n"}), "cd: no such file");
    EXPECT_EQ(failureReason(Ran{1, "", ""}), "exit code 1, nothing on stderr");
    EXPECT_EQ(failureReason(Ran{1, "partial\n", ""}), "exit code 1, nothing on stderr; its output ended: partial");
    EXPECT_NE(failureReason(Ran{255, "", ""}).find("connection"), std::string::npos);
}

}  // namespace
