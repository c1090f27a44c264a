// Launch-overhead benchmark client: N launches of an empty kernel, timed on the host.
//   empty_kernels [N=100000]
// Prints "launches=N seconds=S ns_per_launch=X". Run once plain and once under
// `sightline profile -t cuda`; the difference per launch is the tracing cost.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void emptyKernel() {}

int main(int argc, char** argv) {
    long n = argc > 1 ? std::atol(argv[1]) : 100000;
    emptyKernel<<<1, 1>>>();  // context creation and module load outside the timing
    if (cudaDeviceSynchronize() != cudaSuccess) {
        std::fprintf(stderr, "empty_kernels: no usable CUDA device\n");
        return 2;
    }
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) emptyKernel<<<1, 1>>>();
    cudaDeviceSynchronize();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("launches=%ld seconds=%.6f ns_per_launch=%.1f\n", n, s, s * 1e9 / double(n));
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
