// Programs doing what a profiler's module must survive unchanged (issue #15): thousands of
// short threads, NVTX used wrongly, calls the kernel only allows a single-threaded process,
// seccomp sandboxes.
// Each runs the real `sightline profile` on a client of tests/clients.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

// Buffers of ended threads waited for a writer that only a living thread's hand-over starts:
// after about a thousand threads (the budget's worth of buffers) everything later was dropped,
// with a diagnostic telling the user to raise SIGHTLINE_BUFFER_MB although at most two threads
// ever lived at once.
TEST(UnusualPrograms, ThousandsOfShortThreadsLoseNothingAfterThem) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("c.rep"), {"-s", "none"}, {client("thread_churn"), "3000"}), 0);
    auto r = load(dir.file("c.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(events(*r, EventKind::NvtxRange, "late-thread-range").size(), 1u);
    EXPECT_EQ(diagnostic(*r, "events.dropped"), 0);
    EXPECT_EQ(diagnostic(*r, "nvtx.ranges_dropped"), 0);
    EXPECT_EQ(diagnostic(*r, "metadata.dropped"), 0);
    // Detached, eight at a time: threads ending together each found the budget spent while
    // another wrote the queue, and dropped their records.
    ASSERT_EQ(profile(dir.file("d.rep"), {"-s", "none", "--cpuctxsw", "none"},
                      {client("thread_churn"), "20000", "8"}),
              0);
    auto d = load(dir.file("d.rep"));
    ASSERT_TRUE(d);
    EXPECT_EQ(events(*d, EventKind::NvtxRange, "short").size(), 60000u);
    EXPECT_EQ(diagnostic(*d, "nvtx.ranges_dropped"), 0);
    EXPECT_EQ(diagnostic(*d, "events.dropped"), 0);
}

// A pop without a push returned 0 (NVTX: negative for an error), and a made-up registered
// string handle was dereferenced: the program died of SIGSEGV where it runs on without a tool.
TEST(UnusualPrograms, NvtxUsedWronglyIsAnsweredAsNvtxDocumentsWithoutACrash) {
    int plainCode = -1, tracedCode = -1;
    const std::string plain = runCapturingStdout({client("nvtx_misuse")}, &plainCode);
    ASSERT_EQ(plainCode, 0) << plain;
    CaptureDir dir;
    const std::string traced = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-o", dir.file("m.rep"), client("nvtx_misuse")},
        &tracedCode);
    EXPECT_EQ(tracedCode, 0) << traced;
    EXPECT_EQ(traced, plain);
    auto r = load(dir.file("m.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(events(*r, EventKind::NvtxRange, "inner").size(), 1u);
}

// unshare(CLONE_NEWUSER) needs a single-threaded caller: the module's writer thread, started
// once a buffer filled, made it fail with EINVAL. (The thread itself is still there to see in
// /proc/self/task while it writes: docs/capture.md.)
TEST(UnusualPrograms, UnshareOfAUserNamespaceAnswersAsWithoutTheProfiler) {
    int plainCode = -1, tracedCode = -1;
    const std::string plain = runCapturingStdout({client("single_threaded_calls")}, &plainCode);
    ASSERT_EQ(plainCode, 0) << plain;
    CaptureDir dir;
    for (const char* trace : {"nvtx", "nvtx,osrt"}) {
        const std::string traced = runCapturingStdout(
            {SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-t", trace, "-o",
             dir.file("u.rep"), client("single_threaded_calls")},
            &tracedCode);
        EXPECT_EQ(tracedCode, 0) << traced;
        EXPECT_EQ(traced, plain) << trace;
        auto r = load(dir.file("u.rep"));
        ASSERT_TRUE(r);
        EXPECT_EQ(events(*r, EventKind::NvtxRange, "fill").size(), 200000u) << trace;
    }
}

// A program that sandboxes itself: an allow-list filter killed it (SIGSYS) at its exit, when
// the module opened its stream; strict mode killed it at its first write() (the interposer read
// the time-stamp counter, which strict mode disables). Now the capture ends before the filter,
// what came before it is in the report, and the report says why the rest is not.
TEST(UnusualPrograms, ProgramsThatSandboxThemselvesRunAsWithoutTheProfiler) {
    const struct {
        const char* mode;
        int code;
    } cases[] = {{"filter", 3}, {"syscall", 3}, {"deny", 127}, {"strict", 4}, {"system", 7}};
    for (const auto& c : cases) {
        int plainCode = -1, tracedCode = -1;
        const std::string plain = runCapturingStdout({client("sandboxed"), c.mode}, &plainCode);
        ASSERT_EQ(plainCode, c.code) << c.mode << ": " << plain;
        CaptureDir dir;
        const std::string traced = runCapturingStdout(
            {SIGHTLINE_CLI, "profile", "-q", "true", "-o", dir.file("s.rep"), client("sandboxed"),
             c.mode},
            &tracedCode);
        EXPECT_EQ(tracedCode, c.code) << c.mode;
        EXPECT_EQ(traced, plain) << c.mode;
        auto r = load(dir.file("s.rep"));
        ASSERT_TRUE(r) << c.mode;
        EXPECT_EQ(events(*r, EventKind::NvtxRange, "before-seal").size(), 1u) << c.mode;
        EXPECT_EQ(diagnostic(*r, "capture.sandboxed"), 1) << c.mode;
        EXPECT_EQ(diagnostic(*r, "capture.stream_incomplete"), 0) << c.mode;
        EXPECT_NE(processWithExit(*r, c.code), nullptr) << c.mode;
    }
}

// A program that execs where the module's directory is covered (a mount namespace of its own,
// as build sandboxes and container launchers make; a chroot likewise): the loader printed
// "ERROR: ld.so: object ... cannot be preloaded" into the program's stderr. The exec'd image
// is left untraced, its output as without the profiler, and the report says why.
TEST(UnusualPrograms, ExecWhereTheModuleCannotBeReachedAddsNothingToTheOutput) {
    if (std::system("unshare -m --propagation private true 2>/dev/null") != 0)
        GTEST_SKIP() << "unshare -m is not permitted here";
    const std::vector<std::string> program = {
        "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
        "mount -t tmpfs none " SIGHTLINE_MODULE_DIR " && exec /bin/sh -c 'echo out; echo err >&2; "
        "exit 5'"};
    int plainCode = -1, tracedCode = -1;
    const std::string plain = runCapturingStdout(program, &plainCode);
    ASSERT_EQ(plainCode, 5) << plain;
    CaptureDir dir;
    std::vector<std::string> traced = {SIGHTLINE_CLI, "profile", "-q", "true", "-s", "none",
                                       "-o", dir.file("m.rep")};
    traced.insert(traced.end(), program.begin(), program.end());
    const std::string out = runCapturingStdout(traced, &tracedCode);
    EXPECT_EQ(tracedCode, 5);
    EXPECT_EQ(out, plain);
    auto r = load(dir.file("m.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(diagnostic(*r, "capture.module_unreachable"), 1);
}

// libseccomp's feature probes fail on purpose; they ended the capture of programs that never
// sandboxed themselves.
TEST(UnusualPrograms, FailingSeccompCallsDoNotEndTheCapture) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("p.rep"), {}, {client("sandboxed"), "probe"}), 0);
    auto r = load(dir.file("p.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(events(*r, EventKind::NvtxRange, "after-probe").size(), 1u);
    EXPECT_EQ(diagnostic(*r, "capture.sandboxed"), 0);
}

// An environment that fits plain but not with the profiler's variables added: the error said
// only "Argument list too long", which the same command without the profiler did not.
TEST(UnusualPrograms, EnvironmentNearTheLimitSaysThatTheProfilersVariablesTippedIt) {
    const long limit = sysconf(_SC_ARG_MAX);
    if (limit <= 0 || limit > (64l << 20)) GTEST_SKIP() << "no usable ARG_MAX: " << limit;
    // Strings, their NULs and pointers, as the kernel counts them, up to 600 bytes short of it.
    std::vector<std::string> env = {"PATH=/usr/bin:/bin"};
    const std::vector<std::string> program = {"/bin/true"};
    auto used = [&] {
        size_t n = 0;
        for (const auto& s : env) n += s.size() + 1 + sizeof(char*);
        for (const auto& s : program) n += s.size() + 1 + sizeof(char*);
        return n;
    };
    for (int i = 0; used() + 100'100 < static_cast<size_t>(limit) - 600; ++i)
        env.push_back("B" + std::to_string(i) + "=" + std::string(100'000, 'y'));
    env.push_back("R=" + std::string(static_cast<size_t>(limit) - 600 - used() - 12, 'z'));
    CaptureDir dir;
    const std::vector<std::string> plainArgs = program;
    const std::vector<std::string> tracedArgs = {SIGHTLINE_CLI, "profile", "-q", "true", "-o",
                                                 dir.file("e.rep"), "/bin/true"};
    auto run = [&env](const std::vector<std::string>& args, std::string* err) {
        int pipeFds[2];
        if (pipe(pipeFds) != 0) return -1;
        const pid_t child = fork();
        if (child == 0) {
            dup2(pipeFds[1], 2);
            std::vector<char*> argv, envp;
            for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
            for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
            argv.push_back(nullptr);
            envp.push_back(nullptr);
            execve(argv[0], argv.data(), envp.data());
            _exit(125);
        }
        close(pipeFds[1]);
        char buf[4096];
        ssize_t n;
        while ((n = read(pipeFds[0], buf, sizeof buf)) > 0) err->append(buf, static_cast<size_t>(n));
        close(pipeFds[0]);
        int status = 0;
        waitpid(child, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    };
    std::string plainErr, tracedErr;
    ASSERT_EQ(run(plainArgs, &plainErr), 0) << plainErr;
    EXPECT_EQ(run(tracedArgs, &tracedErr), 126);
    EXPECT_NE(tracedErr.find("Argument list too long"), std::string::npos) << tracedErr;
    EXPECT_NE(tracedErr.find("the profiler's own environment variables add"), std::string::npos)
        << tracedErr;
}

}  // namespace
}  // namespace sl::test
