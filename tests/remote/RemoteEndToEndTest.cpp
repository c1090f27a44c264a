// `sightline profile --remote` and `sightline remote ...`, the real binary against a real sshd on
// 127.0.0.1 (SshServer.h): capture, arguments, live output, progress, Stop, a lost connection and
// a later fetch, and each error a user meets (wrong key, unknown host key, no sightline there, an
// old one, an unwritable local output, an unreachable host). Skips only where sshd cannot run.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "app/remote/Subprocess.h"
#include "tests/remote/SshServer.h"

namespace {

namespace fs = std::filesystem;
using sl::remote::runProgram;
using sl::test::SshServer;

const std::string kCli = SIGHTLINE_CLI;
const std::string kClients = SIGHTLINE_CLIENTS;

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// One server for the whole suite (keys and a start cost about a second); the tests that kill it
// start it again.
SshServer& server() {
    static SshServer s;
    return s;
}

class RemoteCapture : public ::testing::Test {
protected:
    void SetUp() override {
        if (!server().unavailable().empty()) GTEST_SKIP() << "sshd cannot run here: " << server().unavailable();
        setenv("SIGHTLINE_SSH_CONFIG", server().sshConfig().c_str(), 1);
        char templ[] = "/tmp/sl-remote-test-XXXXXX";
        ASSERT_NE(mkdtemp(templ), nullptr);
        m_local = templ;
    }
    void TearDown() override {
        std::error_code ec;
        if (!m_local.empty()) fs::remove_all(m_local, ec);
    }

    // `sightline ARGS` to its end (at most two minutes).
    sl::remote::Ran sightline(std::vector<std::string> args) {
        args.insert(args.begin(), {"timeout", "120", kCli});
        auto r = runProgram(args);
        EXPECT_TRUE(r.ok());
        return r ? *r : sl::remote::Ran{-1, "", ""};
    }
    // profile --remote with the client key and this build's sightline there.
    std::vector<std::string> profile(std::vector<std::string> more) {
        // -s none: these tests are about the way there and back, not about sampling (faster too).
        std::vector<std::string> a = {"profile", "--remote", server().target(), "--remote-key",
                                      server().clientKey(), "--remote-sightline", kCli, "-s", "none"};
        a.insert(a.end(), more.begin(), more.end());
        return a;
    }
    std::vector<std::string> remote(const std::string& what, std::vector<std::string> more = {}) {
        std::vector<std::string> a = {"remote", what, "--remote", server().target(), "--remote-key",
                                      server().clientKey()};
        a.insert(a.end(), more.begin(), more.end());
        return a;
    }
    // The session id a remote profile printed ("session 20261127-031500-3fa9c2").
    static std::string sessionId(const std::string& err) {
        std::smatch m;
        return std::regex_search(err, m, std::regex("session ([0-9]{8}-[0-9]{6}-[0-9a-f]{6})")) ? m[1].str() : "";
    }
    std::string m_local;
};

// A running `sightline` whose stderr is read until a marker appears.
struct Running {
    sl::remote::Child child;
    std::string out, err;
    bool readUntil(const std::string& marker, int seconds) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        while (err.find(marker) == std::string::npos && out.find(marker) == std::string::npos) {
            if (std::chrono::steady_clock::now() > end) return false;
            if (!pump(200)) return err.find(marker) != std::string::npos || out.find(marker) != std::string::npos;
        }
        return true;
    }
    // Reads what is there; false when both streams ended.
    bool pump(int ms) {
        pollfd fds[2] = {{child.out, POLLIN, 0}, {child.err, POLLIN, 0}};
        if (fds[0].fd < 0 && fds[1].fd < 0) return false;
        poll(fds, 2, ms);
        char buf[4096];
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
            const ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n <= 0) {
                close(fds[i].fd);
                (i == 0 ? child.out : child.err) = -1;
            } else {
                (i == 0 ? out : err).append(buf, static_cast<size_t>(n));
            }
        }
        return true;
    }
    int finish() {
        while (pump(200)) {
        }
        return sl::remote::waitChild(child.pid);
    }
};

