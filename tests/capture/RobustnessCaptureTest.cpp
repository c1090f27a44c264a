// What the capture keeps when things go wrong: a program killed by SIGKILL, an output that
// cannot be written, a full disk (issue #15). Each runs the real `sightline profile` on a real
// program.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <cstdio>
#include <random>
#include <thread>

#include "capture/launcher/SessionFacts.h"
#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

namespace fs = std::filesystem;

// Starts argv (argv[0] a path) and returns its pid (not waited for).
pid_t start(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    pid_t pid = fork();
    if (pid == 0) {
        for (const auto& kv : env) putenv(const_cast<char*>(kv.c_str()));
        std::vector<char*> argv;
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(121);
    }
    return pid;
}

int waitFor(pid_t pid) {
    int st = 0;
    waitpid(pid, &st, 0);
    return exitCodeOf(st);
}

// steady_nvtx's count file, mapped once the client made it ({pid, completed by thread 1, by
// thread 2}); nullptr after 5 s without it.
int64_t* mapCounts(const std::string& counts) {
    for (int i = 0; i < 500; ++i) {
        usleep(10000);
        int fd = open(counts.c_str(), O_RDONLY);
        if (fd < 0) continue;
        struct stat st {};
        fstat(fd, &st);
        void* p = st.st_size >= 24 ? mmap(nullptr, 24, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
        close(fd);
        if (p != MAP_FAILED) return static_cast<int64_t*>(p);
    }
    return nullptr;
}

// SIGKILL at a random moment of a steady NVTX program: every range it completed (its own count,
// kept in a shared file) is in the report, recovered from its buffer arena.
TEST(Robustness, SigkillAtARandomMomentKeepsEveryCompletedRange) {
    CaptureDir dir;
    const std::string counts = dir.file("counts");
    std::random_device rd;
    const int delayMs = 100 + static_cast<int>(rd() % 900);
    SCOPED_TRACE("SIGKILL " + std::to_string(delayMs) + " ms after the first ranges");
    pid_t profiler = start({SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-o",
                            dir.file("k.rep"), "-s", "none", "--cpuctxsw", "none",
                            client("steady_nvtx"), counts});
    // Wait for the program to have started recording.
    int64_t* shared = mapCounts(counts);
    ASSERT_TRUE(shared) << "the client never started";
    while (__atomic_load_n(&shared[1], __ATOMIC_ACQUIRE) == 0) usleep(1000);
    usleep(static_cast<useconds_t>(delayMs) * 1000);
    const pid_t program = static_cast<pid_t>(shared[0]);
    ASSERT_EQ(kill(program, SIGKILL), 0);
    EXPECT_EQ(waitFor(profiler), 128 + SIGKILL);
    const int64_t completed = __atomic_load_n(&shared[1], __ATOMIC_ACQUIRE) +
                              __atomic_load_n(&shared[2], __ATOMIC_ACQUIRE);
    munmap(shared, 24);
    auto r = load(dir.file("k.rep"));
    ASSERT_TRUE(r);
    const auto ranges = static_cast<int64_t>(events(*r, EventKind::NvtxRange, "steady").size());
    // Each thread may have had one more range pushed and popped but not yet counted, and one
    // open range (closed at the process end, counted as unterminated).
    EXPECT_GE(ranges, completed) << "completed ranges lost";
    EXPECT_LE(ranges, completed + 4);
    EXPECT_EQ(diagnostic(*r, "capture.stream_incomplete"), 0);
    EXPECT_GE(diagnostic(*r, "capture.stream_recovered", program), 1);
    // The ranges open at the SIGKILL end with the process, as the report's note says (they
    // ended at the stream's last record before, often their own start: 0 ns).
    ASSERT_EQ(r->processes.size(), 1u);
    size_t endWithProcess = 0;
    for (const auto& e : events(*r, EventKind::NvtxRange, "steady"))
        endWithProcess += e.end == r->processes[0].end;
    EXPECT_GE(endWithProcess, 1u);
    EXPECT_LE(endWithProcess, 2u);  // one open range per thread at most
}

// Every regular file under `dirs`, with its size and modification time.
std::map<std::string, std::pair<uintmax_t, int64_t>> filesUnder(const std::vector<std::string>& dirs) {
    std::map<std::string, std::pair<uintmax_t, int64_t>> out;
    for (const auto& d : dirs) {
        std::error_code ec;
        for (const auto& e : fs::recursive_directory_iterator(d, ec)) {
            struct stat st {};
            if (e.is_regular_file() && ::stat(e.path().c_str(), &st) == 0)
                out[e.path().string()] = {static_cast<uintmax_t>(st.st_size),
                                          st.st_mtim.tv_sec * 1'000'000'000ll + st.st_mtim.tv_nsec};
        }
    }
    return out;
}

// The profiler itself killed by SIGKILL: its session (streams, and the arenas in /dev/shm) is
// left. `sightline import` of it changes nothing in it and can be repeated with the same result,
// every completed range in each report. Before, the import appended to the streams, removed the
// arenas, said the capture was "left as it was", and a second import failed.
TEST(Robustness, ImportOfAKilledProfilersSessionChangesNothingAndCanBeRepeated) {
    CaptureDir dir;
    const std::string counts = dir.file("counts");
    pid_t profiler = start({SIGHTLINE_CLI, "profile", "-q", "true", "-o", dir.file("never.rep"),
                            "-s", "none", "--cpuctxsw", "none", client("steady_nvtx"), counts},
                           {"TMPDIR=" + dir.path()});
    int64_t* shared = mapCounts(counts);
    ASSERT_TRUE(shared) << "the client never started";
    while (__atomic_load_n(&shared[1], __ATOMIC_ACQUIRE) < 1000) usleep(1000);
    ASSERT_EQ(kill(profiler, SIGKILL), 0);
    waitFor(profiler);
    const pid_t program = static_cast<pid_t>(shared[0]);
    ASSERT_EQ(kill(program, SIGKILL), 0);  // left running by the killed profiler
    for (int i = 0; i < 500 && kill(program, 0) == 0; ++i) usleep(10000);
    const int64_t completed = __atomic_load_n(&shared[1], __ATOMIC_ACQUIRE) +
                              __atomic_load_n(&shared[2], __ATOMIC_ACQUIRE);
    munmap(shared, 24);
    std::string session;
    for (const auto& e : fs::directory_iterator(dir.path()))
        if (e.path().filename().string().rfind("sightline-session-", 0) == 0)
            session = e.path().string();
    ASSERT_FALSE(session.empty());
    // `sightline import` without INPUT names it: nothing else says where a killed profiler's
    // capture went.
    {
        int code = -1;
        const std::string listed = runCapturingStdout(
            {"/usr/bin/env", "TMPDIR=" + dir.path(), SIGHTLINE_CLI, "import"}, &code);
        EXPECT_EQ(code, 0);
        EXPECT_NE(listed.find(session + "  " + client("steady_nvtx") + " " + counts),
                  std::string::npos)
            << listed;
    }
    auto facts = capture::readSessionFacts(session);
    ASSERT_TRUE(facts) << facts.error();
    std::vector<std::string> dirs{session};
    if (!facts->arenaDir.empty()) dirs.push_back(facts->arenaDir);
    const auto before = filesUnder(dirs);
    ASSERT_FALSE(before.empty());
    for (const char* name : {"a.rep", "b.rep"}) {
        SCOPED_TRACE(name);
        const std::string rep = dir.file(name);
        EXPECT_EQ(exitCodeOf(runProcess(
                      {SIGHTLINE_CLI, "import", "-q", "true", session, "-o", rep})),
                  0);
        auto r = load(rep);
        ASSERT_TRUE(r);
        const auto ranges = static_cast<int64_t>(events(*r, EventKind::NvtxRange, "steady").size());
        EXPECT_GE(ranges, completed) << "completed ranges lost";
        EXPECT_LE(ranges, completed + 4);
        EXPECT_EQ(filesUnder(dirs), before) << "the import changed the kept session";
        // It is gone: ended at its last event, its status unknown (it said "running").
        ASSERT_EQ(r->processes.size(), 1u);
        EXPECT_NE(r->processes[0].end, kUnknownTime);
        EXPECT_EQ(r->processes[0].exitSignal, kExitStatusUnknown);
    }
    // Two imports at once into one name: each keeps its report (the second takes c-2.rep);
    // before, both said "written" and one was lost.
    std::vector<pid_t> imports;
    for (int i = 0; i < 2; ++i)
        imports.push_back(start({SIGHTLINE_CLI, "import", "-q", "true", session, "-o",
                                 dir.file("c.rep")}));
    for (pid_t p : imports) EXPECT_EQ(waitFor(p), 0);
    EXPECT_TRUE(load(dir.file("c.rep")));
    EXPECT_TRUE(load(dir.file("c-2.rep")));
    std::error_code ec;
    for (const auto& d : dirs) fs::remove_all(d, ec);
}

// --duration with --kill=none: the program runs on after the capture. What it recorded until
// then is in the report (its arena read as a snapshot, never changed): it was lost before, with
// its command line, and the report said it had not been traced at all.
TEST(Robustness, KillNoneKeepsWhatTheRunningProgramRecorded) {
    CaptureDir dir;
    const std::string counts = dir.file("counts");
    const int st = runProcess({SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-o",
                               dir.file("run.rep"), "-s", "none", "--cpuctxsw", "none", "-d",
                               "0.8", "--kill", "none", client("steady_nvtx"), counts});
    EXPECT_EQ(exitCodeOf(st), 0);
    // The program runs on: end it (its pid is the first value of its count file).
    int64_t program = 0;
    if (FILE* f = std::fopen(counts.c_str(), "rb")) {
        if (std::fread(&program, sizeof program, 1, f) != 1) program = 0;
        std::fclose(f);
    }
    ASSERT_GT(program, 0);
    EXPECT_EQ(kill(static_cast<pid_t>(program), SIGKILL), 0) << "it did not run on";
    auto r = load(dir.file("run.rep"));
    ASSERT_TRUE(r);
    EXPECT_GT(events(*r, EventKind::NvtxRange, "steady").size(), 100u);
    ASSERT_EQ(r->processes.size(), 1u);
    EXPECT_NE(r->processes[0].commandLine.find("steady_nvtx"), std::string::npos);
    EXPECT_EQ(diagnostic(*r, "capture.program_still_running"), 1);
    EXPECT_EQ(diagnostic(*r, "capture.stream_incomplete"), 0);
    EXPECT_EQ(diagnostic(*r, "capture.processes_untraced"), 0);
}

// The same with a program that records little: nothing of it had reached its stream (its only
// buffer was in the arena), so the report had its pid and nothing else, not even its command line.
TEST(Robustness, KillNoneKeepsWhatAQuietRunningProgramRecorded) {
    if (std::string(SIGHTLINE_PYTHON).empty()) GTEST_SKIP() << "no python3";
    CaptureDir dir;
    const int st = runProcess(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-o", dir.file("quiet.rep"), "-s",
         "none", "--cpuctxsw", "none", "-d", "0.8", "--kill", "none", SIGHTLINE_PYTHON, "-c",
         "import os, time\nwhile True:\n    os.write(1, b'')\n    time.sleep(0.02)\n"});
    EXPECT_EQ(exitCodeOf(st), 0);
    auto r = load(dir.file("quiet.rep"));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->processes.size(), 1u);
    EXPECT_EQ(kill(static_cast<pid_t>(r->processes[0].pid), SIGKILL), 0) << "it did not run on";
    EXPECT_NE(r->processes[0].commandLine.find("while True"), std::string::npos)
        << r->processes[0].commandLine;
    EXPECT_GT(events(*r, EventKind::OsRuntime).size(), 0u);
    EXPECT_EQ(diagnostic(*r, "capture.processes_untraced"), 0);
}

