/* Per-call cost of -t cublas / -t nccl (tests/bench/capture/cudalibs_overhead.sh): N calls of
 * a cheap library function (cublasGetProperty, cublasLtGetVersion, ncclGetVersion: no device
 * needed), timed.
 * usage: cudalibs_cost cublas|cublaslt|nccl N   prints: ns_per_call <value> */
#include <cublasLt.h>
#include <cublas_api.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char** argv) {
    if (argc < 3) return 2;
    long n = atol(argv[2]);
    int v = 0;
    long sum = 0;
    double t0 = now();
    if (strcmp(argv[1], "cublas") == 0) {
        for (long i = 0; i < n; ++i) {
            cublasGetProperty(MAJOR_VERSION, &v);
            sum += v;
        }
    } else if (strcmp(argv[1], "cublaslt") == 0) {
        for (long i = 0; i < n; ++i) sum += (long)cublasLtGetVersion();
    } else if (strcmp(argv[1], "nccl") == 0) {
        for (long i = 0; i < n; ++i) {
            ncclGetVersion(&v);
            sum += v;
        }
    } else {
        fprintf(stderr, "cudalibs_cost: unknown library %s (cublas, cublaslt or nccl)\n", argv[1]);
        return 2;
    }
    double t1 = now();
    printf("ns_per_call %.1f (sum %ld)\n", (t1 - t0) / n, sum);
    return 0;
}
