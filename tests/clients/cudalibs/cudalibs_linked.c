/* The -t cublas,cudnn,nccl test program linked with the libraries (cudalibs_calls.h).
 * usage: cudalibs_linked [SGEMM_CALLS]   (as many cublasLtMatmul calls) */
#include <stdlib.h>

#include "cudalibs_calls.h"

int main(int argc, char** argv) {
    struct Fns f = {cublasCreate_v2, cublasSetStream_v2, cublasSgemm_v2, cublasDestroy_v2,
                    cublasLtCreate, cublasLtMatmulDescCreate, cublasLtMatmul,
                    cublasLtMatmulDescDestroy, cublasLtDestroy,
                    cudnnGetVersion, cudnnCreate, cudnnSetStream, cudnnCreateTensorDescriptor,
                    cudnnSetTensor4dDescriptor, cudnnDestroyTensorDescriptor, cudnnDestroy,
                    ncclGetVersion, ncclCommInitAll, ncclAllReduce, ncclBroadcast, ncclSend,
                    ncclCommDestroy};
    runCublas(&f, argc > 1 ? atoi(argv[1]) : 5);
    runCublasLt(&f, argc > 1 ? atoi(argv[1]) : 5);
    runCudnn(&f);
    runNccl(&f);
    return 0;
}