// -o into a directory that does not exist or cannot be written: refused before the program
// starts (it would create the marker file).
TEST(Robustness, UnwritableOutputDirectoryStopsBeforeTheProgramStarts) {
    CaptureDir dir;
    const std::string marker = dir.file("ran");
    for (const std::string& out :
         {dir.file("missing/sub/r.rep"), std::string("/proc/sightline-test.rep")}) {
        SCOPED_TRACE(out);
        std::string err = dir.file("stderr");
        pid_t p = fork();
        if (p == 0) {
            int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, 2);
            execl(SIGHTLINE_CLI, SIGHTLINE_CLI, "profile", "-o", out.c_str(), "/usr/bin/touch",
                  marker.c_str(), static_cast<char*>(nullptr));
            _exit(121);
        }
        EXPECT_EQ(waitFor(p), 1);
        EXPECT_FALSE(fs::exists(marker)) << "the program ran";
        std::ifstream in(err);
        std::string text((std::istreambuf_iterator<char>(in)), {});
        EXPECT_NE(text.find("error: -o " + out), std::string::npos) << text;
    }
}

// The report cannot be written at the end (its directory went away while the program ran): the
// whole report, with what only the profiler held (context switches here), is written into the
// session directory instead and the message says where; the raw capture is kept beside it, and
// `sightline import DIR` still makes a report from it. Before, only the raw capture was kept,
// and a report imported from it lacked the CPU samples, context switches and metrics.
TEST(Robustness, UnwritableReportIsWrittenWholeBesideTheKeptRawCapture) {
    CaptureDir dir;
    const std::string outDir = dir.file("out");
    fs::create_directory(outDir);
    const std::string err = dir.file("stderr");
    pid_t p = fork();
    if (p == 0) {
        int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        std::string script = "rmdir " + outDir + " && " + client("crash_client") + " exit";
        execl(SIGHTLINE_CLI, SIGHTLINE_CLI, "profile", "-s", "none", "-o",
              (outDir + "/r.rep").c_str(), "/bin/sh", "-c", script.c_str(),
              static_cast<char*>(nullptr));
        _exit(121);
    }
    EXPECT_EQ(waitFor(p), 1);
    std::ifstream in(err);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const std::string instead = "the whole report was written instead to ";
    auto at = text.find(instead);
    ASSERT_NE(at, std::string::npos) << text;
    std::string whole = text.substr(at + instead.size());
    whole = whole.substr(0, whole.find(' '));
    auto full = load(whole);
    ASSERT_TRUE(full) << whole;
    EXPECT_EQ(events(*full, EventKind::NvtxRange, "before-crash").size(), 1000u);
    EXPECT_FALSE(events(*full, EventKind::ThreadState).empty()) << "the profiler's context switches";
    const std::string session = fs::path(whole).parent_path().string();
    ASSERT_TRUE(fs::is_directory(session)) << session;
    const std::string rep = dir.file("later.rep");
    EXPECT_EQ(exitCodeOf(runProcess({SIGHTLINE_CLI, "import", "-q", "true", session, "-o", rep})),
              0);
    auto r = load(rep);
    ASSERT_TRUE(r);
    EXPECT_EQ(events(*r, EventKind::NvtxRange, "before-crash").size(), 1000u);
    const Process* crashed = processWithExit(*r, 3);  // _exit(3), reaped by the shell
    EXPECT_TRUE(crashed);
    EXPECT_EQ(diagnostic(*r, "capture.from_kept_session"), 1);
    std::error_code ec;
    removeKeptCapture(session);
}

