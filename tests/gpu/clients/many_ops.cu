// Throughput client: issues small GPU operations (empty kernels and 4-byte memsets) as fast as
// possible for a given time, to check that Sightline keeps up with ~1M GPU ops/s without loss.
//   many_ops [SECONDS=5] [EXPECTATIONS_FILE]
// Prints "ops=N seconds=S ops_per_s=X"; writes "kernels=K memset_ops=M" to the file.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void emptyKernel() {}

int main(int argc, char** argv) {
    double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
    int* d = nullptr;
    if (cudaMalloc(&d, 4) != cudaSuccess) {
        std::fprintf(stderr, "many_ops: no usable CUDA device\n");
        return 2;
    }
    cudaStream_t s[4];
    for (auto& x : s) cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
    long kernels = 0, memsets = 0;
    auto t0 = std::chrono::steady_clock::now();
    double elapsed = 0;
    while (elapsed < seconds) {
        for (int i = 0; i < 1000; ++i) {
            emptyKernel<<<1, 1, 0, s[i & 3]>>>();
            ++kernels;
            if ((i & 7) == 0) {
                cudaMemsetAsync(d, 0, 4, s[i & 3]);
                ++memsets;
            }
        }
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    cudaDeviceSynchronize();
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("ops=%ld seconds=%.3f ops_per_s=%.0f\n", kernels + memsets, elapsed,
                double(kernels + memsets) / elapsed);
    if (argc > 2) {
        FILE* f = std::fopen(argv[2], "w");
        if (f) {
            std::fprintf(f, "kernels=%ld\nmemset_ops=%ld\n", kernels, memsets);
            std::fclose(f);
        }
    }
    cudaFree(d);
    return 0;
}
