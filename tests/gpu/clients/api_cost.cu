// What one CUDA API call costs on the host, for the calls frameworks make around each launch:
//   api_cost [N=200000]
// Prints one line per function: "api=NAME calls=N ns_per_call=X". Run plain and under
// `sightline profile -t cuda` (tests/bench/cuda/api_cost_matrix.sh): PyTorch makes ~17
// cudaGetDevice calls per kernel, so what a tracer adds to such a query counts as much as
// what it adds to the launch.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void emptyKernel() {}

template <class F>
void timeCalls(const char* name, long n, F&& call) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) call(i);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("api=%s calls=%ld ns_per_call=%.1f\n", name, n, s * 1e9 / double(n));
}

int main(int argc, char** argv) {
    long n = argc > 1 ? std::atol(argv[1]) : 200000;
    emptyKernel<<<1, 1>>>();  // context creation and module load outside the timing
    if (cudaDeviceSynchronize() != cudaSuccess) {
        std::fprintf(stderr, "api_cost: no usable CUDA device\n");
        return 2;
    }
    int device = 0;
    cudaStream_t stream;
    cudaEvent_t event;
    if (cudaGetDevice(&device) != cudaSuccess || cudaStreamCreate(&stream) != cudaSuccess ||
        cudaEventCreateWithFlags(&event, cudaEventDisableTiming) != cudaSuccess)
        return 3;
    volatile int sink = 0;
    // Queries left out of the trace by default (negligible): what each still costs.
    timeCalls("cudaGetDevice", n, [&](long) { cudaGetDevice(&device); sink = device; });
    timeCalls("cudaSetDevice", n, [&](long) { cudaSetDevice(device); });
    timeCalls("cudaGetLastError", n, [&](long) { sink = cudaGetLastError(); });
    // Recorded calls that do no GPU work.
    timeCalls("cudaStreamQuery", n, [&](long) { sink = cudaStreamQuery(stream); });
    timeCalls("cudaEventRecord", n, [&](long) { cudaEventRecord(event, stream); });
    cudaStreamSynchronize(stream);
    // Launches (the queue drained now and then, so the launch never waits for a full queue).
    timeCalls("cudaLaunchKernel", n / 2, [&](long i) {
        emptyKernel<<<1, 1, 0, stream>>>();
        if (i % 512 == 511) cudaStreamSynchronize(stream);
    });
    cudaStreamSynchronize(stream);
    // A framework's launch: 17 device queries, the launch, a last-error check.
    timeCalls("pytorch-like-launch", n / 20, [&](long i) {
        for (int q = 0; q < 17; ++q) cudaGetDevice(&device);
        emptyKernel<<<1, 1, 0, stream>>>();
        sink = cudaGetLastError();
        if (i % 512 == 511) cudaStreamSynchronize(stream);
    });
    cudaStreamSynchronize(stream);
    cudaEventDestroy(event);
    cudaStreamDestroy(stream);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
