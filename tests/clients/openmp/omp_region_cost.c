/* Cost of -t openmp (tests/bench/capture/openmp_overhead.sh): N small parallel regions of 2
 * threads, each with a static loop of 64 iterations (argv[1], default 20000), timed inside the
 * program; prints "omp: X ns per region". Each region gives the tool 2 implicit tasks, 2 loops,
 * 4 implicit barriers and the region itself: 9 events. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    const long n = argc > 1 ? atol(argv[1]) : 20000;
    double sink = 0;
    const double t0 = omp_get_wtime();
    for (long r = 0; r < n; ++r) {
#pragma omp parallel num_threads(2) reduction(+ : sink)
        {
#pragma omp for schedule(static)
            for (int i = 0; i < 64; ++i) sink += i * 0.5;
        }
    }
    const double t1 = omp_get_wtime();
    printf("omp: %.1f ns per region (%.0f)\n", (t1 - t0) * 1e9 / (double)n, sink);
    return 0;
}