Running startSightline(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {kCli};
    argv.insert(argv.end(), args.begin(), args.end());
    auto c = sl::remote::spawn(argv, {});
    EXPECT_TRUE(c.ok());
    return Running{c ? *c : sl::remote::Child{}, "", ""};
}

TEST_F(RemoteCapture, CapturesAProgramAndCopiesTheReportBackWithItsExitCode) {
    const auto r = sightline(profile({"-o", m_local + "/run-%h-%p", kClients + "/exit_code", "7"}));
    EXPECT_EQ(r.code, 7) << r.err;
    std::vector<fs::path> reports;
    for (const auto& e : fs::directory_iterator(m_local)) reports.push_back(e.path());
    ASSERT_EQ(reports.size(), 1u) << r.err;
    // %h is the host the capture ran on, %p the program's pid there.
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    EXPECT_EQ(reports[0].filename().string().rfind(std::string("run-") + host + "-", 0), 0u) << reports[0];
    EXPECT_EQ(reports[0].extension(), ".rep");
    const auto info = sightline({"info", reports[0].string()});
    EXPECT_EQ(info.code, 0) << info.err;
    EXPECT_NE(info.out.find("exit_code 7"), std::string::npos) << info.out;
    EXPECT_NE(r.err.find("copied"), std::string::npos) << r.err;
}

TEST_F(RemoteCapture, ArgumentsReachTheRemoteProgramUnchanged) {
    const std::vector<std::string> words = {"a b", "it's", "$HOME", "x;y", "\"q\"", "", "`id`", "tab\there"};
    std::vector<std::string> args = {"-q", "-o", m_local + "/args", "/usr/bin/printf", "<%s>\\n"};
    args.insert(args.end(), words.begin(), words.end());
    const auto r = sightline(profile(args));
    ASSERT_EQ(r.code, 0) << r.err;
    std::string expected;
    for (const auto& w : words) expected += "<" + w + ">\n";
    EXPECT_EQ(r.out, expected);
}

TEST_F(RemoteCapture, ProgramOutputIsShownWhileItRuns) {
    auto run = startSightline(profile({"-q", "-o", m_local + "/live", "/bin/sh", "-c",
                                       "echo first; echo to-stderr >&2; sleep 4; echo second"}));
    ASSERT_TRUE(run.readUntil("first", 30)) << run.err;
    // The program still runs: "second" is four seconds away.
    EXPECT_EQ(waitpid(run.child.pid, nullptr, WNOHANG), 0);
    EXPECT_EQ(run.out.find("second"), std::string::npos);
    EXPECT_EQ(run.finish(), 0) << run.err;
    EXPECT_EQ(run.out, "first\nsecond\n");
    EXPECT_NE(run.err.find("to-stderr"), std::string::npos);
    EXPECT_TRUE(fs::exists(m_local + "/live.rep"));
}

TEST_F(RemoteCapture, ProgressChannelNamesTheLocalReport) {
    const std::string progress = m_local + "/progress.jsonl";
    std::vector<std::string> inner = profile({"-q", "--progress-fd", "3", "-o", m_local + "/p", kClients + "/exit_code", "0"});
    std::vector<std::string> args = {"timeout", "120", "/bin/sh", "-c", "exec \"$0\" \"$@\" 3>" + progress, kCli};
    args.insert(args.end(), inner.begin(), inner.end());
    auto r = runProgram(args);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->code, 0) << r->err;
    const std::string lines = readFile(progress);
    EXPECT_NE(lines.find("\"event\":\"started\""), std::string::npos) << lines;
    EXPECT_NE(lines.find("\"event\":\"copy\""), std::string::npos) << lines;
    EXPECT_NE(lines.find("{\"event\":\"report\",\"path\":\"" + m_local + "/p.rep\""), std::string::npos) << lines;
    EXPECT_NE(lines.find("{\"event\":\"finished\",\"exit_code\":0}"), std::string::npos) << lines;
    // The remote paths stay there: the only report line names the local copy.
    EXPECT_EQ(lines.find("\"event\":\"report\""), lines.rfind("\"event\":\"report\"")) << lines;
}

