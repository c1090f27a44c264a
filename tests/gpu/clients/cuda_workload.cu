// GPU end-to-end client: every CUDA activity Sightline captures, with exact counts written to
// an expectations file that gpu_capture_check compares with the report.
//   cuda_workload EXPECTATIONS_FILE
// Phases (each inside an NVTX range): two streams overlapping pinned async copies with
// kernels; a pageable synchronous copy; memset; events and a cross-stream wait; a CUDA graph
// launched several times; two host threads launching on their own streams; a
// cudaProfilerStart/Stop range (for -c cudaProfilerApi).
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define CHECK(x)                                                            \
    do {                                                                    \
        cudaError_t e_ = (x);                                               \
        if (e_ != cudaSuccess) {                                            \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, \
                         cudaGetErrorString(e_));                           \
            std::exit(2);                                                   \
        }                                                                   \
    } while (0)

__global__ void scale(float* x, int n, float f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= f;
}

// Spins long enough (about 1 ms) that a copy on another stream overlaps it.
__global__ void busy(float* x, int n, long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

__global__ void empty() {}

struct Counts {
    long kernels = 0;  // launched outside graphs
    long graphLaunches = 0;
    long kernelsPerGraph = 0;
    long kernelsInProfilerRange = 0;  // outside graphs, between cudaProfilerStart and Stop
    long long htod = 0, dtoh = 0, dtod = 0, memsetBytes = 0;
    long long htodInProfilerRange = 0;
};

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s EXPECTATIONS_FILE\n", argv[0]);
        return 1;
    }
    Counts c;
    const int n = 1 << 22;  // 16 MiB of floats
    const size_t bytes = n * sizeof(float);
    const int threads = 256, blocks = (n + threads - 1) / threads;
    int clockKHz = 0;
    CHECK(cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, 0));
    const long long oneMs = static_cast<long long>(clockKHz);  // cycles per ms

    float *hostA, *hostB, *devA, *devB, *devC;
    CHECK(cudaMallocHost(&hostA, bytes));
    CHECK(cudaMallocHost(&hostB, bytes));
    CHECK(cudaMalloc(&devA, bytes));
    CHECK(cudaMalloc(&devB, bytes));
    CHECK(cudaMalloc(&devC, bytes));
    for (int i = 0; i < n; ++i) hostA[i] = hostB[i] = 1.0f;
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

    nvtxRangePushA("phase:overlap");
    for (int iter = 0; iter < 4; ++iter) {
        // s1 computes on A while s2 copies B in and out: copy and compute overlap.
        busy<<<blocks, threads, 0, s1>>>(devA, n, oneMs);
        ++c.kernels;
        CHECK(cudaMemcpyAsync(devB, hostB, bytes, cudaMemcpyHostToDevice, s2));
        c.htod += bytes;
        scale<<<blocks, threads, 0, s2>>>(devB, n, 2.0f);
        ++c.kernels;
        CHECK(cudaMemcpyAsync(hostB, devB, bytes, cudaMemcpyDeviceToHost, s2));
        c.dtoh += bytes;
    }
    CHECK(cudaDeviceSynchronize());
    nvtxRangePop();

    nvtxRangePushA("phase:pageable");
    std::vector<float> pageable(n, 3.0f);
    CHECK(cudaMemcpy(devC, pageable.data(), bytes, cudaMemcpyHostToDevice));
    c.htod += bytes;
    CHECK(cudaMemcpy(devA, devC, bytes, cudaMemcpyDeviceToDevice));
    c.dtod += bytes;
    CHECK(cudaMemcpy(pageable.data(), devA, bytes, cudaMemcpyDeviceToHost));
    c.dtoh += bytes;
    nvtxRangePop();

    nvtxRangePushA("phase:memset");
    CHECK(cudaMemset(devC, 0, bytes));
    CHECK(cudaMemsetAsync(devB, 0xFF, bytes / 2, s1));
    c.memsetBytes += bytes + bytes / 2;
    CHECK(cudaStreamSynchronize(s1));
    nvtxRangePop();

    nvtxRangePushA("phase:events");
    cudaEvent_t done, t0, t1;
    CHECK(cudaEventCreate(&done));
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    CHECK(cudaEventRecord(t0, s1));
    scale<<<blocks, threads, 0, s1>>>(devA, n, 0.5f);
    ++c.kernels;
    CHECK(cudaEventRecord(done, s1));
    CHECK(cudaStreamWaitEvent(s2, done, 0));  // s2 waits for s1's kernel
    scale<<<blocks, threads, 0, s2>>>(devA, n, 2.0f);
    ++c.kernels;
    CHECK(cudaEventRecord(t1, s2));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    nvtxRangePop();

    nvtxRangePushA("phase:graph");
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    scale<<<blocks, threads, 0, s1>>>(devA, n, 1.0f);
    scale<<<blocks, threads, 0, s1>>>(devB, n, 1.0f);
    empty<<<1, 1, 0, s1>>>();
    CHECK(cudaStreamEndCapture(s1, &graph));
    c.kernelsPerGraph = 3;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 5; ++i) {
        CHECK(cudaGraphLaunch(exec, s1));
        ++c.graphLaunches;
    }
    CHECK(cudaStreamSynchronize(s1));
    nvtxRangePop();

    nvtxRangePushA("phase:threads");
    auto worker = [&](int id) {
        nvtxRangePushA(id == 0 ? "worker 0" : "worker 1");
        cudaStream_t s;
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        for (int i = 0; i < 50; ++i) empty<<<1, 32, 0, s>>>();
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaStreamDestroy(s));
        nvtxRangePop();
    };
    std::thread w0(worker, 0), w1(worker, 1);
    w0.join();
    w1.join();
    c.kernels += 100;
    nvtxRangePop();

    nvtxRangePushA("phase:profiler-range");
    CHECK(cudaProfilerStart());
    CHECK(cudaMemcpyAsync(devA, hostA, bytes, cudaMemcpyHostToDevice, s1));
    c.htod += bytes;
    c.htodInProfilerRange += bytes;
    for (int i = 0; i < 10; ++i) scale<<<blocks, threads, 0, s1>>>(devA, n, 1.0f);
    c.kernels += 10;
    c.kernelsInProfilerRange += 10;
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaProfilerStop());
    nvtxRangePop();
    // After the range: work that -c cudaProfilerApi must not capture.
    for (int i = 0; i < 7; ++i) empty<<<1, 1, 0, s2>>>();
    c.kernels += 7;
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(devA));
    CHECK(cudaFree(devB));
    CHECK(cudaFree(devC));
    CHECK(cudaFreeHost(hostA));
    CHECK(cudaFreeHost(hostB));

    FILE* f = std::fopen(argv[1], "w");
    if (!f) {
        std::perror(argv[1]);
        return 1;
    }
    std::fprintf(
        f,
        "kernels=%ld\ngraph_launches=%ld\nkernels_per_graph=%ld\nkernels_in_profiler_range=%ld\n",
        c.kernels, c.graphLaunches, c.kernelsPerGraph, c.kernelsInProfilerRange);
    std::fprintf(f,
                 "memcpy_htod_bytes=%lld\nmemcpy_dtoh_bytes=%lld\nmemcpy_dtod_bytes=%lld\nmemset_"
                 "bytes=%lld\n",
                 c.htod, c.dtoh, c.dtod, c.memsetBytes);
    std::fprintf(f,
                 "memcpy_htod_bytes_in_profiler_range=%lld\nhost_threads_with_cuda=3\noverlap=1\n",
                 c.htodInProfilerRange);
    std::fprintf(f,
                 "nvtx_ranges=phase:overlap,phase:pageable,phase:memset,phase:events,phase:graph,"
                 "phase:threads,"
                 "phase:profiler-range,worker 0,worker 1\n");
    std::fclose(f);
    std::printf("cuda_workload: done (event elapsed %.3f ms)\n", ms);
    return 0;
}
