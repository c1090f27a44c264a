#!/usr/bin/env python3
"""Generates the wrappers of one CUDA library's public C API (-t cublas, cudnn, nccl) from the
installed headers, at build time, so a new library version is covered by rebuilding.

The headers are run through the compiler's preprocessor (their #if and API macros resolved as
for any program), then every function declared in the library's own header files whose name
has the library's prefix becomes a wrapper: same signature (the header's declaration is in
scope, so a wrong signature is a compile error), records the call (CudaLibRuntime.h) and calls
the real function found at run time. Varargs functions cannot be forwarded and are listed as
skipped in the output's comments (and printed).

cuBLASLt (cublasLt.h, libcublasLt) is part of `cublas`: the same module, kind and row (its
names start with cublasLt; docs/cuda.md says why).

With DEPFILE, every header the preprocessor read is written there as a Makefile rule for
OUT.cpp (the build system's depfile), so a change in any of them regenerates the wrappers, not
only a change in the umbrella header (cuDNN's declarations are in cudnn_*.h).

usage: gen_wrappers.py LIB CXX INCLUDE_DIR OUT.cpp [DEPFILE]
"""
import bisect
import re
import subprocess
import sys

LIBS = {
    # lib: (umbrella headers, header files whose declarations are the API, name prefix, EventKind)
    "cublas": (("cublas_v2.h", "cublasLt.h"), re.compile(r"(^|/)(cublas_api|cublasLt)\.h$"),
               "cublas", "Cublas"),
    "cudnn": (("cudnn.h",), re.compile(r"(^|/)cudnn_\w+\.h$"), "cudnn", "Cudnn"),
    "nccl": (("nccl.h",), re.compile(r"(^|/)nccl\.h$"), "nccl", "Nccl"),
}
QUALIFIERS = {"const", "volatile", "struct", "enum", "union", "restrict", "__restrict",
              "__restrict__"}
BUILTINS = {"int", "char", "float", "double", "void", "bool", "long", "short", "unsigned",
            "signed", "_Bool"}


def strip_attributes(text):
    """Removes __attribute__((...)) and __declspec(...) with balanced parentheses."""
    out, i = [], 0
    pat = re.compile(r"__attribute__\s*\(|__declspec\s*\(")
    while True:
        m = pat.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        i = j


def split_params(params):
    parts, depth, cur = [], 0, []
    for ch in params:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    last = "".join(cur).strip()
    if last:
        parts.append(last)
    return [] if parts == ["void"] else parts


def name_param(p, index):
    """(declaration with a name, the name): header parameters may be unnamed."""
    fp = re.search(r"\(\s*\*\s*(\w*)\s*\)", p)
    if fp:  # a function pointer
        if fp.group(1):
            return p, fp.group(1)
        name = "sl_p%d" % index
        return p[:fp.end() - 1].rstrip() + " " + name + p[fp.end() - 1:], name
    arr = re.search(r"(\s*\[[^\]]*\])+\s*$", p)
    base, suffix = (p[:arr.start()], p[arr.start():]) if arr else (p, "")
    tokens = re.findall(r"[A-Za-z_]\w*", base)
    ends_with_ident = re.search(r"[A-Za-z_]\w*\s*$", base) is not None
    if ends_with_ident and tokens and tokens[-1] not in BUILTINS | QUALIFIERS:
        others = [t for t in tokens[:-1] if t not in QUALIFIERS]
        if others:
            return p, tokens[-1]
    name = "sl_p%d" % index
    return base.rstrip() + " " + name + suffix, name