TEST_F(RemoteCapture, StopEndsTheRemoteProgramAndKeepsAndCopiesTheReport) {
    auto run = startSightline(profile({"-o", m_local + "/stopped", kClients + "/sleeper"}));
    ASSERT_TRUE(run.readUntil("capture running", 30)) << run.err;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    kill(run.child.pid, SIGINT);
    const int code = run.finish();
    EXPECT_EQ(code, 130) << run.err;  // the program's end by SIGINT, as a local capture says it
    EXPECT_NE(run.err.find("stopping the capture"), std::string::npos) << run.err;
    ASSERT_TRUE(fs::exists(m_local + "/stopped.rep")) << run.err;
    const auto info = sightline({"info", m_local + "/stopped.rep"});
    EXPECT_EQ(info.code, 0) << info.err;
    EXPECT_NE(info.out.find("NVTX ranges"), std::string::npos) << info.out;  // the sleeper's ticks
    EXPECT_NE(info.out.find("signal 2"), std::string::npos) << info.out;     // ended by the Stop
    const auto list = sightline(remote("list"));
    EXPECT_NE(list.out.find(sessionId(run.err) + "  finished   130"), std::string::npos) << list.out;
}

TEST_F(RemoteCapture, LostConnectionLeavesTheCaptureRunningAndFetchGetsItLater) {
    auto run = startSightline(profile({"--duration", "4", "-o", m_local + "/never", kClients + "/sleeper"}));
    ASSERT_TRUE(run.readUntil("capture running", 30)) << run.err;
    const std::string id = sessionId(run.err);
    ASSERT_FALSE(id.empty()) << run.err;
    server().kill();
    const int code = run.finish();
    ASSERT_TRUE(server().start()) << server().unavailable();
    EXPECT_EQ(code, 1) << run.err;
    EXPECT_NE(run.err.find("was lost; the capture goes on there"), std::string::npos) << run.err;
    // The hint repeats the options that reach the host, so it can be pasted as it is.
    EXPECT_NE(run.err.find("sightline remote fetch --remote " + server().target() + " --remote-key " +
                           server().clientKey() + " --remote-ssh-config " + server().sshConfig() +
                           " --remote-sightline " + kCli + " " + id),
              std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(m_local + "/never.rep"));
    // Fetching too early says so; after the --duration it is there.
    std::string listed;
    for (int i = 0; i < 60 && listed.find(id + "  finished") == std::string::npos; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        listed = sightline(remote("list")).out;
    }
    ASSERT_NE(listed.find(id + "  finished"), std::string::npos) << listed;
    const auto fetched = sightline(remote("fetch", {id, "-o", m_local + "/later.rep"}));
    EXPECT_EQ(fetched.code, 0) << fetched.err;
    EXPECT_EQ(fetched.out, m_local + "/later.rep\n");
    EXPECT_EQ(sightline({"info", m_local + "/later.rep"}).code, 0);
    // A second fetch to the same name refuses to overwrite without -f.
    const auto again = sightline(remote("fetch", {id, "-o", m_local + "/later.rep"}));
    EXPECT_EQ(again.code, 1);
    EXPECT_NE(again.err.find("--force-overwrite"), std::string::npos) << again.err;
}

TEST_F(RemoteCapture, FetchOfARunningCaptureSaysHowToStopIt) {
    auto run = startSightline(profile({"-o", m_local + "/running", kClients + "/sleeper"}));
    ASSERT_TRUE(run.readUntil("capture running", 30)) << run.err;
    const std::string id = sessionId(run.err);
    const auto early = sightline(remote("fetch", {id, "-o", m_local + "/early.rep"}));
    EXPECT_EQ(early.code, 1);
    EXPECT_NE(early.err.find("still running"), std::string::npos) << early.err;
    EXPECT_NE(early.err.find("sightline remote stop"), std::string::npos) << early.err;
    // `remote stop` is the same Stop as Ctrl+C: the attached profile copies the report.
    const auto stop = sightline(remote("stop", {id}));
    EXPECT_EQ(stop.code, 0) << stop.err;
    EXPECT_EQ(run.finish(), 130) << run.err;
    EXPECT_TRUE(fs::exists(m_local + "/running.rep"));
}

