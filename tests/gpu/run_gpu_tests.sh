#!/usr/bin/env bash
# GPU end-to-end test: runs the CUDA clients (and PyTorch, when installed) under
# `sightline profile` and checks the reports with gpu_capture_check.
#   run_gpu_tests.sh SIGHTLINE CLIENT_DIR CHECK WORK_DIR
# Exits 77 (ctest: skipped) with a clear message where there is no GPU or the driver is too old
# for CUDA 13 (< 580).
# SIGHTLINE_EXTRA_PROFILE_OPTS (optional, split on spaces): options appended to every
# `sightline profile` command, e.g. "-s none" where CPU sampling is not wanted.
set -u
SIGHTLINE=$1 CLIENTS=$2 CHECK=$3 WORK=$4
HERE=$(cd "$(dirname "$0")" && pwd)

if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "SKIP: no NVIDIA driver on this machine (nvidia-smi not found): the GPU end-to-end test needs a GPU"
  exit 77
fi
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "SKIP: nvidia-smi lists no GPU: the GPU end-to-end test needs a GPU"
  exit 77
fi
# CUDA 13 (the toolkit the clients and libsightline-cuda.so are built with) needs driver >= 580.
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1 | tr -d ' ')
driver_major=${driver%%.*}
if [[ "$driver_major" =~ ^[0-9]+$ ]]; then
  if [ "$driver_major" -lt 580 ]; then
    echo "SKIP: NVIDIA driver $driver is older than CUDA 13 needs (>= 580): the CUDA clients cannot run"
    exit 77
  fi
else
  echo "warning: could not read the driver version (nvidia-smi --query-gpu=driver_version: '$driver'); going on"
fi
if [ ! -x "$CLIENTS/cuda_workload" ]; then
  echo "FAIL: $CLIENTS/cuda_workload was not built (is nvcc available?)"
  exit 1
fi
if ! "$SIGHTLINE" profile --help >/dev/null 2>&1; then
  echo "FAIL: '$SIGHTLINE profile' is not available in this build"
  exit 1
fi
rm -rf "$WORK" && mkdir -p "$WORK"
failed=0
read -r -a extra_opts <<< "${SIGHTLINE_EXTRA_PROFILE_OPTS:-}"

# run NAME CHECK_OPTIONS -- PROFILE_OPTIONS -- COMMAND...
run() {
  local name=$1; shift
  local check_opts=() profile_opts=()
  while [ "$1" != "--" ]; do check_opts+=("$1"); shift; done; shift
  while [ "$1" != "--" ]; do profile_opts+=("$1"); shift; done; shift
  profile_opts+=(${extra_opts[@]+"${extra_opts[@]}"})
  echo "=== $name: sightline profile ${profile_opts[*]} $*"
  if ! "$SIGHTLINE" profile "${profile_opts[@]}" -o "$WORK/$name.rep" "$@" > "$WORK/$name.log" 2>&1; then
    echo "FAIL $name: sightline profile failed:"; tail -20 "$WORK/$name.log"; failed=1; return
  fi
  if ! "$CHECK" "$WORK/$name.rep" "$WORK/$name.expect" "${check_opts[@]}"; then
    echo "FAIL $name"; failed=1
  fi
}

run node --graph-mode node -- -t cuda,nvtx --cuda-graph-trace=node --cuda-memory-usage=true -- \
  "$CLIENTS/cuda_workload" "$WORK/node.expect"
run graph --graph-mode graph -- -t cuda,nvtx --cuda-graph-trace=graph -- \
  "$CLIENTS/cuda_workload" "$WORK/graph.expect"
run range --profiler-range --graph-mode node -- -t cuda -c cudaProfilerApi --capture-range-end=stop \
  --cuda-graph-trace=node -- "$CLIENTS/cuda_workload" "$WORK/range.expect"
run metrics --graph-mode graph --no-nvtx --gpu-metrics -- -t cuda --gpu-metrics-devices=all --gpu-metrics-frequency=100 -- \
  "$CLIENTS/cuda_workload" "$WORK/metrics.expect"

