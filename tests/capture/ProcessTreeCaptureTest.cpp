// The process tree as the report shows it (issue #15): exec chains, orphans and their real
// parents, programs our module cannot be loaded into (static, setuid) named with the reason,
// an LD_PRELOAD the program replaced. Each runs the real `sightline profile` on a real program.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "capture/launcher/OrphanReaper.h"
#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

namespace fs = std::filesystem;

// Twenty execs: the row is the one process, named by its last image.
TEST(ProcessTree, ExecChainOf20EndsWithTheLastCommandLine) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("e.rep"), {"-s", "none"}, {client("exec_chain"), "20"}), 0);
    auto r = load(dir.file("e.rep"));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->processes.size(), 1u);
    const Process& p = r->processes[0];
    EXPECT_EQ(p.commandLine, client("exec_chain") + " 0 step1");
    EXPECT_EQ(p.exitCode, 0);
    EXPECT_EQ(diagnostic(*r, "capture.stream_incomplete"), 0);
    EXPECT_EQ(diagnostic(*r, "capture.processes_untraced"), 0);
}

// The grandchild outlives its parent, is adopted (the profiler reaps it as the tree's
// subreaper), execs (as `orphan adopted`) and exits 7: its parent is still the one that forked
// it, the adoption is an event at the moment that parent ended, naming the process that would
// have adopted it without the profiler, and its exit code (reaped by the profiler) is right.
class Orphans : public ::testing::TestWithParam<const char*> {};

TEST_P(Orphans, KeepTheirRealParentAndTheAdoptionIsAnEvent) {
    CaptureDir dir;
    const std::string rep = dir.file("o.rep");
    ASSERT_EQ(profile(rep, {"-s", "none", "--trace-fork-before-exec", GetParam()},
                      {client("orphan")}),
              0);
    auto r = load(rep);
    ASSERT_TRUE(r);
    const Process* grandchild = processWithExit(*r, 7);
    ASSERT_TRUE(grandchild) << "no process with exit code 7";
    EXPECT_EQ(grandchild->commandLine, client("orphan") + " adopted");
    // Under --trace-fork-before-exec=false the middle process records nothing: only the kernel's
    // fork records (taken with the context switches) know it created the grandchild.
    if (std::string(GetParam()) == "false" && r->eventCount(EventKind::ThreadState) == 0)
        GTEST_SKIP() << "no context switches here (perf_event_open refused): no fork records";
    const Process* middle = r->findProcess(grandchild->parentPid);
    ASSERT_TRUE(middle) << "parent " << grandchild->parentPid << " not in the report";
    const Process* root = r->findProcess(middle->parentPid);
    ASSERT_TRUE(root) << "the middle process's parent is not the program";
    ASSERT_EQ(r->reparents.size(), 1u);
    const ProcessReparent& rp = r->reparents[0];
    EXPECT_EQ(rp.pid, grandchild->pid);
    EXPECT_EQ(rp.fromPid, middle->pid);
    // Adopted where orphans go without the profiler (init, or a subreaper above it), as the
    // orphan's getppid() answers: not the profiler, which reaps it as the tree's subreaper.
    const pid_t reaper = sl::capture::orphanReaper();
    ASSERT_GT(reaper, 0);
    EXPECT_EQ(rp.toPid, reaper);
    EXPECT_NE(rp.toPid, root->parentPid);
    ASSERT_NE(middle->end, kUnknownTime);
    EXPECT_EQ(rp.time, middle->end);
    // The exec'd image names the main thread too (the kernel's comm of /proc/self/exe: "exe").
    const Thread* main = r->findThread(grandchild->pid, grandchild->pid);
    ASSERT_TRUE(main);
    EXPECT_EQ(main->name, grandchild->name);
    // The zombie ended before the program: reaped by the profiler, not orphaned (the single
    // reparent above is the grandchild's).
    const Process* zombie = processWithExit(*r, 9);
    ASSERT_TRUE(zombie);
    EXPECT_EQ(zombie->parentPid, root->pid);
    EXPECT_LT(zombie->end, root->end);
}

INSTANTIATE_TEST_SUITE_P(ForkTracing, Orphans, ::testing::Values("true", "false"));

