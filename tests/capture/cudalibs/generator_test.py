#!/usr/bin/env python3
"""capture/cudalibs/gen_wrappers.py on a made-up nccl.h with every kind of declaration the real
headers have: named, unnamed, array and function-pointer parameters, a deprecated function, a
varargs one (skipped and listed), an inline function whose body calls the API (not a
declaration), the profiling pnccl names (not wrapped). The output must compile.
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
typedef enum { ncclSuccess = 0, ncclSystemError = 2 } ncclResult_t;
typedef struct ncclComm* ncclComm_t;
typedef struct CUstream_st* cudaStream_t;
typedef enum { ncclInt8 = 0, ncclFloat32 = 7 } ncclDataType_t;
typedef enum { ncclSum = 0 } ncclRedOp_t;
#ifdef __cplusplus
extern "C" {
#endif
ncclResult_t ncclPlain(int a, float* b);
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


def main():
    root, cxx = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "nccl.h"), "w") as f:
            f.write(HEADER)
        out = os.path.join(d, "w.cpp")
        run = subprocess.run([sys.executable, os.path.join(root, "capture/cudalibs/gen_wrappers.py"),
                              "nccl", cxx, d, out], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == "nccl: 7 functions wrapped, 1 skipped: ncclLog", run.stdout
        text = open(out).read()
        wrapped = sorted(re.findall(r"^SL_EXPORT [^(]*?\b(\w+)\(", text, re.M))
        expected = sorted(["ncclPlain", "ncclUnnamed", "ncclArray", "ncclCallback", "ncclOld",
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
    print("ok")


if __name__ == "__main__":
    main()
