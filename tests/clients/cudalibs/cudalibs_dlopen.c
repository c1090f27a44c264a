/* The -t cublas,cudnn,nccl test program that links none of the libraries: it opens each with
 * dlopen(RTLD_LOCAL) and takes every function from dlsym(handle, name), as programs that load
 * the libraries at run time do (cudalibs_calls.h).
 * cuBLASLt is opened first, alone, and cublasLtGetVersion taken from the program's own handle
 * (the preloaded wrapper) is called before libcublas is opened: the profiler must find the real
 * function in libcublasLt.so, not in libcublas.so (not loaded yet). It prints the version.
 * It also asks dlsym(RTLD_NEXT, "ncclGetVersion"): the answer depends on the caller (the next
 * object after this program), which the profiler's dlsym hook must keep; it prints it.
 * usage: cudalibs_dlopen [SGEMM_CALLS]   (as many cublasLtMatmul calls) */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stdlib.h>

#include "cudalibs_calls.h"

static void* open_or_die(const char* name) {
    void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", name, dlerror());
        exit(3);
    }
    return h;
}
static void* sym(void* h, const char* name) {
    void* p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
        exit(4);
    }
    return p;
}

int main(int argc, char** argv) {
    void* lt = open_or_die("libcublasLt.so.13");
    size_t (*ltVersion)(void) = (size_t(*)(void))dlsym(dlopen(NULL, RTLD_NOW), "cublasLtGetVersion");
    if (ltVersion) printf("cublasLtGetVersion %zu\n", ltVersion());
    void* b = open_or_die("libcublas.so.13");
    void* d = open_or_die("libcudnn.so.9");
    void* n = open_or_die("libnccl.so.2");
    struct Fns f;
#define S(h, name) *(void**)&f.name = sym(h, #name)
    S(b, cublasCreate_v2); S(b, cublasSetStream_v2); S(b, cublasSgemm_v2); S(b, cublasDestroy_v2);
    S(lt, cublasLtCreate); S(lt, cublasLtMatmulDescCreate); S(lt, cublasLtMatmul);
    S(lt, cublasLtMatmulDescDestroy); S(lt, cublasLtDestroy);
    S(d, cudnnGetVersion); S(d, cudnnCreate); S(d, cudnnSetStream);
    S(d, cudnnCreateTensorDescriptor); S(d, cudnnSetTensor4dDescriptor);
    S(d, cudnnDestroyTensorDescriptor); S(d, cudnnDestroy);
    S(n, ncclGetVersion); S(n, ncclCommInitAll); S(n, ncclAllReduce); S(n, ncclBroadcast);
    S(n, ncclSend); S(n, ncclCommDestroy);
    /* The program's own handle: its lookup reaches the global scope, where the preloaded
     * module's wrapper comes first. Called once before anything else resolved cublasGetVersion_v2
     * (a wrapper taken for its own real function would call itself forever). */
    cublasStatus_t (*getVersion)(cublasHandle_t, int*) =
        (cublasStatus_t(*)(cublasHandle_t, int*))dlsym(dlopen(NULL, RTLD_NOW), "cublasGetVersion_v2");
    int version = 0;
    if (getVersion) printf("cublasGetVersion_v2 %d\n", (int)getVersion(0, &version));
    runCublas(&f, argc > 1 ? atoi(argv[1]) : 5);
    runCublasLt(&f, argc > 1 ? atoi(argv[1]) : 5);
    runCudnn(&f);
    runNccl(&f);
    Dl_info info;
    void* next = dlsym(RTLD_NEXT, "ncclGetVersion");
    printf("RTLD_NEXT ncclGetVersion: %s\n",
           next && dladdr(next, &info) && info.dli_fname ? info.dli_fname : "none");
    return 0;
}
