/* A stand-in libcublas.so.13 for the -t cublas tests: the real cuBLAS needs a GPU to make a
 * handle, so this one makes one without (FAKE_HANDLE), so the success path is tested: the
 * profiler takes a handle's stream from its cublasSetStream and gives it to the later calls on
 * that handle. Only the functions cudalibs_calls.h calls. Like the real one, its GEMM calls a
 * public cuBLASLt function (through its PLT, so into the profiler's wrapper): the profiler
 * records the outer call only. */
#include <cublasLt.h>
#include <cublas_api.h>
#include <stdint.h>

#define FAKE_HANDLE ((cublasHandle_t)(uintptr_t)0xb1a5)

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
    *handle = FAKE_HANDLE;
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
    (void)stream;
    return handle == FAKE_HANDLE ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                              int k, const float* alpha, const float* A, int lda, const float* B, int ldb,
                              const float* beta, float* C, int ldc) {
    (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb;
    (void)beta, (void)C, (void)ldc;
    if (cublasLtGetVersion() == 0) return CUBLAS_STATUS_INTERNAL_ERROR;
    return handle == FAKE_HANDLE ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
    return handle == FAKE_HANDLE ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