// With several capture windows (repeat:2) every window's report goes into the session when the
// output directory is gone (only the first did, and the message said nothing was lost); an
// import of the session that cannot write its own report leaves the session as it was (it
// replaced the profiler's rescued report with its own, without CPU samples).
TEST(Robustness, EveryWindowsReportIsRescuedAndAFailedImportChangesNothing) {
    CaptureDir dir;
    const std::string outDir = dir.file("out");
    fs::create_directory(outDir);
    int code = -1;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-t", "nvtx", "-s", "none", "-c", "nvtx", "-p",
         "window", "--capture-range-end", "repeat:2", "-o", outDir + "/w.rep", "/bin/sh", "-c",
         "rmdir \"$0\" && exec \"$1\" 3", outDir, client("range_client")},
        &code);
    EXPECT_EQ(code, 1) << out;
    const std::string said = "2 whole reports were written instead: ";
    const auto at = out.find(said);
    ASSERT_NE(at, std::string::npos) << out;
    const std::string first = out.substr(at + said.size(), out.find(',', at) - at - said.size());
    const fs::path session = fs::path(first).parent_path();
    EXPECT_TRUE(load((session / "w.1.rep").string()));
    EXPECT_TRUE(load((session / "w.2.rep").string()));
    const auto before = fs::file_size(session / "w.1.rep");
    const auto written = fs::last_write_time(session / "w.1.rep");
    EXPECT_NE(exitCodeOf(runProcess({SIGHTLINE_CLI, "import", "-q", "true", session.string(), "-o",
                                     dir.file("missing/w.rep")})),
              0);
    EXPECT_EQ(fs::file_size(session / "w.1.rep"), before);
    EXPECT_EQ(fs::last_write_time(session / "w.1.rep"), written);
    for (const auto& e : fs::directory_iterator(session))
        EXPECT_NE(e.path().filename().string().rfind("w.rep", 0), 0u) << e.path();
    removeKeptCapture(session);
}

