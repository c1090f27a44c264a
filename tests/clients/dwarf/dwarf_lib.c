/* libdwarf_lib.so for dwarf_client: dwarf_lib_entry -> dwarf_lib_spin, -O2
 * -fomit-frame-pointer (the frames a frame-pointer walk loses). */
#include "dwarf_lib.h"

#include <time.h>

static volatile double g_lib_sink;

static long long lib_thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline, noclone)) double dwarf_lib_spin(long long cpu_ns) {
    const long long until = lib_thread_cpu_ns() + cpu_ns;
    /* The seed depends on the argument: the compiler cannot fold the loop. */
    double x = 1.0 + (double)(cpu_ns & 1);
    do {
        for (int i = 0; i < 200000; ++i) x = x * 1.0000001 + 0.0000003;
    } while (lib_thread_cpu_ns() < until);
    g_lib_sink = x;
    return x;
}

double dwarf_lib_entry(long long cpu_ns) {
    double r = dwarf_lib_spin(cpu_ns);
    g_lib_sink = r;
    return r + 0.5;
}
