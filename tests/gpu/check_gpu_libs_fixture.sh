#!/usr/bin/env bash
# A report of PyTorch calling cuBLAS, cuDNN and NCCL, captured on a real GPU (tests/data/gpu, an
# H200; see its NOTICE.md) with `-t cuda,nvtx,cublas,cudnn,nccl --cudabacktrace=all:0`, through the
# CLI's readers on any machine, against what the program did (torch_libs.expect, written by
# tests/gpu/torch_libs.py): one cublasSgemm per torch.mm of two fp32 matrices, three cuDNN
# executions per convolution step (forward, backward data, backward filter), one ncclAllReduce per
# all_reduce and one ncclBcast per broadcast; every CUDA API call with its call stack.
#   check_gpu_libs_fixture.sh SIGHTLINE DATA_DIR WORK_DIR
set -u
SL=$1 DATA=$2 WORK=$3
REP=$DATA/torch_libs_h200.rep EXPECT=$DATA/torch_libs.expect
rm -rf "$WORK" && mkdir -p "$WORK"
failed=0
fail() { echo "FAIL $*"; failed=1; }
want() { sed -n "s/^$1=//p" "$EXPECT"; }

# 1. stats: the three library summaries, calls per name.
"$SL" stats -q -r cublas_api_sum,cudnn_api_sum,nccl_api_sum -f csv -o "$WORK/stats" "$REP" ||
  fail "sightline stats"
calls() {  # REPORT NAME -> Num Calls of that row (nsys's columns: Num Calls is the third)
  awk -F, -v n="$2" 'NR > 1 { gsub(/"/, ""); if ($NF == n) print $3 }' "$WORK/stats_$1.csv" 2>/dev/null
}
check() {  # WHAT GOT WANT
  if [ "$2" = "$3" ]; then echo "PASS $1: $2"; else fail "$1: $2, expected $3"; fi
}
check "cublas_api_sum cublasSgemm_v2 calls" "$(calls cublas_api_sum cublasSgemm_v2)" "$(want matmuls)"
check "cudnn_api_sum cudnnBackendExecute calls" "$(calls cudnn_api_sum cudnnBackendExecute)" "$(( $(want convs) * 3 ))"
check "nccl_api_sum ncclAllReduce calls" "$(calls nccl_api_sum ncclAllReduce)" "$(want allreduces)"
check "nccl_api_sum ncclBcast calls" "$(calls nccl_api_sum ncclBcast)" "$(want broadcasts)"

# 2. The nsys SQLite export, read by Python: the event tables agree with stats, NCCL operations
#    carry their sizes, every CUDA API call has a call stack, and stacks of calls made inside NCCL
#    pass through libnccl.
"$SL" export --type sqlite -o "$WORK/libs.sqlite" "$REP" >/dev/null 2>&1 || fail "export sqlite"
total() { awk -F, 'NR > 1 { gsub(/"/, ""); n += $3 } END { print n + 0 }' "$WORK/stats_$1.csv" 2>/dev/null; }
python3 - "$WORK/libs.sqlite" "$(total cublas_api_sum)" "$(total cudnn_api_sum)" "$(total nccl_api_sum)" \
  "$(want nccl_elements)" <<'PY' || failed=1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
ok = True
def check(what, got, want):
    global ok
    print(f"{'PASS' if got == want else 'FAIL'} {what}: {got}" + ("" if got == want else f", expected {want}"))
    ok &= got == want
for table, want in (("CUBLAS_EVENTS", sys.argv[2]), ("CUDNN_EVENTS", sys.argv[3]), ("NCCL_EVENTS", sys.argv[4])):
    check(f"sqlite {table} rows = the stats' calls", db.execute(f"select count(*) from {table}").fetchone()[0], int(want))
# torch.ones(n) of float32 in a one-rank group: n elements, 4 n bytes, rank 0 of 1.
sizes = set(db.execute("select e.count, e.size, e.rank, e.nRanks from NCCL_EVENTS e join StringIds s "
                       "on s.id = e.nameId where s.value = 'ncclAllReduce'"))
n = int(sys.argv[5])
check("sqlite ncclAllReduce count, bytes, rank, ranks", sizes, {(n, 4 * n, 0, 1)})
api, stacked = db.execute("select count(*), count(callchainId) from CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()
check("sqlite CUDA API calls without a call stack", api - stacked, 0)
through_nccl = db.execute(
    "select count(distinct c.id) from CUDA_CALLCHAINS c join StringIds m on m.id = c.module "
    "where m.value like '%libnccl.so%'").fetchone()[0]
check("sqlite CUDA call stacks through libnccl present", through_nccl > 0, True)
sys.exit(0 if ok else 1)
PY
[ $failed = 0 ] && echo "GPU library fixture: every reader agrees with the program's calls"
exit $failed
