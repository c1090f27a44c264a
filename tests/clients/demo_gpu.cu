// The GPU half of sightline-demo (demo.cpp loads it only where the CUDA driver is present):
// about a second of CUDA work with every row Sightline shows for a GPU. Two streams each copy
// a pinned buffer in, run kernels on it and copy it back (overlapping one another), then one
// pageable synchronous copy and a memset, all inside NVTX ranges.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>

namespace {

__global__ void saxpy(float* y, const float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void spin(float* y, int n, long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += 1.0f;
}

bool ok(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return true;
    std::fprintf(stderr, "sightline-demo: %s: %s\n", what, cudaGetErrorString(e));
    return false;
}

}  // namespace

// 0: the GPU work ran; 1: no usable GPU (said on stderr).
extern "C" __attribute__((visibility("default"))) int sightline_demo_gpu() {
    int devices = 0;
    if (!ok(cudaGetDeviceCount(&devices), "cudaGetDeviceCount") || devices == 0) return 1;
    constexpr int n = 1 << 22;  // 16 MiB per buffer
    constexpr size_t bytes = n * sizeof(float);
    nvtxRangePushA("gpu-demo");
    cudaStream_t streams[2];
    float *host[2], *x[2], *y[2];
    for (int s = 0; s < 2; ++s) {
        if (!ok(cudaStreamCreate(&streams[s]), "cudaStreamCreate") ||
            !ok(cudaMallocHost(&host[s], bytes), "cudaMallocHost") ||
            !ok(cudaMalloc(&x[s], bytes), "cudaMalloc") || !ok(cudaMalloc(&y[s], bytes), "cudaMalloc"))
            return 1;
        for (int i = 0; i < n; ++i) host[s][i] = float(i % 100);
    }
    for (int step = 0; step < 10; ++step) {
        nvtxRangePushA("step");
        for (int s = 0; s < 2; ++s) {
            nvtxRangePushA(s == 0 ? "stream A" : "stream B");
            cudaMemcpyAsync(x[s], host[s], bytes, cudaMemcpyHostToDevice, streams[s]);
            cudaMemcpyAsync(y[s], host[s], bytes, cudaMemcpyHostToDevice, streams[s]);
            saxpy<<<(n + 255) / 256, 256, 0, streams[s]>>>(y[s], x[s], 2.0f, n);
            spin<<<64, 256, 0, streams[s]>>>(y[s], n, 2000000);
            saxpy<<<(n + 255) / 256, 256, 0, streams[s]>>>(y[s], x[s], 0.5f, n);
            cudaMemcpyAsync(host[s], y[s], bytes, cudaMemcpyDeviceToHost, streams[s]);
            nvtxRangePop();
        }
        cudaDeviceSynchronize();
        nvtxRangePop();
    }
    nvtxRangePushA("pageable copy");
    float* pageable = new float[n]();
    cudaMemcpy(x[0], pageable, bytes, cudaMemcpyHostToDevice);
    cudaMemset(y[0], 0, bytes);
    cudaMemcpy(pageable, y[0], bytes, cudaMemcpyDeviceToHost);
    delete[] pageable;
    nvtxRangePop();
    for (int s = 0; s < 2; ++s) {
        cudaFree(x[s]);
        cudaFree(y[s]);
        cudaFreeHost(host[s]);
        cudaStreamDestroy(streams[s]);
    }
    nvtxRangePop();
    return ok(cudaGetLastError(), "the GPU work") ? 0 : 1;
}