// The directory sightline starts in, removed by the program (a build's clean step) or before
// the start: sightline aborted on an uncaught exception (no report, exit 134). A report there
// (-o relative) cannot be written: the raw capture is kept for import, which names the
// directory the program started in; an absolute -o is written as usual.
TEST(Robustness, RemovedStartDirectoryKeepsTheCaptureAndIsNamed) {
    CaptureDir dir;
    const std::string work = dir.file("work");
    fs::create_directory(work);
    // The shell's own quoting, from a script file (runCapturingStdout quotes each word).
    const std::string script = dir.file("run.sh");
    std::ofstream(script) << "cd \"$1\" || exit 99\n"
                             "[ \"$3\" = before ] && rmdir \"$1\"\n"
                             "exec \"$2\" profile -s none -o \"$4\" /bin/sh -c "
                             "'[ -d \"$PWD\" ] && rm -rf \"$PWD\"; exit 4'\n";
    int code = 0;
    std::string out = runCapturingStdout({"/bin/sh", script, work, SIGHTLINE_CLI, "during", "rel"},
                                         &code);
    EXPECT_EQ(code, 1) << out;  // the report, not the program, failed
    const std::string instead = "the whole report was written instead to ";
    const auto at = out.find(instead);
    ASSERT_NE(at, std::string::npos) << out;
    std::string whole = out.substr(at + instead.size());
    whole = whole.substr(0, whole.find(' '));
    auto written = load(whole);
    ASSERT_TRUE(written) << whole;
    EXPECT_EQ(written->session.workingDirectory, work);
    const std::string session = fs::path(whole).parent_path().string();
    const std::string rep = dir.file("later.rep");
    EXPECT_EQ(exitCodeOf(runProcess({SIGHTLINE_CLI, "import", "-q", "true", session, "-o", rep})),
              0);
    auto r = load(rep);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->session.workingDirectory, work);
    EXPECT_EQ(r->processes[0].exitCode, 4);
    std::error_code ec;
    removeKeptCapture(session);

    fs::create_directory(work);
    out = runCapturingStdout(
        {"/bin/sh", script, work, SIGHTLINE_CLI, "before", dir.file("abs.rep")}, &code);
    EXPECT_EQ(code, 4) << out;
    r = load(dir.file("abs.rep"));
    ASSERT_TRUE(r) << out;
    EXPECT_EQ(r->session.workingDirectory, work + " (deleted)");
}