def parse(lib, cxx, include, out=None, depfile=None):
    umbrellas, header_re, prefix, _ = LIBS[lib]
    src = "".join("#include <%s>\n" % u for u in umbrellas)
    # As C: C++ adds overloads and inline helpers that are not the library's exported API.
    # -MD: the headers read, as a rule for OUT (the build's depfile); -E still prints the text.
    deps = ["-MD", "-MF", depfile, "-MT", out] if depfile else []
    text = subprocess.run([cxx, "-x", "c", "-E", "-I", include] + deps + ["-"], input=src,
                          capture_output=True, text=True, check=True).stdout
    # Which file each offset comes from: the preprocessor's line markers.
    marks, files, clean, pos = [], [], [], 0
    for line in text.splitlines(keepends=True):
        m = re.match(r'#\s*\d+\s+"([^"]*)"', line)
        if m:
            marks.append(pos)
            files.append(m.group(1))
            continue
        if line.startswith("#"):
            continue
        clean.append(line)
        pos += len(line)
    body = "".join(clean)
    # Brace depth at each offset: declarations count only outside any body (inline functions'
    # statements look like declarations too).
    depth_at, depth = [], 0
    for ch in body:
        depth_at.append(depth)
        depth += {"{": 1, "}": -1}.get(ch, 0)
    # Attributes shift offsets, so strip them per declaration, not in the whole text.
    decl = re.compile(r"(?:^|(?<=[;{}]))([^;{}]*?)\b(" + prefix + r"\w*)\s*\(([^;{}]*)\)\s*;")
    funcs, skipped, seen = [], [], set()
    for m in decl.finditer(body):
        if depth_at[m.start(2)] != 0:
            continue
        k = bisect.bisect_right(marks, m.start(2)) - 1
        if k < 0 or not header_re.search(files[k]):
            continue
        ret = strip_attributes(m.group(1))
        ret = re.sub(r'extern\s+"C"', "", ret)
        ret = re.sub(r"\bextern\b", "", ret).strip()
        name, params = m.group(2), strip_attributes(m.group(3))
        if re.search(r"\b(typedef|static|inline)\b", ret) or not ret or name in seen:
            continue
        seen.add(name)
        if "..." in params:
            skipped.append((name, "varargs"))
            continue
        named = [name_param(p, i) for i, p in enumerate(split_params(params))]
        funcs.append((" ".join(ret.split()), name, named))
    funcs.sort(key=lambda f: f[1])
    return funcs, skipped


def field_setters(lib, name, named):
    """Recorded columns taken from the parameters, by type and name."""
    out = []
    for i, (decl, pname) in enumerate(named):
        t = " ".join(decl.replace(pname, " ").split())
        if re.fullmatch(r"(const )?(cublasHandle_t|cublasLtHandle_t|cudnnHandle_t)", t) and i == 0:
            out.append("sl_call_.handle(%s);" % pname)
        elif t == "cudaStream_t":
            out.append("sl_call_.stream(%s);" % pname)
        elif re.fullmatch(r"(const )?ncclComm_t", t):
            out.append("sl_call_.comm(%s);" % pname)
        elif t == "ncclComm_t*" or t == "ncclComm_t *":
            out.append("sl_call_.commOut(%s);" % pname)
        elif t == "ncclDataType_t":
            out.append("sl_call_.datatype(%s);" % pname)
        elif t == "ncclRedOp_t":
            out.append("sl_call_.redop(%s);" % pname)
        elif t == "size_t" and lib == "nccl" and pname in ("count", "sendcount", "recvcount"):
            out.append("sl_call_.count(%s);" % pname)
        elif t == "int" and lib == "nccl" and pname in ("root", "peer"):
            out.append("sl_call_.peer(%s);" % pname)
        elif t == "int" and lib == "nccl" and pname in ("nranks", "ndev"):
            out.append("sl_call_.ranks(%s);" % pname)
        elif t == "int" and lib == "nccl" and pname == "rank":
            out.append("sl_call_.rank(%s);" % pname)
    return out


# What a call returns when the library is not loaded (the program reached our definition
# without the library, e.g. through dlsym(RTLD_DEFAULT, ...)).
MISSING = {"cublas": "CUBLAS_STATUS_NOT_INITIALIZED", "cudnn": "CUDNN_STATUS_NOT_INITIALIZED",
           "nccl": "ncclSystemError"}


def after_success(lib, name, named):
    """What a successful call changes in the module's state (a handle's stream)."""
    names = [n for _, n in named]
    if re.fullmatch(r"(cublasSetStream_v2|cudnnSetStream)", name) and len(names) == 2:
        return ["if (static_cast<int>(sl_r_) == 0) sl::cudalibs::rememberStream(%s, %s);" % tuple(names)]
    if re.fullmatch(r"(cublasCreate_v2|cublasLtCreate|cudnnCreate)", name) and len(names) == 1:
        # The handle the call made is the call's handle.
        return ["if (static_cast<int>(sl_r_) == 0) sl_call_.handle(*%s);" % names[0]]
    if re.fullmatch(r"(cublasDestroy_v2|cublasLtDestroy|cudnnDestroy)", name) and len(names) == 1:
        return ["if (static_cast<int>(sl_r_) == 0) sl::cudalibs::forgetHandle(%s);" % names[0]]
    return []