# The demo's GPU half (scripts/demo.sh, issue #25): 10 steps x 2 streams x 3 kernels, 3 copies
# each plus 2 pageable copies, 1 memset.
DEMO="$CLIENTS/../../clients/sightline-demo"
if [ -x "$DEMO" ] && [ -f "$(dirname "$DEMO")/libsightline-demo-gpu.so" ]; then
  echo "=== demo: sightline profile -t cuda,nvtx ${extra_opts[*]} sightline-demo"
  if "$SIGHTLINE" profile -t cuda,nvtx ${extra_opts[@]+"${extra_opts[@]}"} -o "$WORK/demo.rep" "$DEMO" > "$WORK/demo.log" 2>&1 &&
     grep -q "sightline-demo: GPU work done" "$WORK/demo.log"; then
    "$SIGHTLINE" info "$WORK/demo.rep" > "$WORK/demo.info"
    for want in "CUDA kernels +60 " "CUDA memcpy +62 " "CUDA memset +1 "; do
      grep -Eq "^  $want" "$WORK/demo.info" || { echo "FAIL demo: expected '$want' in sightline info"; failed=1; }
    done
  else
    echo "FAIL demo: the demo did not run its GPU work:"; tail -5 "$WORK/demo.log"; failed=1
  fi
fi

# -t cublas,cudnn,nccl and --cudabacktrace on PyTorch (issue #19): each library's summary has at
# least as many calls as the program made operations of it, and CUDA calls carry call stacks.
libs_step() {
  local name=libs rep="$WORK/libs.rep"
  echo "=== $name: sightline profile -t cuda,nvtx,cublas,cudnn,nccl --cudabacktrace=all:0 ${extra_opts[*]} torch_libs.py"
  if ! "$SIGHTLINE" profile -t cuda,nvtx,cublas,cudnn,nccl --cudabacktrace=all:0 ${extra_opts[@]+"${extra_opts[@]}"} \
       -o "$rep" python3 "$HERE/torch_libs.py" "$WORK/$name.expect" > "$WORK/$name.log" 2>&1; then
    echo "FAIL $name: sightline profile failed:"; tail -20 "$WORK/$name.log"; failed=1; return
  fi
  "$SIGHTLINE" stats -q -r cublas_api_sum,cudnn_api_sum,nccl_api_sum,cuda_api_sum -f csv "$rep" > "$WORK/$name.stats.out" 2>&1
  "$SIGHTLINE" export --type sqlite --force-overwrite true -o "$WORK/$name.sqlite" "$rep" > /dev/null 2>&1
  python3 - "$WORK/$name.expect" "$WORK/$name.sqlite" <<'PYEOF' || failed=1
import sqlite3, sys
want = dict(l.strip().split("=", 1) for l in open(sys.argv[1]) if "=" in l)
db = sqlite3.connect(sys.argv[2])
tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
def count(table, where=""):
    return db.execute(f"select count(*) from {table} {where}").fetchone()[0] if table in tables else 0
bad = 0
for table, key, label in (("CUBLAS_EVENTS", "matmuls", "cuBLAS"), ("CUDNN_EVENTS", "convs", "cuDNN"),
                          ("NCCL_EVENTS", "nccl_ops", "NCCL")):
    n, floor = count(table), int(want.get(key, 0))
    ok = n >= floor and (floor == 0 or n > 0)
    print(f"{'PASS' if ok else 'FAIL'} libs {label}: {n} calls captured, program made {floor} operations")
    bad |= not ok
for table in ("CUBLAS_EVENTS", "CUDNN_EVENTS", "NCCL_EVENTS"):
    if table in tables and count(table):
        names = db.execute(f"select s.value, count(*) from {table} e join StringIds s on s.id = e.nameId "
                           "group by 1 order by 2 desc limit 5").fetchall()
        print(f"  {table} top names: {names}")
api = count("CUPTI_ACTIVITY_KIND_RUNTIME")
stacked = db.execute("select count(distinct id) from CUDA_CALLCHAINS").fetchone()[0] if "CUDA_CALLCHAINS" in tables else 0
ok = api > 0 and stacked > 0
print(f"{'PASS' if ok else 'FAIL'} libs cudabacktrace: {stacked} call stacks for {api} CUDA API calls")
bad |= not ok
sys.exit(1 if bad else 0)
PYEOF
  head -60 "$WORK/$name.stats.out"
}

# PyTorch, when installed with CUDA.
if python3 "$HERE/torch_train.py" 1 >/dev/null 2>&1; then
  run torch --min-kernels -- -t cuda,nvtx -- python3 "$HERE/torch_train.py" 50 "$WORK/torch.expect"
  run torch_annotated --min-kernels --pytorch -- -t cuda,nvtx --pytorch=autograd-nvtx,functions-trace \
    --python-sampling=true --python-sampling-frequency=200 -- \
    python3 "$HERE/torch_train.py" 50 "$WORK/torch_annotated.expect"
  libs_step
else
  echo "SKIP torch: PyTorch with CUDA is not available (python3 -c 'import torch' failed or no device)"
fi

[ $failed = 0 ] && echo "GPU end-to-end: all checks passed"
exit $failed