// An orphan's getppid() answers what it would without the profiler (init here, or a subreaper
// above the profiler), not the profiler, which adopts the tree's orphans: a child polling
// `getppid() == 1` for its parent's end waited forever, and the profiler for it. The program's
// first process still sees the profiler as its parent, as it is.
TEST(ProcessTree, OrphansSeeTheParentTheyWouldHaveWithoutTheProfiler) {
    if (std::string(SIGHTLINE_PYTHON).empty()) GTEST_SKIP() << "no python3";
    CaptureDir dir;
    // The first process prints whether getppid() is its real parent (/proc/self/stat); its
    // child waits for it to end (the pipe's end closes), then prints its getppid().
    const std::string script =
        "import os, time\n"
        "real = int(open(\"/proc/self/stat\").read().rsplit(\")\", 1)[1].split()[1])\n"
        "r, w = os.pipe()\n"
        "if os.fork() == 0:\n"
        "    os.close(w)\n"
        "    os.read(r, 1)\n"
        "    time.sleep(0.05)\n"
        "    print(\"orphan\", os.getppid(), flush=True)\n"
        "    os._exit(0)\n"
        "print(\"first\", os.getppid() == real, flush=True)\n"
        "os._exit(0)\n";
    // The orphan prints after the program ended: `| cat` waits for it.
    auto run = [&](const std::string& prefix, int* code) {
        return runCapturingStdout(
            {"/bin/sh", "-c", prefix + std::string(SIGHTLINE_PYTHON) + " -c \"$0\" | cat", script},
            code);
    };
    int plainCode = -1, tracedCode = -1;
    const std::string plain = run("", &plainCode);
    ASSERT_EQ(plainCode, 0) << plain;
    ASSERT_NE(plain.find("first True"), std::string::npos) << plain;
    ASSERT_NE(plain.find("orphan "), std::string::npos) << plain;
    const std::string traced = run(std::string(SIGHTLINE_CLI) + " profile -q true -s none -o " +
                                       dir.file("o.rep") + " ",
                                   &tracedCode);
    EXPECT_EQ(tracedCode, 0) << traced;
    EXPECT_EQ(traced, plain);
    auto r = load(dir.file("o.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->reparents.size(), 1u);  // the report keeps the adoption by the profiler
}

#ifdef SIGHTLINE_STATIC_CLIENT
// A statically linked program, as the program and as a child of a traced shell: named, with
// its exit code and the reason it recorded nothing.
TEST(ProcessTree, StaticProgramsAreNamedWithTheReason) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("root.rep"), {"-s", "none"}, {SIGHTLINE_STATIC_CLIENT, "5"}), 5);
    auto r = load(dir.file("root.rep"));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->processes.size(), 1u);
    EXPECT_EQ(r->processes[0].name, "static_exit");
    EXPECT_EQ(r->processes[0].exitCode, 5);
    EXPECT_NE(r->processes[0].parentPid, 0);
    EXPECT_NE(untracedReason(*r).find("static_exit) is statically linked"), std::string::npos)
        << untracedReason(*r);

    for (const char* forkTracing : {"true", "false"}) {
        SCOPED_TRACE(std::string("--trace-fork-before-exec ") + forkTracing);
        const std::string rep = dir.file(std::string("child-") + forkTracing + ".rep");
        ASSERT_EQ(profile(rep, {"-s", "none", "--trace-fork-before-exec", forkTracing},
                          {"/bin/sh", "-c", std::string(SIGHTLINE_STATIC_CLIENT) + " 6; exit 0"}),
                  0);
        auto c = load(rep);
        ASSERT_TRUE(c);
        const Process* child = processWithExit(*c, 6);  // reaped by the shell (wait3 in dash)
        ASSERT_TRUE(child) << "the static child's exit code is lost";
        EXPECT_EQ(diagnostic(*c, "capture.processes_untraced"), 1);
        // Its traced parent saw the image: a forked child when it is traced, a vfork child (dash
        // runs commands with vfork) always, since the parent records what its vfork child
        // exec'd. Otherwise the kernel's exec records name it.
        const std::string reason = untracedReason(*c);
        if (std::string(forkTracing) == "true") {
            EXPECT_EQ(child->name, "static_exit");
            EXPECT_NE(reason.find("statically linked"), std::string::npos);
        } else if (reason.find("statically linked") != std::string::npos ||
                   c->eventCount(EventKind::ThreadState) > 0) {
            EXPECT_EQ(child->name, "static_exit");
            EXPECT_TRUE(reason.find("static_exit) is statically linked") != std::string::npos ||
                        reason.find("static_exit) ran an image our module was not") !=
                            std::string::npos)
                << reason;
        }
    }
}
#endif