// A TMPDIR that fills up: the program runs as without the profiler, and the report says how
// much could not be written and why (not that the program "ended abruptly").
TEST(Robustness, FullTmpdirSaysWhatWasLost) {
    CaptureDir dir;
    const std::string small = dir.file("small");
    fs::create_directory(small);
    if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=2m") != 0)
        GTEST_SKIP() << "cannot mount a small tmpfs here (" << std::strerror(errno)
                     << "): needs CAP_SYS_ADMIN";
    struct Unmount {
        std::string path;
        ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
    } unmount{small};
    pid_t p = start({SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-s", "none",
                     "--cpuctxsw", "none", "-o", dir.file("full.rep"), client("flood"), "4",
                     "100000"},
                    {"TMPDIR=" + small});
    EXPECT_EQ(waitFor(p), 0);  // the program's own exit code
    auto r = load(dir.file("full.rep"));
    ASSERT_TRUE(r);
    const auto ranges = events(*r, EventKind::NvtxRange).size();
    EXPECT_LT(ranges, 400000u);
    EXPECT_GT(diagnostic(*r, "capture.write_failed"), 0);
    EXPECT_EQ(diagnostic(*r, "capture.stream_incomplete"), 0);
    bool saysWhy = false;
    for (const auto& d : r->diagnostics)
        if (d.name == "capture.write_failed" &&
            d.reason.find("No space left on device") != std::string::npos)
            saysWhy = true;
    EXPECT_TRUE(saysWhy);
    // The profiler keeps the buffers it could not write out (in /dev/shm) for a later import;
    // this test has no use for them. Only the directories holding this run's processes' buffers
    // go: other tests may be capturing now.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/dev/shm", ec)) {
        if (e.path().filename().string().rfind("sightline-", 0) != 0 || !e.is_directory()) continue;
        bool ours = false;
        for (const auto& f : fs::directory_iterator(e.path(), ec))
            for (const auto& proc : r->processes)
                ours |= f.path().filename().string().rfind(
                            "inject-" + std::to_string(proc.pid) + "-", 0) == 0;
        if (ours) fs::remove_all(e.path(), ec);
    }
}

}  // namespace
}  // namespace sl::test