TEST_F(RemoteCapture, ListShowsARunningCaptureWhoseReportIsNotWrittenYet) {
    // The newest session has no report yet: the listing must still succeed and say "running".
    auto run = startSightline(profile({"-o", m_local + "/listed", kClients + "/sleeper"}));
    ASSERT_TRUE(run.readUntil("capture running", 30)) << run.err;
    const std::string id = sessionId(run.err);
    ASSERT_FALSE(id.empty()) << run.err;
    const auto list = sightline(remote("list"));
    EXPECT_EQ(list.code, 0) << list.err;
    EXPECT_NE(list.out.find(id + "  running"), std::string::npos) << list.out;
    const auto json = sightline(remote("list", {"--format", "json"}));
    EXPECT_EQ(json.code, 0) << json.err;
    EXPECT_NE(json.out.find("{\"id\":\"" + id + "\",\"state\":\"running\""), std::string::npos) << json.out;
    EXPECT_EQ(sightline(remote("stop", {id})).code, 0);
    EXPECT_EQ(run.finish(), 130) << run.err;
}

TEST_F(RemoteCapture, MissingRemoteWorkdirIsRefusedBeforeTheCaptureStarts) {
    const auto before = sightline(remote("list", {"--format", "json"})).out;
    const auto r = sightline(profile({"--remote-workdir", "/nonexist", "-o", m_local + "/wd", kClients + "/exit_code", "0"}));
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("/nonexist does not exist on " + server().target()), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("capturing on"), std::string::npos) << r.err;
    std::ofstream(server().home() + "/plain-file") << "x";
    const auto file = sightline(profile({"--remote-workdir", "plain-file", "-o", m_local + "/wd", kClients + "/exit_code", "0"}));
    EXPECT_EQ(file.code, 1);
    EXPECT_NE(file.err.find("plain-file is not a directory"), std::string::npos) << file.err;
    EXPECT_EQ(sightline(remote("list", {"--format", "json"})).out, before);
    EXPECT_FALSE(fs::exists(m_local + "/wd.rep"));
    // An existing one, relative to the remote home, is where the program runs.
    fs::create_directories(server().home() + "/work here");
    const auto ok = sightline(profile({"-q", "--remote-workdir", "work here", "-o", m_local + "/wd", "/bin/pwd"}));
    EXPECT_EQ(ok.code, 0) << ok.err;
    EXPECT_EQ(ok.out, server().home() + "/work here\n");
}

TEST_F(RemoteCapture, PercentPIsTheRemoteProgramsPid) {
    const auto r = sightline(profile({"-q", "-o", m_local + "/rem_%p", "/bin/sh", "-c", "echo pid=$$"}));
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_EQ(r.out.rfind("pid=", 0), 0u) << r.out;
    const std::string pid = r.out.substr(4, r.out.find('\n') - 4);
    EXPECT_TRUE(fs::exists(m_local + "/rem_" + pid + ".rep")) << r.out;
    // `remote fetch` names it the same way.
    const std::string list = sightline(remote("list")).out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(list, m, std::regex("([0-9]{8}-[0-9]{6}-[0-9a-f]{6}) +finished"))) << list;
    const auto fetched = sightline(remote("fetch", {m[1].str(), "-o", m_local + "/f_%p"}));
    EXPECT_EQ(fetched.code, 0) << fetched.err;
    EXPECT_EQ(fetched.out, m_local + "/f_" + pid + ".rep\n");
}