// A setuid program (run by a user who does not own it): the loader ignores LD_PRELOAD. Needs
// root to make the file and an unprivileged user to run the profile.
TEST(ProcessTree, SetuidProgramKeepsItsExitCodeAndIsNamedWithTheReason) {
    if (geteuid() != 0) GTEST_SKIP() << "making a setuid program needs root";
    if (access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "setpriv (util-linux) is missing";
    CaptureDir dir;
    chmod(dir.path().c_str(), 0755);
    struct statvfs vfs {};
    if (statvfs(dir.path().c_str(), &vfs) == 0 && (vfs.f_flag & ST_NOSUID))
        GTEST_SKIP() << dir.path() << " is mounted nosuid";
    const std::string program = dir.file("setuid_exit");
    fs::copy_file(client("exit_code"), program);
    ASSERT_EQ(chmod(program.c_str(), 04755), 0);
    const std::string out = dir.file("out");
    fs::create_directory(out);
    chmod(out.c_str(), 0777);
    for (const auto& [name, command] :
         std::vector<std::pair<std::string, std::vector<std::string>>>{
             {"root", {program, "3"}}, {"child", {"/bin/sh", "-c", program + " 3; exit 0"}}}) {
        SCOPED_TRACE(name);
        const std::string rep = out + "/" + name + ".rep";
        std::vector<std::string> args = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                                         "--clear-groups",   SIGHTLINE_CLI,  "profile",
                                         "-q", "true", "-f", "true", "-s", "none",
                                         "--cpuctxsw", "none", "-o", rep};
        args.insert(args.end(), command.begin(), command.end());
        const int code = exitCodeOf(runProcess(args, out));
        if (code == 126 || code == 127 || !fs::exists(rep))
            GTEST_SKIP() << "the build tree cannot be run by user nobody (exit " << code << ")";
        EXPECT_EQ(code, name == "root" ? 3 : 0);
        auto r = load(rep);
        ASSERT_TRUE(r);
        const Process* p = processWithExit(*r, 3);
        ASSERT_TRUE(p) << "the setuid program's exit code is lost";
        EXPECT_EQ(p->name, "setuid_exit");
        EXPECT_NE(untracedReason(*r).find("setuid_exit) is setuid"), std::string::npos)
            << untracedReason(*r);
    }
}

// A program that sets its own LD_PRELOAD for a child, and one that clears the environment:
// the child is traced all the same (our module is added to the list, our variables put back).
TEST(ProcessTree, ReplacedPreloadAndClearedEnvironmentStillTraced) {
    CaptureDir dir;
    const std::string rep = dir.file("p.rep");
    const std::string libm = "/lib/x86_64-linux-gnu/libm.so.6";
    if (access(libm.c_str(), R_OK) != 0) GTEST_SKIP() << libm << " is missing";
    ASSERT_EQ(profile(rep, {"-s", "none"},
                      {"/bin/sh", "-c", "LD_PRELOAD=" + libm + " " + client("exit_code") +
                                            " 0 && env -i " + client("exit_code") + " 0"}),
              0);
    auto r = load(rep);
    ASSERT_TRUE(r);
    EXPECT_EQ(diagnostic(*r, "capture.processes_untraced"), 0) << untracedReason(*r);
    int traced = 0;
    for (const auto& p : r->processes)
        if (p.name == "exit_code" && p.commandLine == client("exit_code") + " 0") ++traced;
    EXPECT_EQ(traced, 2);
}

}  // namespace
}  // namespace sl::test
