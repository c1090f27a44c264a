#!/usr/bin/env bash
# Reports captured on a real GPU (tests/data/gpu, an H200; see its NOTICE.md) through every
# reader of the CLI, on any machine: the GPU end-to-end checks, stats, the nsys SQLite export and
# the Chrome trace, against the counts the captured program itself wrote (cuda_workload.expect).
#   check_gpu_fixtures.sh SIGHTLINE CHECK DATA_DIR WORK_DIR
set -u
SL=$1 CHECK=$2 DATA=$3 WORK=$4
rm -rf "$WORK" && mkdir -p "$WORK"
METRICS=$DATA/gpu_metrics_h200.rep EXPECT=$DATA/cuda_workload.expect
# Node mode twice: API calls recorded by CUPTI's activity (2026-11-26) and by our callbacks (the
# default since 2026-11-27).
NODES="$DATA/cuda_workload_h200.rep $DATA/cuda_workload_callbacks_h200.rep"
failed=0
fail() { echo "FAIL $*"; failed=1; }
want() { sed -n "s/^$1=//p" "$EXPECT"; }
# The program's own counts: `kernels` launched outside graphs, and in node mode each graph launch
# adds its kernels_per_graph nodes.
kernels_node=$(( $(want kernels) + $(want graph_launches) * $(want kernels_per_graph) ))

"$CHECK" "$METRICS" "$EXPECT" --graph-mode graph --no-nvtx --gpu-metrics >"$WORK/metrics.check" ||
  { cat "$WORK/metrics.check"; fail "gpu_capture_check metrics"; }

for NODE in $NODES; do
TAG=$(basename "$NODE")
# (the loop body is not indented: it holds a here-document)
# 1. The GPU end-to-end checks (tests/gpu/GpuCaptureCheck).
"$CHECK" "$NODE" "$EXPECT" --graph-mode node >"$WORK/$TAG.check" || { cat "$WORK/$TAG.check"; fail "$TAG: gpu_capture_check node"; }

# 2. stats: kernel instances and copy bytes.
"$SL" stats -r cuda_gpu_kern_sum,cuda_gpu_mem_size_sum --format csv -o "$WORK/$TAG.stats" "$NODE" >/dev/null 2>&1 ||
  fail "$TAG: sightline stats"
got=$(awk -F, 'NR > 1 { n += $3 } END { print n + 0 }' "$WORK/$TAG.stats_cuda_gpu_kern_sum.csv" 2>/dev/null)
[ "$got" = "$kernels_node" ] || fail "$TAG: stats cuda_gpu_kern_sum: $got kernel instances, the program launched $kernels_node"
got=$(grep 'Host-to-Device' "$WORK/$TAG.stats_cuda_gpu_mem_size_sum.csv" 2>/dev/null | cut -d, -f1)
[ "$got" = "$(awk "BEGIN { printf \"%.3f\", $(want memcpy_htod_bytes) / 1e6 }")" ] ||
  fail "$TAG: stats cuda_gpu_mem_size_sum: HtoD $got MB, the program copied $(want memcpy_htod_bytes) bytes"

# 3. The nsys SQLite export and the Chrome trace, read by Python (not by our code).
"$SL" export --type sqlite -o "$WORK/$TAG.sqlite" "$NODE" >/dev/null 2>&1 || fail "$TAG: export sqlite"
"$SL" export --type json -o "$WORK/$TAG.json" "$NODE" >/dev/null 2>&1 || fail "$TAG: export json"
python3 - "$WORK/$TAG.sqlite" "$WORK/$TAG.json" "$kernels_node" "$(want memcpy_htod_bytes)" \
  "$(want memcpy_dtoh_bytes)" "$(want memset_bytes)" "$(want nvtx_ranges)" <<'PY' || fail "$TAG: the SQLite export or the Chrome trace"
import json, sqlite3, sys
db, trace, kernels, htod, dtoh, memset, ranges = sys.argv[1:]
c = sqlite3.connect(db)
ok = True
def check(what, got, want):
    global ok
    if got != want:
        print(f"FAIL {what}: {got}, expected {want}")
        ok = False
check("sqlite kernels", c.execute("select count(*) from CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0], int(kernels))
bytes_by_kind = dict(c.execute("select copyKind, sum(bytes) from CUPTI_ACTIVITY_KIND_MEMCPY group by copyKind"))
check("sqlite HtoD bytes", bytes_by_kind.get(1), int(htod))
check("sqlite DtoH bytes", bytes_by_kind.get(2), int(dtoh))
check("sqlite memset bytes", c.execute("select sum(bytes) from CUPTI_ACTIVITY_KIND_MEMSET").fetchone()[0], int(memset))
names = {r[0] for r in c.execute("select coalesce(e.text, s.value) from NVTX_EVENTS e left join StringIds s on e.textId = s.id")}
for r in ranges.split(","):
    if r not in names:
        print(f"FAIL sqlite NVTX range {r!r} missing"); ok = False
check("sqlite kernels without their API call",
      c.execute("select count(*) from CUPTI_ACTIVITY_KIND_KERNEL k where not exists "
                "(select 1 from CUPTI_ACTIVITY_KIND_RUNTIME r where r.correlationId = k.correlationId)").fetchone()[0], 0)
events = json.load(open(trace))
events = events["traceEvents"] if isinstance(events, dict) else events
gpu_kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
check("chrome trace kernels", len(gpu_kernels), int(kernels))
sys.exit(0 if ok else 1)
PY
done
[ $failed = 0 ] && echo "GPU fixtures: every reader agrees with the program's counts"
exit $failed