namespace sl::test {
namespace {

// Three programs in a new PID namespace (as in a container) are three processes with the pids
// the profiler sees, each with its own ranges; their namespace pids are kept in a diagnostic.
// With --mount-proc their /proc is the namespace's own and shows only the namespace pids: the
// launcher tells them theirs (PidService).
TEST(Robustness, PidNamespaceProgramsStayApart) {
    if (std::system("unshare --pid --fork true 2>/dev/null") != 0)
        GTEST_SKIP() << "unshare --pid --fork is not permitted here (needs CAP_SYS_ADMIN or user "
                        "namespaces)";
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("one.rep"), {"-s", "none"}, {client("nvtx_threads")}), 0);
    auto one = load(dir.file("one.rep"));
    ASSERT_TRUE(one);
    const size_t perRun = events(*one, EventKind::NvtxRange).size();
    ASSERT_GT(perRun, 0u);
    const size_t threadsPerRun = one->threads.size();
    const std::string c = client("nvtx_threads");
    const bool mountProc = std::system("unshare --pid --fork --mount-proc true 2>/dev/null") == 0;
    for (const bool withProc : {false, true}) {
        SCOPED_TRACE(withProc ? "--mount-proc" : "the launcher's /proc");
        if (withProc && !mountProc) {
            std::printf("unshare --mount-proc is not permitted here: only the launcher's /proc is tried\n");
            continue;
        }
        std::vector<std::string> cmd = {"/usr/bin/unshare", "--pid", "--fork"};
        if (withProc) cmd.push_back("--mount-proc");
        for (const char* a : {"/bin/sh", "-c"}) cmd.push_back(a);
        cmd.push_back(c + "; " + c + "; " + c);
        const std::string rep = dir.file(withProc ? "nsproc.rep" : "ns.rep");
        ASSERT_EQ(profile(rep, {"-s", "none"}, cmd), 0);
        auto r = load(rep);
        ASSERT_TRUE(r);
        std::set<int64_t> programs;
        for (const auto& p : r->processes)
            if (p.name == "nvtx_threads") programs.insert(p.pid);
        EXPECT_EQ(programs.size(), 3u);
        std::map<int64_t, size_t> rangesPerPid;
        for (const auto& e : events(*r, EventKind::NvtxRange)) ++rangesPerPid[e.pid];
        for (int64_t pid : programs) EXPECT_EQ(rangesPerPid[pid], perRun) << pid;
        // Their threads too have the tids the profiler sees (the kernel's records of them use
        // those): each thread once, named, not a second row under its namespace tid.
        std::map<int64_t, size_t> threadsPerPid;
        for (const auto& t : r->threads) {
            if (!programs.count(t.pid)) continue;
            ++threadsPerPid[t.pid];
            EXPECT_GT(t.tid, 100) << "a namespace tid: " << t.tid;
        }
        for (int64_t pid : programs) EXPECT_EQ(threadsPerPid[pid], threadsPerRun) << pid;
        EXPECT_EQ(diagnostic(*r, "capture.pid_namespaces"), 4);  // sh and the three programs
        EXPECT_FALSE(programs.count(1));
        EXPECT_EQ(r->processes.size(), 5u);  // unshare, sh, the three programs: no pid twice
        for (const auto& p : r->processes)
            if (p.name == "sh") {
                EXPECT_EQ(r->findProcess(p.parentPid) ? r->findProcess(p.parentPid)->name : "", "unshare");
            }
        for (const auto& d : r->diagnostics) EXPECT_EQ(d.name.find("dropped"), std::string::npos);
    }
}

