/* The known sequence of cuBLAS (cuBLASLt included), cuDNN and NCCL calls of the -t cublas,cudnn,nccl tests
 * (tests/capture/CudaLibsCaptureTest.cpp), shared by the program linked with the libraries and
 * the one that opens them with dlopen and finds every function with dlsym(handle, ...).
 * Without a GPU the calls fail and return their error; they are recorded all the same.
 * Each library's functions come through a table (F), filled by the linker or by dlsym. */
#include <cublasLt.h>
#include <cublas_api.h>
#include <cudnn.h>
#include <nccl.h>
#include <stdio.h>

struct Fns {
    cublasStatus_t (*cublasCreate_v2)(cublasHandle_t*);
    cublasStatus_t (*cublasSetStream_v2)(cublasHandle_t, cudaStream_t);
    cublasStatus_t (*cublasSgemm_v2)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                     int, int, const float*, const float*, int, const float*,
                                     int, const float*, float*, int);
    cublasStatus_t (*cublasDestroy_v2)(cublasHandle_t);
    cublasStatus_t (*cublasLtCreate)(cublasLtHandle_t*);
    cublasStatus_t (*cublasLtMatmulDescCreate)(cublasLtMatmulDesc_t*, cublasComputeType_t, cudaDataType_t);
    cublasStatus_t (*cublasLtMatmul)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void*, const void*,
                                     cublasLtMatrixLayout_t, const void*, cublasLtMatrixLayout_t,
                                     const void*, const void*, cublasLtMatrixLayout_t, void*,
                                     cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t*, void*, size_t,
                                     cudaStream_t);
    cublasStatus_t (*cublasLtMatmulDescDestroy)(cublasLtMatmulDesc_t);
    cublasStatus_t (*cublasLtDestroy)(cublasLtHandle_t);
    size_t (*cudnnGetVersion)(void);
    cudnnStatus_t (*cudnnCreate)(cudnnHandle_t*);
    cudnnStatus_t (*cudnnSetStream)(cudnnHandle_t, cudaStream_t);
    cudnnStatus_t (*cudnnCreateTensorDescriptor)(cudnnTensorDescriptor_t*);
    cudnnStatus_t (*cudnnSetTensor4dDescriptor)(cudnnTensorDescriptor_t, cudnnTensorFormat_t,
                                                cudnnDataType_t, int, int, int, int);
    cudnnStatus_t (*cudnnDestroyTensorDescriptor)(cudnnTensorDescriptor_t);
    cudnnStatus_t (*cudnnDestroy)(cudnnHandle_t);
    ncclResult_t (*ncclGetVersion)(int*);
    ncclResult_t (*ncclCommInitAll)(ncclComm_t*, int, const int*);
    ncclResult_t (*ncclAllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t,
                                  ncclComm_t, cudaStream_t);
    ncclResult_t (*ncclBroadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t,
                                  cudaStream_t);
    ncclResult_t (*ncclSend)(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*ncclCommDestroy)(ncclComm_t);
};

/* A stream value the test can find in the recorded columns: a made-up one where the handle
 * could not be created (no GPU; the library then never uses it), the default stream otherwise,
 * or SL_TEST_STREAM (hex) where the test gives one (with a stand-in library that never uses it). */
#define FAKE_STREAM ((cudaStream_t)0x5150)
#include <stdlib.h>
static cudaStream_t streamForHandle(int created) {
    const char* given = getenv("SL_TEST_STREAM");
    if (given) return (cudaStream_t)strtoull(given, 0, 16);
    return created ? (cudaStream_t)0 : FAKE_STREAM;
}

/* cuBLAS: Create, SetStream, Sgemm x n, Destroy (3 + n calls). */
static void runCublas(const struct Fns* f, int n) {
    cublasHandle_t h = 0;
    cublasStatus_t s = f->cublasCreate_v2(&h);
    cudaStream_t stream = streamForHandle(s == CUBLAS_STATUS_SUCCESS);
    f->cublasSetStream_v2(h, stream);
    float alpha = 1, beta = 0;
    for (int i = 0; i < n; ++i)
        f->cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &alpha, 0, 64, 0, 64, &beta, 0, 64);
    printf("cublasCreate %d\n", (int)s);
    f->cublasDestroy_v2(h);
}

/* cuBLASLt: Create, MatmulDescCreate, Matmul x n, MatmulDescDestroy, Destroy (4 + n calls).
 * Each Matmul passes its stream argument (streamForHandle); its matrix layouts are null, so
 * even with a device it returns an error without running anything. */
static void runCublasLt(const struct Fns* f, int n) {
    cublasLtHandle_t h = 0;
    cublasStatus_t s = f->cublasLtCreate(&h);
    cudaStream_t stream = streamForHandle(s == CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulDesc_t d = 0;
    cublasStatus_t ds = f->cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    float alpha = 1, beta = 0;
    for (int i = 0; i < n; ++i)
        f->cublasLtMatmul(h, d, &alpha, 0, 0, 0, 0, &beta, 0, 0, 0, 0, 0, 0, 0, stream);
    f->cublasLtMatmulDescDestroy(ds == CUBLAS_STATUS_SUCCESS ? d : 0);
    printf("cublasLtCreate %d\n", (int)s);
    f->cublasLtDestroy(h);
}

/* cuDNN: GetVersion, Create, SetStream, tensor descriptor create/set/destroy, Destroy (7). */
static void runCudnn(const struct Fns* f) {
    printf("cudnn version %zu\n", f->cudnnGetVersion());
    cudnnHandle_t h = 0;
    cudnnStatus_t s = f->cudnnCreate(&h);
    f->cudnnSetStream(h, s == CUDNN_STATUS_SUCCESS ? (cudaStream_t)0 : FAKE_STREAM);
    cudnnTensorDescriptor_t d = 0;
    f->cudnnCreateTensorDescriptor(&d);
    f->cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 8, 8);
    f->cudnnDestroyTensorDescriptor(d);
    if (s == CUDNN_STATUS_SUCCESS) f->cudnnDestroy(h);
    else f->cudnnDestroy(0);
    printf("cudnnCreate %d\n", (int)s);
}

/* NCCL: GetVersion, CommInitAll (2 devices), AllReduce 1024 floats, Broadcast 256 doubles from
 * root 1, Send 100 int32 to peer 1, CommDestroy (6). */
static void runNccl(const struct Fns* f) {
    int v = 0;
    f->ncclGetVersion(&v);
    ncclComm_t comms[2] = {0, 0};
    ncclResult_t s = f->ncclCommInitAll(comms, 2, 0);
    f->ncclAllReduce(0, 0, 1024, ncclFloat32, ncclSum, comms[0], FAKE_STREAM);
    f->ncclBroadcast(0, 0, 256, ncclFloat64, 1, comms[0], FAKE_STREAM);
    f->ncclSend(0, 100, ncclInt32, 1, comms[0], FAKE_STREAM);
    f->ncclCommDestroy(comms[0]);
    printf("nccl version %d, ncclCommInitAll %d\n", v, (int)s);
}
