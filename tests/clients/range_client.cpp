// Test client for --capture-range=nvtx: NVTX ranges, marks and OS runtime calls (pread of
// /dev/zero) before, inside, between and after ranges named "window", in the main thread, in a
// second thread, in children started before/inside/after the first window, and in a "watcher"
// child that runs all along and works when told to (so a process that started before the window
// must see the switch change). Ranges that straddle the window edges:
//   "outer" (push before the first window, pop after the last) and "se_straddle_in" /
//   "b_straddle_in" (begin before, end inside window 1): never in a report;
//   "se_straddle_out" / "b_straddle_out" (begin inside window 1, end after the last window):
//   kept whole in the report of window 1. The second thread also nests 300 "deep_before" ranges
//   before window 1 and 300 "deep_inside" ranges under them inside it (past 256 levels).
// Window w (1-based) holds w+1 "inside" ranges, w+1 "mark_inside" marks and w+1 preads in the
// main thread; window 1 also holds child "child_inside" (4 ranges, 2 preads, exit 7) and one
// job of the watcher (3 "watcher_work" ranges, 2 preads). Every other phase does the same kinds
// of work under other names.
//
//   range_client WINDOWS [hang]   the parent; with "hang" it sleeps 30 s after window 1 (for
//                                 stop-shutdown, which must end it sooner)
//   range_client child NAME       4 ranges NAME, 2 preads, exit 7
//   range_client watcher          commands on fd 3 ('w' work, 'q' quit), acks on fd 4
//   range_client forks            forked children (no exec) before/inside/after a window
//   range_client domain           a start/end capture range in domain "mydomain"
//   range_client bench N PERMILLE N push/pop ranges "r", PERMILLE/1000 of them inside one
//                                 "window" range in the middle (for the stream-size figure)
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

extern char** environ;

namespace {

int g_zero = -1;
char g_self[4096];

void preads(int n) {
    char b;
    for (int i = 0; i < n; ++i)
        if (pread(g_zero, &b, 1, 0) != 1) std::exit(101);
}

void ranges(const char* name, int n) {
    for (int i = 0; i < n; ++i) {
        nvtxRangePushA(name);
        nvtxRangePop();
    }
}

// One phase of work: n ranges NAME, n marks "mark_NAME", n preads, one start/end "se_NAME".
void work(const std::string& name, int n) {
    ranges(name.c_str(), n);
    std::string mark = "mark_" + name;
    for (int i = 0; i < n; ++i) nvtxMarkA(mark.c_str());
    preads(n);
    nvtxRangeEnd(nvtxRangeStartA(("se_" + name).c_str()));
}

void runChild(const char* name) {
    char* argv[] = {g_self, const_cast<char*>("child"), const_cast<char*>(name), nullptr};
    pid_t pid;
    if (posix_spawn(&pid, g_self, nullptr, nullptr, argv, environ) != 0) std::exit(102);
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 7) std::exit(103);
}

struct Watcher {
    pid_t pid = 0;
    int cmd = -1, ack = -1;
    void start() {
        int c[2], a[2];
        if (pipe(c) != 0 || pipe(a) != 0) std::exit(104);
        pid = fork();
        if (pid == 0) {
            dup2(c[0], 3);
            dup2(a[1], 4);
            char* argv[] = {g_self, const_cast<char*>("watcher"), nullptr};
            execv(g_self, argv);
            _exit(105);
        }
        close(c[0]);
        close(a[1]);
        cmd = c[1];
        ack = a[0];
    }
    void job() {
        char b = 'w';
        if (write(cmd, &b, 1) != 1 || read(ack, &b, 1) != 1) std::exit(106);
    }
    void quit() {
        char b = 'q';
        if (write(cmd, &b, 1) != 1) std::exit(107);
        int st = 0;
        waitpid(pid, &st, 0);
    }
};

// The second thread: steps driven by the main thread (spinning with sched_yield, which is not
// an interposed call, so the handshake adds no OS runtime events).
std::atomic<int> g_step{0}, g_done{0};
void waitFor(std::atomic<int>& v, int value) {
    while (v.load() < value) sched_yield();
}
// Deeper than the 256 levels the injection keeps bit by bit: 300 "deep_before" nested under
// b_straddle_in before the window, 300 "deep_inside" nested under them inside window 1.
void nest(const char* name, int n) {
    for (int i = 0; i < n; ++i) nvtxRangePushA(name);
}
void unnest(int n) {
    for (int i = 0; i < n; ++i) nvtxRangePop();
}
void straddler() {
    waitFor(g_step, 1);
    nvtxRangePushA("b_straddle_in");
    nest("deep_before", 300);
    g_done.store(1);
    waitFor(g_step, 2);
    nest("deep_inside", 300);
    unnest(300);  // deep_inside
    unnest(300);  // deep_before
    nvtxRangePop();
    nvtxRangePushA("b_straddle_out");
    g_done.store(2);
    waitFor(g_step, 3);
    nvtxRangePop();
    g_done.store(3);
}
void step(int n) {
    g_step.store(n);
    waitFor(g_done, n);
}

