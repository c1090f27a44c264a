// What one timestamp costs on this machine: clock_gettime(CLOCK_MONOTONIC) (the capture's clock,
// and CUPTI's through our timestamp callback) against the TSC. In a virtual machine whose clock
// source has no vDSO path, clock_gettime is a system call: this tells.
//   clock_cost [N=2000000]  ->  "clock_gettime_ns=X rdtsc_ns=Y clocksource=NAME"
#include <x86intrin.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
    long n = argc > 1 ? std::atol(argv[1]) : 2000000;
    volatile long sink = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) {
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        sink += ts.tv_nsec;
    }
    auto t1 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) sink += static_cast<long>(__rdtsc());
    auto t2 = std::chrono::steady_clock::now();
    std::string source = "unknown";
    std::ifstream("/sys/devices/system/clocksource/clocksource0/current_clocksource") >> source;
    auto per = [&](auto a, auto b) {
        return std::chrono::duration<double, std::nano>(b - a).count() / static_cast<double>(n);
    };
    std::printf("clock_gettime_ns=%.1f rdtsc_ns=%.1f clocksource=%s\n", per(t0, t1), per(t1, t2),
                source.c_str());
    return sink == 42 ? 1 : 0;
}
