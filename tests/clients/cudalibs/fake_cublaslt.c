/* A stand-in libcublasLt.so.13 for the -t cublas tests, beside fake_cublas.c's libcublas.so.13:
 * the real cuBLASLt needs a GPU to make a handle, so this one makes one without
 * (FAKE_LT_HANDLE). The profiler records the handle cublasLtCreate made on that call and on
 * every call given it, and cublasLtMatmul's own stream argument. Only the functions
 * cudalibs_calls.h calls. */
#include <cublasLt.h>
#include <stdint.h>

#define FAKE_LT_HANDLE ((cublasLtHandle_t)(uintptr_t)0xb1a7)

static cublasLtMatmulDescOpaque_t g_desc;

cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
    *handle = FAKE_LT_HANDLE;
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute,
                                        cudaDataType_t scale) {
    (void)compute, (void)scale;
    *desc = &g_desc;
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha,
                              const void* A, cublasLtMatrixLayout_t Adesc, const void* B,
                              cublasLtMatrixLayout_t Bdesc, const void* beta, const void* C,
                              cublasLtMatrixLayout_t Cdesc, void* D, cublasLtMatrixLayout_t Ddesc,
                              const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspaceSize,
                              cudaStream_t stream) {
    (void)alpha, (void)A, (void)Adesc, (void)B, (void)Bdesc, (void)beta, (void)C, (void)Cdesc;
    (void)D, (void)Ddesc, (void)algo, (void)workspace, (void)workspaceSize, (void)stream;
    return handle == FAKE_LT_HANDLE && desc == &g_desc ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
    return desc == &g_desc ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}
size_t cublasLtGetVersion(void) { return 99999; }
cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
    return handle == FAKE_LT_HANDLE ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
