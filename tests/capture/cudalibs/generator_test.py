#!/usr/bin/env python3
"""capture/cudalibs/gen_wrappers.py on a made-up nccl.h with every kind of declaration the real
headers have: named, unnamed, array and function-pointer parameters, a deprecated function, a
varargs one (skipped and listed), an inline function whose body calls the API (not a
declaration), the profiling pnccl names (not wrapped). The output must compile. The depfile
names every header read, the sub-headers included. And a made-up cuBLAS with cuBLASLt: both
headers' functions wrapped in one module, an Lt handle and stream argument recorded.
usage: generator_test.py REPO_ROOT CXX"""
import os
import re
import subprocess
import sys
import tempfile

HEADER = r"""
#ifndef FAKE_NCCL_H
#define FAKE_NCCL_H
#include <stddef.h>
#include "nccl_types.h"
typedef enum { ncclSuccess = 0, ncclSystemError = 2 } ncclResult_t;
typedef struct ncclComm* ncclComm_t;
typedef struct CUstream_st* cudaStream_t;
typedef enum { ncclInt8 = 0, ncclFloat32 = 7 } ncclDataType_t;
typedef enum { ncclSum = 0 } ncclRedOp_t;
#ifdef __cplusplus
extern "C" {
#endif
ncclResult_t ncclPlain(int a, float* b);
ncclResult_t ncclConfigure(ncclSubConfig c);
ncclResult_t ncclUnnamed(int, const char*, ncclComm_t);
ncclResult_t ncclArray(const int dims[], int n);
ncclResult_t ncclCallback(void (*cb)(int), void* user);
ncclResult_t ncclLog(const char* fmt, ...);
__attribute__((deprecated)) ncclResult_t ncclOld(void);
ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
    ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
static inline ncclResult_t ncclInline(int x) { ncclResult_t r = ncclPlain(x, 0); return r; }
ncclResult_t pncclPlain(int a, float* b);
const char* ncclGetErrorString(ncclResult_t result);
#ifdef __cplusplus
}
#endif
#endif
"""


SUBHEADER = "typedef struct { int blocking; } ncclSubConfig;\n"

CUBLAS_API = r"""
#pragma once
#include <stdint.h>
#include <stddef.h>
typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1 } cublasStatus_t;
typedef struct cublasContext* cublasHandle_t;
typedef struct CUstream_st* cudaStream_t;
#ifdef __cplusplus
extern "C" {
#endif
cublasStatus_t cublasCreate_v2(cublasHandle_t* handle);
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId);
#ifdef __cplusplus
}
#endif
"""
CUBLAS_V2 = '#include "cublas_api.h"\n'
CUBLAS_LT = r"""
#pragma once
#include "cublas_api.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct cublasLtContext* cublasLtHandle_t;
typedef struct { uint64_t data[32]; } cublasLtMatmulDescOpaque_t;
typedef cublasLtMatmulDescOpaque_t* cublasLtMatmulDesc_t;
cublasStatus_t cublasLtCreate(cublasLtHandle_t* lightHandle);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle);
size_t cublasLtGetVersion(void);
cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
    const void* alpha, void* workspace, size_t workspaceSizeInBytes, cudaStream_t stream);
static inline cublasStatus_t cublasLtMatmulDescInit(cublasLtMatmulDesc_t d) {
    (void)d;
    return CUBLAS_STATUS_SUCCESS;
}
#ifdef __cplusplus
}
#endif
"""


def body_of(text, name):
    body = text[text.index(" " + name + "("):]
    return body[:body.index("\n}\n")]


def check_cublas(root, cxx, d):
    for name, content in (("cublas_api.h", CUBLAS_API), ("cublas_v2.h", CUBLAS_V2),
                          ("cublasLt.h", CUBLAS_LT)):
        with open(os.path.join(d, name), "w") as f:
            f.write(content)
    out, dep = os.path.join(d, "b.cpp"), os.path.join(d, "b.d")
    run = subprocess.run([sys.executable, os.path.join(root, "capture/cudalibs/gen_wrappers.py"),
                          "cublas", cxx, d, out, dep], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "cublas: 6 functions wrapped, 0 skipped", run.stdout
    text = open(out).read()
    assert "#include <cublasLt.h>" in text
    matmul = body_of(text, "cublasLtMatmul")
    assert "sl_call_.handle(lightHandle);" in matmul and "sl_call_.stream(stream);" in matmul, matmul
    # The handle cublasLtCreate made is its call's handle, as for cublasCreate.
    assert "sl_call_.handle(*lightHandle);" in body_of(text, "cublasLtCreate"), text
    assert "forgetHandle(lightHandle)" in body_of(text, "cublasLtDestroy"), text
    assert "sl_call_.handle" not in body_of(text, "cublasLtGetVersion")
    deps = open(dep).read()
    assert "cublasLt.h" in deps and "cublas_api.h" in deps, deps
    cc = subprocess.run([cxx, "-std=c++20", "-fsyntax-only", "-I", d, "-I", root, out],
                        capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr


def main():
    root, cxx = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "nccl.h"), "w") as f:
            f.write(HEADER)
        with open(os.path.join(d, "nccl_types.h"), "w") as f:
            f.write(SUBHEADER)
        out, dep = os.path.join(d, "w.cpp"), os.path.join(d, "w.d")
        run = subprocess.run([sys.executable, os.path.join(root, "capture/cudalibs/gen_wrappers.py"),
                              "nccl", cxx, d, out, dep], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == "nccl: 8 functions wrapped, 1 skipped: ncclLog", run.stdout
        # The depfile: a rule for the output whose inputs are every header read (a change in
        # the sub-header regenerates the wrappers).
        deps = open(dep).read()
        assert deps.startswith(out + ":"), deps
        for h in ("nccl.h", "nccl_types.h"):
            assert os.path.join(d, h) in deps, (h, deps)
        text = open(out).read()
        wrapped = sorted(re.findall(r"^SL_EXPORT [^(]*?\b(\w+)\(", text, re.M))
        expected = sorted(["ncclPlain", "ncclConfigure", "ncclUnnamed", "ncclArray", "ncclCallback", "ncclOld",
                           "ncclAllReduce", "ncclGetErrorString"])
        assert wrapped == expected, wrapped
        assert "//   ncclLog (varargs)" in text
        # The recorded NCCL arguments are picked by type and name.
        body = text[text.index("ncclAllReduce("):]
        body = body[:body.index("\n}\n")]
        for setter in ("count(count)", "datatype(datatype)", "redop(op)", "comm(comm)", "stream(stream)"):
            assert "sl_call_." + setter in body, setter
        # Unnamed parameters got names, so the call forwards all three.
        assert re.search(r"ncclUnnamed\(int sl_p0, const char\* sl_p1, ncclComm_t sl_p2\)", text), text
        cc = subprocess.run([cxx, "-std=c++20", "-fsyntax-only", "-I", d, "-I", root, out],
                            capture_output=True, text=True)
        assert cc.returncode == 0, cc.stderr
    with tempfile.TemporaryDirectory() as d:
        check_cublas(root, cxx, d)
    print("ok")


if __name__ == "__main__":
    main()