int parent(int windows, bool hang) {
    Watcher watcher;
    watcher.start();
    std::thread b(straddler);
    work("before", 5);
    runChild("child_before");
    watcher.job();
    nvtxRangePushA("outer");
    nvtxRangeId_t seIn = nvtxRangeStartA("se_straddle_in");
    step(1);
    nvtxRangeId_t seOut = 0;
    for (int w = 1; w <= windows; ++w) {
        nvtxRangePushA("window");
        work("inside", w + 1);
        if (w == 1) {
            nvtxRangeEnd(seIn);
            step(2);
            seOut = nvtxRangeStartA("se_straddle_out");
            runChild("child_inside");
            watcher.job();
        }
        nvtxRangePop();
        if (hang) {
            for (int i = 0; i < 300; ++i) usleep(100000);
            _exit(0);  // not ended by stop-shutdown: the test sees exit code 0
        }
        work("between", 3);
    }
    nvtxRangeEnd(seOut);
    step(3);
    nvtxRangePop();  // "outer"
    work("after", 5);
    runChild("child_after");
    watcher.job();
    watcher.quit();
    b.join();
    return 0;
}

// "forks": children forked (no exec) before, inside and after one "window" push/pop range;
// each pushes 2 ranges "fork_<phase>" and exits 7.
int forks() {
    auto child = [](const char* name) {
        pid_t pid = fork();
        if (pid == 0) {
            ranges(name, 2);
            _exit(7);
        }
        int st = 0;
        waitpid(pid, &st, 0);
    };
    child("fork_before");
    nvtxRangePushA("window");
    child("fork_inside");
    ranges("inside", 2);
    nvtxRangePop();
    child("fork_after");
    ranges("after", 2);
    return 0;
}

// "domain": the capture range is a start/end range "window" in domain "mydomain", ended by
// another thread. Before it: a push/pop "window" in the default domain and a start/end
// "window" in domain "other" (neither may open the window).
int domain() {
    nvtxDomainHandle_t mine = nvtxDomainCreateA("mydomain");
    nvtxDomainHandle_t other = nvtxDomainCreateA("other");
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "window";
    nvtxRangePushA("window");
    ranges("before", 2);
    nvtxRangePop();
    nvtxDomainRangeEnd(other, nvtxDomainRangeStartEx(other, &a));
    ranges("before", 1);
    nvtxRangeId_t id = nvtxDomainRangeStartEx(mine, &a);
    ranges("inside", 3);
    std::thread([&] { nvtxDomainRangeEnd(mine, id); }).join();
    ranges("after", 2);
    return 0;
}

int bench(long n, long permille) {
    long inside = n * permille / 1000;
    long before = (n - inside) / 2;
    for (long i = 0; i < before; ++i) {
        nvtxRangePushA("r");
        nvtxRangePop();
    }
    nvtxRangePushA("window");
    for (long i = 0; i < inside; ++i) {
        nvtxRangePushA("r");
        nvtxRangePop();
    }
    nvtxRangePop();
    for (long i = before + inside; i < n; ++i) {
        nvtxRangePushA("r");
        nvtxRangePop();
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    ssize_t len = readlink("/proc/self/exe", g_self, sizeof g_self - 1);
    if (len <= 0) return 100;
    g_self[len] = 0;
    g_zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    if (argc >= 2 && std::strcmp(argv[1], "child") == 0) {
        ranges(argc > 2 ? argv[2] : "child", 4);
        preads(2);
        return 7;
    }
    if (argc >= 2 && std::strcmp(argv[1], "watcher") == 0) {
        char c;
        while (read(3, &c, 1) == 1 && c == 'w') {
            ranges("watcher_work", 3);
            preads(2);
            if (write(4, &c, 1) != 1) return 108;
        }
        return 0;
    }
    if (argc >= 2 && std::strcmp(argv[1], "forks") == 0) return forks();
    if (argc >= 2 && std::strcmp(argv[1], "domain") == 0) return domain();
    if (argc >= 4 && std::strcmp(argv[1], "bench") == 0)
        return bench(std::atol(argv[2]), std::atol(argv[3]));
    int windows = argc > 1 ? std::atoi(argv[1]) : 1;
    return parent(windows < 1 ? 1 : windows, argc > 2 && std::strcmp(argv[2], "hang") == 0);
}