TEST_F(RemoteCapture, StopOfAFinishedCaptureSaysItHasEnded) {
    const auto r = sightline(profile({"-o", m_local + "/done", kClients + "/exit_code", "0"}));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string id = sessionId(r.err);
    const auto stop = sightline(remote("stop", {id}));
    EXPECT_EQ(stop.code, 1);
    EXPECT_NE(stop.err.find("the capture " + id + " on " + server().target() + " has already ended"), std::string::npos)
        << stop.err;
    EXPECT_EQ(stop.err.find("kill:"), std::string::npos) << stop.err;
    const auto none = sightline(remote("stop", {"20000101-000000-000000"}));
    EXPECT_EQ(none.code, 1);
    EXPECT_NE(none.err.find("there is no capture 20000101-000000-000000"), std::string::npos) << none.err;
    // fetch to an existing name: nothing about "started", it is a fetch.
    const auto again = sightline(remote("fetch", {id, "-o", m_local + "/done.rep"}));
    EXPECT_EQ(again.code, 1);
    EXPECT_NE(again.err.find("--force-overwrite"), std::string::npos) << again.err;
    EXPECT_EQ(again.err.find("nothing was started"), std::string::npos) << again.err;
}

TEST_F(RemoteCapture, WrongKeyFailsWithTheFix) {
    auto a = profile({kClients + "/exit_code", "0"});
    a[4] = server().wrongKey();
    const auto r = sightline(a);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("authentication to " + server().target() + " failed"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ssh-copy-id"), std::string::npos) << r.err;
}

TEST_F(RemoteCapture, UnknownHostKeyShowsItsFingerprintAndHowToAcceptIt) {
    setenv("SIGHTLINE_SSH_CONFIG", server().sshConfigUnknownHost().c_str(), 1);
    const auto r = sightline(profile({kClients + "/exit_code", "0"}));
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("is not in known_hosts"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(server().hostFingerprint()), std::string::npos) << r.err;
    // The known_hosts file ssh uses here is the config's UserKnownHostsFile.
    EXPECT_NE(r.err.find("ssh-keyscan -p " + std::to_string(server().port()) + " 127.0.0.1 >> " + server().dir() +
                         "/known_hosts_empty"),
              std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--remote-accept-new-host-key"), std::string::npos);
    EXPECT_EQ(readFile(server().dir() + "/known_hosts_empty"), "");
    // Accepting records the key, and the next connection needs nothing.
    const auto accepted = sightline(remote("ls", {"--remote-accept-new-host-key"}));
    EXPECT_EQ(accepted.code, 0) << accepted.err;
    EXPECT_NE(readFile(server().dir() + "/known_hosts_empty").find("ssh-ed25519"), std::string::npos);
    std::ofstream(server().dir() + "/known_hosts_empty", std::ios::trunc);
}

TEST_F(RemoteCapture, MissingRemoteSightlineSaysHowToInstallIt) {
    auto a = profile({kClients + "/exit_code", "0"});
    a.erase(a.begin() + 5, a.begin() + 7);  // no --remote-sightline: the remote PATH has none
    const auto r = sightline(a);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("sightline is not installed on " + server().target()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("apt install ./sightline_"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--remote-sightline"), std::string::npos);
}

TEST_F(RemoteCapture, OldRemoteVersionIsRefusedWithTheFix) {
    // A test double of an old install: it knows --version and nothing of remote capture.
    const std::string old = m_local + "/old-sightline";
    std::ofstream(old) << "#!/bin/sh\n[ \"$1\" = --version ] && echo 'sightline 0.0.9' && exit 0\n"
                          "echo \"sightline: error: unknown command '$1'\" >&2; exit 2\n";
    fs::permissions(old, fs::perms::owner_all);
    auto a = profile({kClients + "/exit_code", "0"});
    a[6] = old;
    const auto r = sightline(a);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("sightline 0.0.9 (" + old + ")"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("too old"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(server().home() + "/.cache/sightline/remote/x"));
}

TEST_F(RemoteCapture, UnwritableLocalOutputIsRefusedBeforeAnythingRunsThere) {
    const auto before = sightline(remote("list", {"--format", "json"})).out;
    const auto r = sightline(profile({"-o", m_local + "/no/such/dir/r.rep", kClients + "/exit_code", "0"}));
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("does not exist (nothing was started on the remote machine)"), std::string::npos) << r.err;
    std::ofstream(m_local + "/taken.rep") << "x";
    const auto taken = sightline(profile({"-o", m_local + "/taken.rep", kClients + "/exit_code", "0"}));
    EXPECT_EQ(taken.code, 1);
    EXPECT_NE(taken.err.find("--force-overwrite"), std::string::npos) << taken.err;
    EXPECT_EQ(readFile(m_local + "/taken.rep"), "x");
    EXPECT_EQ(sightline(remote("list", {"--format", "json"})).out, before);
}

TEST_F(RemoteCapture, UnreachableHostSaysSo) {
    const auto r = sightline({"remote", "list", "--remote", "root@127.0.0.1:1", "--remote-key", server().clientKey()});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("cannot reach root@127.0.0.1:1"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Connection refused"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("ssh: ssh:"), std::string::npos) << r.err;
}

TEST_F(RemoteCapture, JumpHostIsCrossed) {
    // The jump is the same sshd (ssh -J runs a second ssh, which reads the same -F config and
    // needs its key from there).
    std::string config = readFile(server().sshConfig());
    config.replace(config.find("IdentityFile /dev/null"), 22, "IdentityFile " + server().clientKey());
    // The jump is named "localhost" (ssh refuses a jump to the destination's own name), so
    // known_hosts holds the key under both names.
    std::string known = readFile(server().dir() + "/known_hosts");
    const std::string line = known.substr(0, known.find('\n'));
    known += "[localhost]" + line.substr(line.find(':')) + "\n";
    std::ofstream(m_local + "/known_hosts") << known;
    const std::string kh = "UserKnownHostsFile ";
    const size_t at = config.find(kh) + kh.size();
    config.replace(at, config.find('\n', at) - at, m_local + "/known_hosts");
    const std::string file = m_local + "/jump_config";
    std::ofstream(file) << config;
    setenv("SIGHTLINE_SSH_CONFIG", file.c_str(), 1);
    const std::string user = server().target().substr(0, server().target().find('@'));
    const std::string jump = user + "@localhost:" + std::to_string(server().port());
    const auto via = sightline(remote("ls", {"--remote-jump", jump, "--format", "json"}));
    EXPECT_EQ(via.code, 0) << via.err;
    EXPECT_NE(via.out.find("\"dir\":\"" + server().home() + "\""), std::string::npos) << via.out;
    // A jump host that does not answer fails the connection: the jump is really taken.
    const auto broken = sightline(remote("ls", {"--remote-jump", "root@127.0.0.1:1"}));
    EXPECT_EQ(broken.code, 1);
    EXPECT_NE(broken.err.find("--remote-jump"), std::string::npos) << broken.err;
}

TEST_F(RemoteCapture, StatusAndDirectoryListingRunThere) {
    const auto status = sightline(remote("status", {"--remote-sightline", kCli, "--format", "json"}));
    EXPECT_TRUE(status.code == 0 || status.code == 1) << status.err;  // 1: a check failed there
    EXPECT_NE(status.out.find("\"id\":\"kernel\""), std::string::npos) << status.out;
    fs::create_directories(server().home() + "/some dir");
    std::ofstream(server().home() + "/some dir/prog") << "#!/bin/sh\n";
    fs::permissions(server().home() + "/some dir/prog", fs::perms::owner_all);
    const auto ls = sightline(remote("ls", {server().home() + "/some dir", "--format", "json"}));
    EXPECT_EQ(ls.code, 0) << ls.err;
    EXPECT_EQ(ls.out, "{\"dir\":\"" + server().home() + "/some dir\",\"entries\":[{\"name\":\"prog\",\"type\":\"exec\"}]}\n");
    const auto missing = sightline(remote("ls", {"/no/such/dir"}));
    EXPECT_EQ(missing.code, 1);
    EXPECT_NE(missing.err.find("no such directory"), std::string::npos) << missing.err;
}

}  // namespace