// Programs in a PID namespace with a /proc and a temporary directory of their own, as a
// container mounts them: the session directory's socket is out of their reach, the abstract
// address is not, and the two runs of the program are two processes with the pids the profiler
// sees. In a network namespace of their own too, nothing reaches the profiler: their rows say
// so (capture.pids_unresolved) instead of silently merging processes.
// The profiler as init of a PID namespace (a container's entry point, `unshare --pid --fork
// sightline ...`): its orphans are its own without the profiler too, and no probe runs (its
// orphan came back to the profiler and was recorded as a nameless process of the program).
TEST(Robustness, ProfilerAsInitOfAPidNamespaceRecordsOnlyTheProgram) {
    if (std::system("unshare --pid --fork --mount-proc true 2>/dev/null") != 0)
        GTEST_SKIP() << "unshare --pid --fork --mount-proc is not permitted here";
    CaptureDir dir;
    const std::string rep = dir.file("init.rep");
    const pid_t p = start({"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", SIGHTLINE_CLI,
                           "profile", "-q", "true", "-s", "none", "-o", rep, "/bin/sh", "-c",
                           "exit 4"});
    EXPECT_EQ(waitFor(p), 4);
    auto r = load(rep);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->processes.size(), 1u);
    EXPECT_EQ(r->processes[0].name, "sh");
}

TEST(Robustness, PidNamespaceWithItsOwnTmpStillGetsTheLaunchersPids) {
    if (std::system("unshare --pid --fork --mount-proc --net true 2>/dev/null") != 0)
        GTEST_SKIP() << "unshare --pid --fork --mount-proc --net is not permitted here";
    CaptureDir dir;
    const std::string tmp = dir.file("tmp");
    fs::create_directory(tmp);
    const std::string inner = "mount -t tmpfs none " + tmp + " && " + client("nvtx_threads");
    for (const bool ownNet : {false, true}) {
        SCOPED_TRACE(ownNet ? "own network namespace" : "the profiler's network namespace");
        std::string loop = "for i in 1 2; do unshare --pid --fork --mount-proc";
        if (ownNet) loop += " --net";
        loop += " /bin/sh -c '" + inner + "'; done";
        const std::string rep = dir.file(ownNet ? "net.rep" : "tmp.rep");
        const pid_t p = start({SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-s", "none",
                               "-o", rep, "/bin/sh", "-c", loop},
                              {"TMPDIR=" + tmp});
        ASSERT_EQ(waitFor(p), 0);
        auto r = load(rep);
        ASSERT_TRUE(r);
        std::set<int64_t> programs;
        for (const auto& proc : r->processes)
            if (proc.name == "nvtx_threads") programs.insert(proc.pid);
        if (ownNet) {
            EXPECT_GE(diagnostic(*r, "capture.pids_unresolved"), 1);
        } else {
            EXPECT_EQ(programs.size(), 2u);
            EXPECT_FALSE(programs.count(1) || programs.count(2));
            EXPECT_EQ(diagnostic(*r, "capture.pids_unresolved"), 0);
        }
    }
}

