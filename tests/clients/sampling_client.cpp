// Test client for CPU sampling (tests/capture/SamplingCaptureTest.cpp). Built with frame
// pointers and without sibling calls so every frame is on the stack. Each mode writes what the
// test needs (pid, tid, the CPU time each busy function used) as lines to a result file.
//   threads FILE       main thread: main -> runA -> hotA (700 ms CPU);
//                      thread B: threadBEntry -> hotB (300 ms CPU)
//   lib SO FILE        dlopen(SO), spin 300 ms in its samplelib::spinInLibrary
//   work N FILE        N blocks of a fixed computation in workHot (for the overhead benchmark:
//                      the CPU time it takes, with and without sampling)
//   kernel FILE        kernelHot: 300 ms of CPU mostly in the kernel, reading /dev/zero 1 MiB at a
//                      time with its own syscall instruction
//   children FILE      fork+exec of this program ("child": childHot 300 ms), then a fork
//                      without exec (forkedHot 300 ms)
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

volatile double g_sink = 0;
const char* g_file = nullptr;

int64_t threadCpuNs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// The busy loop, inlined into each named function: the sampled instruction is in that function.
#define SPIN_UNTIL(cpuNs)                                               \
    double x = 1.0;                                                     \
    for (;;) {                                                          \
        for (int i = 0; i < 200000; ++i) x = x * 1.0000001 + 0.0000001; \
        if (threadCpuNs() >= (cpuNs)) break;                            \
    }                                                                   \
    g_sink = x;                                                         \
    return x

void report(const char* what, int64_t cpuNs) {
    FILE* f = std::fopen(g_file, "a");
    if (!f) return;
    std::fprintf(f, "%s %d %ld %lld\n", what, getpid(), syscall(SYS_gettid),
                 static_cast<long long>(cpuNs));
    std::fclose(f);
}

}  // namespace

__attribute__((noinline)) double hotA(int64_t cpuNs) {
    SPIN_UNTIL(cpuNs);
}
__attribute__((noinline)) double hotB(int64_t cpuNs) {
    SPIN_UNTIL(cpuNs);
}
__attribute__((noinline)) double childHot(int64_t cpuNs) {
    SPIN_UNTIL(cpuNs);
}
__attribute__((noinline)) double forkedHot(int64_t cpuNs) {
    SPIN_UNTIL(cpuNs);
}

__attribute__((noinline)) double workHot(long blocks) {
    double x = 1.0;
    for (long b = 0; b < blocks; ++b)
        for (int i = 0; i < 1'000'000; ++i) x = x * 1.0000001 + 0.0000001;
    g_sink = x;
    return x;
}

// read(2) issued from this function itself: not through libc or the profiler's interposed
// read(), which have no frame pointers (the caller would be skipped), so the stack is exactly
// [kernel function], kernelHot, main.
static inline __attribute__((always_inline)) long rawRead(int fd, void* buf, size_t n) {
#if defined(__x86_64__)
    long ret;
    asm volatile("syscall"
                 : "=a"(ret)
                 : "a"(SYS_read), "D"(fd), "S"(buf), "d"(n)
                 : "rcx", "r11", "memory");
    return ret;
#else
    return syscall(SYS_read, fd, buf, n);
#endif
}

__attribute__((noinline)) double kernelHot(int64_t cpuNs) {
    static char buf[1 << 20];
    const int fd = open("/dev/zero", O_RDONLY);
    // The CPU-time check (clock_gettime: libc, no frame pointer) only every 16 reads.
    for (bool ok = true; ok && threadCpuNs() < cpuNs;)
        for (int i = 0; ok && i < 16; ++i) ok = rawRead(fd, buf, sizeof buf) > 0;
    close(fd);
    g_sink = buf[100];
    return 1.0 + buf[7];
}

__attribute__((noinline)) double runA() {
    double r = hotA(700'000'000);
    report("A", threadCpuNs());
    return r + 1;
}

extern "C" void* threadBEntry(void*) {
    double r = hotB(300'000'000);
    report("B", threadCpuNs());
    g_sink = r + 1;
    return nullptr;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: sampling_client threads|lib SO|work N|kernel|children|child FILE\n");
        return 2;
    }
    const char* mode = argv[1];
    g_file = argv[argc - 1];
    if (std::strcmp(mode, "threads") == 0) {
        pthread_t b;
        pthread_create(&b, nullptr, threadBEntry, nullptr);
        double r = runA();
        pthread_join(b, nullptr);
        return r > 0 ? 0 : 1;
    }
    if (std::strcmp(mode, "lib") == 0 && argc == 4) {
        void* h = dlopen(argv[2], RTLD_NOW);
        if (!h) {
            std::fprintf(stderr, "%s\n", dlerror());
            return 3;
        }
        auto spin = reinterpret_cast<double (*)(int64_t)>(dlsym(h, "sampling_lib_spin"));
        if (!spin) return 4;
        double r = spin(300'000'000);
        report("L", threadCpuNs());
        return r > 0 ? 0 : 1;
    }
    if (std::strcmp(mode, "work") == 0 && argc == 4) {
        double r = workHot(std::atol(argv[2]));
        report("W", threadCpuNs());
        return r > 0 ? 0 : 1;
    }
    if (std::strcmp(mode, "kernel") == 0) {
        double r = kernelHot(300'000'000);
        report("K", threadCpuNs());
        return r > 0 ? 0 : 1;
    }
    if (std::strcmp(mode, "child") == 0) {
        double r = childHot(300'000'000);
        report("C", threadCpuNs());
        return r > 0 ? 0 : 1;
    }
    if (std::strcmp(mode, "children") == 0) {
        pid_t c = fork();
        if (c == 0) {
            execl("/proc/self/exe", "sampling_client", "child", g_file, nullptr);
            _exit(127);
        }
        int st = 0;
        waitpid(c, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 5;
        pid_t f = fork();
        if (f == 0) {
            double r = forkedHot(300'000'000);
            report("F", threadCpuNs());
            _exit(r > 0 ? 0 : 1);
        }
        waitpid(f, &st, 0);
        return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 6;
    }
    std::fprintf(stderr, "sampling_client: unknown mode %s\n", mode);
    return 2;
}
