// A small shared library for the CPU sampling tests: sampling_client dlopen()s it and spins in
// samplelib::spinInLibrary, whose name must resolve from the library's own symbol table.
#include <time.h>

#include <cstdint>

namespace samplelib {

volatile double g_sink = 0;

__attribute__((noinline)) double spinInLibrary(int64_t cpuNs) {
    double x = 1.0;
    timespec ts{};
    for (;;) {
        for (int i = 0; i < 200000; ++i) x = x * 1.0000001 + 0.0000001;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        if (ts.tv_sec * 1'000'000'000LL + ts.tv_nsec >= cpuNs) break;
    }
    g_sink = x;
    return x;
}

}  // namespace samplelib

extern "C" __attribute__((visibility("default"))) double sampling_lib_spin(int64_t cpuNs) {
    double r = samplelib::spinInLibrary(cpuNs);
    return r + 1.0;  // no tail call: this frame stays on the stack
}
