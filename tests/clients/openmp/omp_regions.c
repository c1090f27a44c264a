/* An OpenMP program with known constructs (tests/capture/OpenMpCaptureTest.cpp): three parallel
 * regions of 4 threads, each with a static loop of 1000 iterations; the second region has an
 * explicit barrier, the third a single construct that creates 8 tasks and waits for them.
 * Built twice: with clang and LLVM's libomp (OMPT) and with GCC's libgomp (no OMPT).
 * Prints the checksum; exits 0 when it is right. */
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static double work(int i) {
    double x = i;
    for (int k = 0; k < 200; ++k) x = x * 0.999 + 1.0;
    return x;
}

int main(void) {
    double parts[3][4] = {{0}};
    double tasks[8] = {0};
    for (int r = 0; r < 3; ++r) {
#pragma omp parallel num_threads(4)
        {
            int me = 0;
#ifdef _OPENMP
            me = omp_get_thread_num();
#endif
            double mine = 0;
#pragma omp for schedule(static)
            for (int i = 0; i < 1000; ++i) mine += work(i);
            parts[r][me & 3] += mine;
            if (r == 1) {
#pragma omp barrier
            }
            if (r == 2) {
#pragma omp single
                {
                    for (int t = 0; t < 8; ++t) {
#pragma omp task firstprivate(t)
                        tasks[t] = work(t * 100);
                    }
#pragma omp taskwait
                }
            }
        }
    }
    double sum = 0;
    for (int r = 0; r < 3; ++r)
        for (int t = 0; t < 4; ++t) sum += parts[r][t];
    for (int t = 0; t < 8; ++t) sum += tasks[t];
    printf("checksum %.3f\n", sum);
    return sum > 0 ? 0 : 1;
}