// In a PID namespace with its own /proc, fork and wait return namespace pids: the launcher says
// which processes they are, so a child killed there ends by its signal (not "running"), and one
// that recorded nothing (-t none) is still listed, as on the host.
TEST(Robustness, ChildKilledInAPidNamespaceEndsByItsSignal) {
    if (std::system("unshare --pid --fork --mount-proc true 2>/dev/null") != 0)
        GTEST_SKIP() << "unshare --pid --fork --mount-proc is not permitted here";
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("k.rep"), {"-s", "none"},
                      {"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "/bin/sh", "-c",
                       "sleep 5 & sleep 0.2; kill -9 $!; wait; exit 4"}),
              4);
    auto r = load(dir.file("k.rep"));
    ASSERT_TRUE(r);
    const Process* killed = nullptr;
    for (const auto& p : r->processes)
        if (p.commandLine == "sleep 5") killed = &p;
    ASSERT_TRUE(killed);
    EXPECT_EQ(killed->exitSignal, 9);
    EXPECT_NE(killed->end, kUnknownTime);
    ASSERT_EQ(profile(dir.file("none.rep"), {"-t", "none", "-s", "none"},
                      {"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", client("crash_client"), "kill9"}),
              0);
    auto n = load(dir.file("none.rep"));
    ASSERT_TRUE(n);
    int signalled = 0;
    for (const auto& p : n->processes) signalled += p.exitSignal == 9;
    EXPECT_EQ(signalled, 1);
    EXPECT_EQ(diagnostic(*n, "capture.processes_untraced"), 0);
}

// A program that unshares its children's PID namespace and forks without exec: the forked child
// (pid 1 in there) and its own child keep the pids the profiler sees and their real parents. A
// forked child takes getpid() as that pid only when its parent did not move it.
TEST(Robustness, ForkIntoOwnPidNamespaceKeepsTheLaunchersPids) {
    CaptureDir dir;
    const int code = profile(dir.file("f.rep"), {"-s", "none"}, {client("pidns_fork")});
    if (code == 77) GTEST_SKIP() << "unshare(CLONE_NEWPID) is not permitted here";
    ASSERT_EQ(code, 0);
    auto r = load(dir.file("f.rep"));
    ASSERT_TRUE(r);
    const auto child = events(*r, EventKind::NvtxRange, "ns-child");
    const auto grandchild = events(*r, EventKind::NvtxRange, "ns-grandchild");
    ASSERT_EQ(child.size(), 1u);
    ASSERT_EQ(grandchild.size(), 1u);
    EXPECT_GT(child[0].pid, 2);  // not its namespace pid (1)
    EXPECT_GT(grandchild[0].pid, 2);
    EXPECT_NE(child[0].pid, grandchild[0].pid);
    const Process* root = nullptr;
    for (const auto& p : r->processes)
        if (p.name == "pidns_fork" && p.pid != child[0].pid && p.pid != grandchild[0].pid)
            root = &p;
    ASSERT_TRUE(root);
    for (const auto& p : r->processes) {
        if (p.pid == child[0].pid) {
            EXPECT_EQ(p.parentPid, root->pid);
        }
        if (p.pid == grandchild[0].pid) {
            EXPECT_EQ(p.parentPid, child[0].pid);
        }
    }
}

}  // namespace
}  // namespace sl::test

namespace sl::test {
namespace {

// A program that closes every descriptor with close_range (Python's os.closerange, subprocess
// before exec) closes the stream's too, bypassing the close interposer: the stream is opened
// again and nothing is reported lost.
TEST(Robustness, StreamClosedBehindOurBackIsReopened) {
    if (std::string(SIGHTLINE_PYTHON).empty()) GTEST_SKIP() << "no python3";
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("c.rep"), {"-s", "none"},
                      {SIGHTLINE_PYTHON, "-c",
                       "import os, time; os.closerange(3, 65536); time.sleep(0.05)"}),
              0);
    auto r = load(dir.file("c.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(diagnostic(*r, "capture.write_failed"), 0);
    bool sleep = false;
    for (const auto& e : events(*r, EventKind::OsRuntime))
        if (e.end - e.start >= 40'000'000) sleep = true;
    EXPECT_TRUE(sleep);
}

}  // namespace
}  // namespace sl::test
