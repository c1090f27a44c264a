// Throughput client: issues small GPU operations (empty kernels and 4-byte memsets) as fast as
// possible for a given time, to check that Sightline keeps up with ~1M GPU ops/s without loss.
//   many_ops [SECONDS=5] [EXPECTATIONS_FILE] [graph]
// Prints "ops=N seconds=S ops_per_s=X"; writes the counts to the file for gpu_capture_check.
// One host thread launches about 200,000 operations a second; with "graph" it launches CUDA
// graphs of 256 empty kernels and 32 memsets instead (4 of them, one per stream), which the GPU
// runs at millions of operations a second: under --cuda-graph-trace=node each is a record.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void emptyKernel() {}

constexpr int kGraphKernels = 256, kGraphMemsets = 32;

// One graph of kGraphKernels empty kernels with a 4-byte memset after every 8th, captured from
// a stream.
cudaGraphExec_t makeGraph(cudaStream_t s, int* d) {
    cudaGraph_t g = nullptr;
    cudaGraphExec_t exec = nullptr;
    if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) != cudaSuccess) return nullptr;
    for (int i = 0; i < kGraphKernels; ++i) {
        emptyKernel<<<1, 1, 0, s>>>();
        if ((i & 7) == 7) cudaMemsetAsync(d, 0, 4, s);
    }
    if (cudaStreamEndCapture(s, &g) != cudaSuccess ||
        cudaGraphInstantiate(&exec, g, 0) != cudaSuccess)
        return nullptr;
    cudaGraphDestroy(g);
    return exec;
}

int main(int argc, char** argv) {
    double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
    const bool graphs = argc > 3 && std::strcmp(argv[3], "graph") == 0;
    int* d = nullptr;
    if (cudaMalloc(&d, 4) != cudaSuccess) {
        std::fprintf(stderr, "many_ops: no usable CUDA device\n");
        return 2;
    }
    cudaStream_t s[4];
    for (auto& x : s) cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
    long kernels = 0, memsets = 0;
    if (graphs) {
        cudaGraphExec_t g[4];
        for (int i = 0; i < 4; ++i)
            if (!(g[i] = makeGraph(s[i], d))) {
                std::fprintf(stderr, "many_ops: CUDA graph capture failed\n");
                return 3;
            }
        long launches = 0;
        auto t0 = std::chrono::steady_clock::now();
        double elapsed = 0;
        while (elapsed < seconds) {
            for (int i = 0; i < 64; ++i, ++launches) cudaGraphLaunch(g[i & 3], s[i & 3]);
            // The launch queue holds so many graphs: wait for the GPU now and then.
            cudaStreamSynchronize(s[3]);
            elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        cudaDeviceSynchronize();
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const long ops = launches * (kGraphKernels + kGraphMemsets);
        std::printf("ops=%ld seconds=%.3f ops_per_s=%.0f graph_launches=%ld\n", ops, elapsed,
                    double(ops) / elapsed, launches);
        if (argc > 2) {
            FILE* f = std::fopen(argv[2], "w");
            if (f) {
                std::fprintf(f, "kernels=0\ngraph_launches=%ld\nkernels_per_graph=%d\ngraph_memset_bytes=%ld\n",
                             launches, kGraphKernels, launches * kGraphMemsets * 4L);
                std::fclose(f);
            }
        }
        for (auto x : g) cudaGraphExecDestroy(x);
        cudaFree(d);
        return cudaGetLastError() == cudaSuccess ? 0 : 1;
    }
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