def main():
    if len(sys.argv) not in (5, 6) or sys.argv[1] not in LIBS:
        sys.exit("usage: gen_wrappers.py %s CXX INCLUDE_DIR OUT.cpp [DEPFILE]" % "|".join(LIBS))
    lib, cxx, include, out = sys.argv[1:5]
    funcs, skipped = parse(lib, cxx, include, out, sys.argv[5] if len(sys.argv) == 6 else None)
    kind = LIBS[lib][3]
    status_type = {"cublas": "cublasStatus_t", "cudnn": "cudnnStatus_t", "nccl": "ncclResult_t"}[lib]
    w = []
    w.append("// Generated by capture/cudalibs/gen_wrappers.py from %s's headers in %s: do not edit."
             % (lib, include))
    w.append("// %d functions wrapped; skipped (cannot be forwarded):" % len(funcs))
    for n, why in skipped:
        w.append("//   %s (%s)" % (n, why))
    # Deprecated functions are still part of the API programs call.
    w.append('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"')
    w.extend("#include <%s>" % u for u in LIBS[lib][0])
    w.append('#include "capture/cudalibs/CudaLibRuntime.h"')
    w.append("")
    w.append("namespace sl::cudalibs {")
    w.append("constexpr EventKind kLib = EventKind::%s;" % kind)
    w.append("const EventKind kModuleKind = kLib;")
    w.append("std::atomic<void*> g_real[%d];" % max(len(funcs), 1))
    w.append("}  // namespace sl::cudalibs")
    w.append("using sl::cudalibs::g_real;")
    w.append("")
    for idx, (ret, name, named) in enumerate(funcs):
        params = ", ".join(d for d, _ in named) or "void"
        args = ", ".join(n for _, n in named)
        w.append("SL_EXPORT %s %s(%s) {" % (ret, name, params))
        # The pointer type spelled out: C++ headers may overload the name.
        w.append("    using sl_fn_ = %s (*)(%s);" % (ret, params))
        w.append("    auto sl_real_ = sl::cudalibs::resolve<sl_fn_>(g_real[%d], \"%s\");"
                 % (idx, name))
        w.append("    sl::cudalibs::Call<sl::cudalibs::kLib> sl_call_(\"%s\");" % name)
        if ret == "void":
            w.append("    if (!sl_real_) return;")
            w.extend("    " + s for s in field_setters(lib, name, named))
            w.append("    sl_real_(%s);" % args)
            w.append("    sl_call_.finish();")
            w.append("}")
            continue
        missing = MISSING[lib] if ret == status_type else "sl::cudalibs::missing<%s>()" % ret
        w.append("    if (!sl_real_) return %s;" % missing)
        w.extend("    " + s for s in field_setters(lib, name, named))
        w.append("    %s sl_r_ = sl_real_(%s);" % (ret, args))
        w.append("    sl_call_.finish();")
        if ret == status_type:
            w.append("    sl_call_.status(static_cast<int64_t>(sl_r_));")
            w.extend("    " + s for s in after_success(lib, name, named))
        w.append("    return sl_r_;")
        w.append("}")
    # The table the dlsym hook reads: names in sorted order, with their wrappers and slots.
    w.append("")
    w.append("namespace sl::cudalibs {")
    w.append("const WrappedFunction g_wrapped[] = {")
    for idx, (ret, name, named) in enumerate(funcs):
        params = ", ".join(d for d, _ in named) or "void"
        w.append('    {"%s", reinterpret_cast<void*>(static_cast<%s (*)(%s)>(&::%s)), &g_real[%d]},'
                 % (name, ret, params, name, idx))
    w.append("};")
    w.append("const size_t g_wrappedCount = %d;" % len(funcs))
    w.append("}  // namespace sl::cudalibs")
    with open(out, "w") as f:
        f.write("\n".join(w) + "\n")
    print("%s: %d functions wrapped, %d skipped%s" % (
        lib, len(funcs), len(skipped),
        (": " + ", ".join(n for n, _ in skipped)) if skipped else ""))


if __name__ == "__main__":
    main()
