/* Test client for -b dwarf (tests/capture/DwarfCaptureTest.cpp): built with -O2
 * -fomit-frame-pointer, like its library, so a frame-pointer walk cannot get past the sampled
 * function, while the DWARF CFI (.eh_frame) describes every frame. The known call tree:
 *   main -> dwarf_a -> dwarf_b -> dwarf_spin_exe                          (half the CPU time)
 *   main -> dwarf_a -> dwarf_b -> dwarf_lib_entry -> dwarf_lib_spin      (libdwarf_lib.so)
 * Usage: dwarf_client [CPU_MS] (default 600), the CPU time spent in the two spin loops. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dwarf_lib.h"

static volatile double g_sink;

static long long thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* noinline, noclone: the names stay the functions' own (no .constprop copies). The loops use
 * the callee-saved registers and the stack, so the CFI of each frame is not trivial. */
__attribute__((noinline, noclone)) double dwarf_spin_exe(long long cpu_ns) {
    const long long until = thread_cpu_ns() + cpu_ns;
    /* The seed depends on the argument: the compiler cannot fold the loop. */
    double x = 1.0 + (double)(cpu_ns & 1);
    do {
        for (int i = 0; i < 200000; ++i) x = x * 1.0000001 + 0.0000001;
    } while (thread_cpu_ns() < until);
    g_sink = x;
    return x;
}

__attribute__((noinline, noclone)) double dwarf_b(long long cpu_ns) {
    /* Calls whose results are used after them: no sibling calls, the frames stay. */
    double r = dwarf_spin_exe(cpu_ns / 2);
    r += dwarf_lib_entry(cpu_ns / 2);
    g_sink = r;
    return r + 1.0;
}

__attribute__((noinline, noclone)) double dwarf_a(long long cpu_ns) {
    double r = dwarf_b(cpu_ns);
    g_sink = r;
    return r * 2.0;
}

int main(int argc, char** argv) {
    const long long ms = argc > 1 ? atoll(argv[1]) : 600;
    if (ms <= 0) {
        fprintf(stderr, "usage: dwarf_client [CPU_MS > 0]\n");
        return 2;
    }
    const double r = dwarf_a(ms * 1000000LL);
    return r > 0 ? 0 : 1;
}
