#!/usr/bin/env bash
# The one command of a short GPU-machine run (from the repository root):
#   bash tests/gpu/run_on_gpu_machine.sh BUNDLE OUT
# BUNDLE: what scripts/gpu-bundle.sh assembled (build-gpu/bundle): bin/sightline,
#   bin/gpu_capture_check, lib/sightline/ (modules, python/, deps/), clients/.
# OUT: gets summary.txt (every step, PASS/FAIL/SKIP and its numbers), reports.tar.gz (per-step
#   logs and the reports of up to 10 MiB each), cuda_workload.rep and gpu_metrics.rep (< 4 MiB).
# Never hangs: each step runs under `timeout`, later steps get what is left of an overall
# budget (SIGHTLINE_GPU_RUN_BUDGET seconds, default 345), a failed step does not stop the others.
# Without a GPU every GPU step skips in seconds and summary.txt says so at the top.
# SIGHTLINE_EXTRA_PROFILE_OPTS is passed on to run_gpu_tests.sh (options for every profile).
set -u
BUNDLE=${1:?usage: run_on_gpu_machine.sh BUNDLE OUT}
OUT=${2:?usage: run_on_gpu_machine.sh BUNDLE OUT}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUNDLE=$(cd "$BUNDLE" && pwd) || { echo "no bundle at $1"; exit 2; }
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
BUDGET=${SIGHTLINE_GPU_RUN_BUDGET:-345}
TORCH_STEPS=${SIGHTLINE_TORCH_STEPS:-1000}
DEADLINE=$((SECONDS + BUDGET))
WORK=$(mktemp -d /tmp/sl-gpu-run-XXXXXX)
LOGS=$WORK/logs
mkdir -p "$LOGS"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
SL=$BUNDLE/bin/sightline
CHECK=$BUNDLE/bin/gpu_capture_check
export PATH="$PATH:/usr/local/cuda/bin"
results=()

# ---- helpers ----
say() { printf '%s\n' "$*" >>"$SUMMARY"; }
# Prints a file (or stdin) into the summary, at most N lines (default 200).
show() {
  local n=${2:-200} f=$1 total
  total=$(wc -l <"$f" 2>/dev/null || echo 0)
  sed -n "1,${n}p" "$f" >>"$SUMMARY" 2>/dev/null
  [ "$total" -gt "$n" ] && say "... ($((total - n)) more lines in reports.tar.gz: logs/$(basename "$f"))"
}
section() { say ""; say "==== $* ===="; echo "[$(date +%T) +${SECONDS}s] $*"; }
result() {  # STEP STATUS DETAIL
  results+=("$(printf '%-28s %-7s %s' "$1" "$2" "$3")")
  say "RESULT $1: $2 $3"
}
left() { echo $((DEADLINE - SECONDS)); }
# Seconds a step may take: its own cap or what is left of the budget, whichever is less.
allow() { local l; l=$(left); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
# run_t SECONDS LOG CMD...: runs CMD under timeout, stdout+stderr to LOG; returns its rc.
run_t() {
  local t=$1 log=$2; shift 2
  if [ "$t" -lt 5 ]; then echo "(not run: out of time)" >"$log"; return 125; fi
  timeout -k 10 "$t" "$@" >"$log" 2>&1 </dev/null
}
status_of() {  # RC -> PASS/FAIL/SKIP/TIMEOUT
  case $1 in 0) echo PASS ;; 77) echo SKIP ;; 124 | 137) echo TIMEOUT ;; 125) echo SKIP ;; *) echo FAIL ;; esac
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" | head -1; }

# Packs logs and reports (each <= 10 MiB, the archive <= 15 MiB: the least wanted reports go
# first) into reports.tar.gz; called after every step so that a cut-off run still brings
# something back.
pack() {
  local stage=$WORK/pack f size keep=() n
  rm -rf "$stage" && mkdir -p "$stage/logs" "$stage/reports"
  cp "$LOGS"/* "$stage/logs/" 2>/dev/null
  find "$WORK" \( -path "$stage" -o -path "$LOGS" \) -prune -o -type f \
    \( -name '*.expect' -o -name '*.info' -o -name '*.log' -o -name '*.out' \) \
    -size -1M -printf '%p\n' 2>/dev/null | while read -r f; do
      cp "$f" "$stage/reports/$(basename "$(dirname "$f")")-$(basename "$f")"; done
  : >"$WORK/skipped.txt"
  # Most wanted first.
  for f in "$WORK"/gputests/node.rep "$WORK"/gputests/metrics.rep "$WORK"/torch/traced1.rep \
           "$WORK"/gputests/demo.rep "$WORK"/gputests/graph.rep "$WORK"/gputests/range.rep \
           "$WORK"/gputests/torch.rep "$WORK"/gputests/torch_annotated.rep "$WORK"/gputests/*.rep \
           "$WORK"/smoke/smoke.rep; do
    [ -f "$f" ] || continue
    case " ${keep[*]} " in *" $f "*) continue ;; esac
    size=$(stat -c %s "$f")
    if [ "$size" -gt $((10 * 1024 * 1024)) ]; then echo "$f ($size bytes: over 10 MiB)" >>"$WORK/skipped.txt"; continue; fi
    keep+=("$f")
  done
  while :; do
    rm -f "$stage"/reports/*.rep
    for f in ${keep[@]+"${keep[@]}"}; do
      cp "$f" "$stage/reports/$(basename "$(dirname "$f")")-$(basename "$f")"
    done
    tar -C "$stage" -czf "$OUT/reports.tar.gz.tmp" logs reports 2>/dev/null || break
    n=${#keep[@]}
    [ "$(stat -c %s "$OUT/reports.tar.gz.tmp")" -le $((15 * 1024 * 1024)) ] || [ "$n" = 0 ] && break
    echo "${keep[n-1]} (left out: the archive would be over 15 MiB)" >>"$WORK/skipped.txt"
    unset 'keep[n-1]'
  done
  mv -f "$OUT/reports.tar.gz.tmp" "$OUT/reports.tar.gz" 2>/dev/null
}

# A tree shaped like a build directory (app/cli/sightline, tests/gpu/clients, tests/clients/...)
# made of links into the bundle, for run_gpu_tests.sh (its demo path) and run_gpu_bench.sh (its
# BUILD layout). The links resolve: sightline finds <real exe>/../lib/sightline.
TREE=$WORK/tree
mkdir -p "$TREE/app/cli" "$TREE/tests/gpu/clients" "$TREE/tests/clients"
ln -s "$SL" "$TREE/app/cli/sightline"
ln -s "$CHECK" "$TREE/tests/gpu/gpu_capture_check"
for c in cuda_workload empty_kernels many_ops; do
  [ -e "$BUNDLE/clients/$c" ] && ln -s "$BUNDLE/clients/$c" "$TREE/tests/gpu/clients/$c"
done
for c in sightline-demo libsightline-demo-gpu.so; do
  [ -e "$BUNDLE/clients/$c" ] && ln -s "$BUNDLE/clients/$c" "$TREE/tests/clients/$c"
done

say "Sightline GPU run: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname 2>/dev/null)"
say "bundle: $BUNDLE   repo: $REPO   work: $WORK   budget: ${BUDGET}s"
say "sightline: $("$SL" --version 2>&1 | head -1)"

# ---- (a) environment ----
section "a. environment"
have_gpu=0
{
  echo "## os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"); kernel $(uname -r); $(nproc) cores"
  echo "## glibc: $(ldd --version 2>&1 | head -1)"
  echo "## nvidia-smi -L"
  timeout 20 nvidia-smi -L 2>&1 || echo "(nvidia-smi failed or not found: rc $?)"
  echo "## nvidia-smi"
  timeout 20 nvidia-smi 2>&1 | head -30
  echo "## nvidia-smi --query-gpu"
  timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,persistence_mode \
    --format=csv 2>&1 || echo "(rc $?)"
  echo "## nvcc --version"
  timeout 20 nvcc --version 2>&1 | tail -2 || echo "(nvcc not found)"
  echo "## torch"
  timeout 60 python3 -c 'import torch; print(torch.__version__, torch.cuda.is_available(), torch.version.cuda)' 2>&1 | tail -3
  echo "## libcupti on this machine"
  timeout 30 find / -maxdepth 6 \( -path /proc -o -path /sys -o -path /dev -o -path "$WORK" \) -prune \
    -o -name 'libcupti.so*' -print 2>/dev/null | head -20
} >"$LOGS/a_environment.log" 2>&1
show "$LOGS/a_environment.log" 120
for f in bin/sightline bin/gpu_capture_check lib/sightline/libsightline-cuda.so lib/sightline/libsightline-inject.so; do
  echo "## ldd $f"; ldd "$BUNDLE/$f" 2>&1
done >"$LOGS/a_ldd.log"
show "$LOGS/a_ldd.log" 60
if timeout 20 nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  have_gpu=1
  driver=$(timeout 20 nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1 | tr -d ' ')
  result "a.gpu" PASS "$(timeout 20 nvidia-smi -L 2>/dev/null | head -1); driver $driver"
else
  say ""
  say "!!!! NO GPU ON THIS MACHINE: nvidia-smi is missing or lists no GPU; every GPU step below skips. !!!!"
  result "a.gpu" SKIP "NO GPU (nvidia-smi missing or lists none)"
fi
if grep -qE "not found|not a dynamic|error" "$LOGS/a_ldd.log"; then
  result "a.libraries" FAIL "a library does not resolve (see ldd above)"
else
  result "a.libraries" PASS "bundle libraries resolve"
fi
section "a. sightline status --environment"
run_t "$(allow 30)" "$LOGS/a_status.log" "$SL" status --environment
rc=$?
show "$LOGS/a_status.log" 60
result "a.status" "$( [ $rc = 124 ] || [ $rc = 137 ] && echo TIMEOUT || echo INFO)" \
  "rc $rc; $(grep -cE '^OK' "$LOGS/a_status.log") OK, $(grep -cE '^WARN' "$LOGS/a_status.log") WARN, $(grep -cE '^FAIL' "$LOGS/a_status.log") FAIL"
# A CPU-only capture with the bundle: launcher + libsightline-inject.so work here at all.
mkdir -p "$WORK/smoke"
run_t "$(allow 30)" "$LOGS/a_smoke.log" "$SL" profile -t nvtx,osrt -o "$WORK/smoke/smoke.rep" sleep 0.2
rc=$?
timeout 20 "$SL" info "$WORK/smoke/smoke.rep" >>"$LOGS/a_smoke.log" 2>&1
show "$LOGS/a_smoke.log" 40
result "a.cpu_smoke_capture" "$(status_of $rc)" "sightline profile -t nvtx,osrt sleep 0.2: rc $rc"
pack

# ---- (b) GPU end-to-end tests ----
section "b. tests/gpu/run_gpu_tests.sh"
run_t "$(allow 230)" "$LOGS/b_run_gpu_tests.log" bash "$REPO/tests/gpu/run_gpu_tests.sh" \
  "$TREE/app/cli/sightline" "$TREE/tests/gpu/clients" "$TREE/tests/gpu/gpu_capture_check" "$WORK/gputests"
rc=$?
show "$LOGS/b_run_gpu_tests.log" 200
npass=$(grep -c '^PASS' "$LOGS/b_run_gpu_tests.log"); nfail=$(grep -cE '^FAIL' "$LOGS/b_run_gpu_tests.log")
result "b.run_gpu_tests" "$(status_of $rc)" "rc $rc; $npass PASS lines, $nfail FAIL lines; $(grep -m1 -E '^SKIP' "$LOGS/b_run_gpu_tests.log")"
for f in "$WORK"/gputests/*.rep; do
  [ -f "$f" ] && say "  report $(basename "$f"): $(stat -c %s "$f") bytes"
done
copy_small() {  # REPORT NAME
  if [ -f "$1" ]; then
    if [ "$(stat -c %s "$1")" -lt $((4 * 1024 * 1024)) ]; then cp "$1" "$OUT/$2"; say "  copied to OUT/$2"
    else say "  $(basename "$1") is over 4 MiB: not copied to OUT/$2 (in reports.tar.gz when <= 10 MiB)"; fi
  fi
}
copy_small "$WORK/gputests/node.rep" cuda_workload.rep
copy_small "$WORK/gputests/metrics.rep" gpu_metrics.rep
pack

# A report for (e)/(f): the cuda_workload one, or the CPU smoke capture without it.
REP1=$WORK/gputests/node.rep
[ -f "$REP1" ] || REP1=$WORK/smoke/smoke.rep

# ---- (f) export --type sqlite ----
section "f. export --type sqlite $(basename "$REP1")"
if [ -f "$REP1" ]; then
  run_t "$(allow 60)" "$LOGS/f_export.log" "$SL" export --type sqlite --force-overwrite true \
    -o "$WORK/export.sqlite" "$REP1"
  rc=$?
  detail="rc $rc"
  if [ $rc = 0 ] && [ -f "$WORK/export.sqlite" ]; then
    timeout 30 python3 - "$WORK/export.sqlite" >>"$LOGS/f_export.log" 2>&1 <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tables = [r[0] for r in db.execute("select name from sqlite_master where type='table' order by name")]
print(f"tables={len(tables)}")
for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY",
          "NVTX_EVENTS", "StringIds", "TARGET_INFO_GPU"):
    if t in tables:
        print(f"{t}: {db.execute(f'select count(*) from {t}').fetchone()[0]} rows")
    else:
        print(f"{t}: (no table)")
EOF
    detail="rc 0; $(stat -c %s "$WORK/export.sqlite") bytes; $(grep -m1 tables= "$LOGS/f_export.log"); kernels: $(sed -n 's/^CUPTI_ACTIVITY_KIND_KERNEL: //p' "$LOGS/f_export.log")"
  fi
  show "$LOGS/f_export.log" 40
  result "f.export_sqlite" "$(status_of $rc)" "$(basename "$REP1"): $detail"
else
  result "f.export_sqlite" SKIP "no report to export"
fi

# ---- (e) stats and analyze ----
stats_analyze() {  # TAG REPORT
  local tag=$1 rep=$2 rc1 rc2
  section "e. sightline stats $(basename "$rep") ($tag)"
  run_t "$(allow 60)" "$LOGS/e_stats_$tag.log" "$SL" stats "$rep"; rc1=$?
  show "$LOGS/e_stats_$tag.log" 200
  section "e. sightline analyze $(basename "$rep") ($tag)"
  run_t "$(allow 60)" "$LOGS/e_analyze_$tag.log" "$SL" analyze "$rep"; rc2=$?
  show "$LOGS/e_analyze_$tag.log" 200
  result "e.stats_$tag" "$(status_of $rc1)" "rc $rc1, $(wc -l <"$LOGS/e_stats_$tag.log") lines"
  result "e.analyze_$tag" "$( [ $rc2 -le 1 ] && echo PASS || status_of $rc2)" "rc $rc2, $(wc -l <"$LOGS/e_analyze_$tag.log") lines"
}
if [ -f "$REP1" ]; then stats_analyze "$(basename "$REP1" .rep)" "$REP1"; else result "e.stats" SKIP "no report"; fi
pack

# ---- (c) overhead benchmarks ----
section "c. tests/bench/cuda/run_gpu_bench.sh"
run_t "$(allow 200)" "$LOGS/c_run_gpu_bench.log" bash "$REPO/tests/bench/cuda/run_gpu_bench.sh" "$TREE" "$REPO"
rc=$?
show "$LOGS/c_run_gpu_bench.log" 80
added=$(sed -n 's/.*added \(-\{0,1\}[0-9]*\) ns per launch.*/\1/p' "$LOGS/c_run_gpu_bench.log")
if [ -n "$added" ]; then
  result "c.launch_overhead" "$( [ "$added" -le 1500 ] && echo PASS || echo FAIL)" \
    "$(grep -m1 '^launch:' "$LOGS/c_run_gpu_bench.log")"
else
  result "c.launch_overhead" "$( [ $rc = 0 ] && echo FAIL || status_of $rc)" "rc $rc: no launch figure"
fi
if grep -q '^pytorch: plain' "$LOGS/c_run_gpu_bench.log"; then
  ov=$(sed -n 's/.*overhead \(-\{0,1\}[0-9.]*\) %.*/\1/p' "$LOGS/c_run_gpu_bench.log")
  result "c.bench_pytorch" "$(awk "BEGIN {print (\"$ov\" != \"\" && $ov <= 3) ? \"PASS\" : \"FAIL\"}")" \
    "$(grep -m1 '^pytorch:' "$LOGS/c_run_gpu_bench.log")"
fi
rate=$(grep -m1 -o 'ops_per_s=[0-9]*' "$LOGS/c_run_gpu_bench.log")
[ -n "$rate" ] && say "  many_ops under tracing: $rate (target ~1M ops/s)"
if grep -q '^PASS kernels' "$LOGS/c_run_gpu_bench.log"; then
  result "c.many_ops_no_loss" PASS "${rate:-?}; $(grep -m1 '^PASS kernels' "$LOGS/c_run_gpu_bench.log" | cut -c1-150)"
elif grep -q '^FAIL kernels' "$LOGS/c_run_gpu_bench.log"; then
  result "c.many_ops_no_loss" FAIL "${rate:-?}; $(grep -m1 '^FAIL kernels' "$LOGS/c_run_gpu_bench.log" | cut -c1-150)"
else
  result "c.many_ops_no_loss" "$( [ $rc = 0 ] && echo FAIL || status_of $rc)" "rc $rc: no kernels check line"
fi
pack

# ---- (d) PyTorch loop overhead ----
section "d. PyTorch loop: plain vs sightline profile -t cuda,nvtx -s none (torch_train.py $TORCH_STEPS, 3 pairs)"
TORCH_REP=
mkdir -p "$WORK/torch"
run_t "$(allow 60)" "$LOGS/d_torch_probe.log" python3 "$REPO/tests/gpu/torch_train.py" 1
rc=$?
if [ $rc != 0 ]; then
  show "$LOGS/d_torch_probe.log" 10
  result "d.torch_overhead" "$(status_of $rc)" "torch_train.py 1: rc $rc ($(tail -1 "$LOGS/d_torch_probe.log"))"
else
  plain=() traced=()
  : >"$LOGS/d_torch.log"
  for i in 1 2 3; do
    run_t "$(allow 60)" "$WORK/torch/plain$i.out" python3 "$REPO/tests/gpu/torch_train.py" "$TORCH_STEPS"
    p=$(field seconds <"$WORK/torch/plain$i.out")
    run_t "$(allow 90)" "$WORK/torch/traced$i.out" "$SL" profile -t cuda,nvtx -s none --force-overwrite=true \
      -o "$WORK/torch/traced$i.rep" python3 "$REPO/tests/gpu/torch_train.py" "$TORCH_STEPS"
    t=$(field seconds <"$WORK/torch/traced$i.out")
    echo "pair $i: plain ${p:-?} s, traced ${t:-?} s" | tee -a "$LOGS/d_torch.log" >>"$SUMMARY"
    { echo "--- plain$i"; cat "$WORK/torch/plain$i.out"; echo "--- traced$i"; cat "$WORK/torch/traced$i.out"; } >>"$LOGS/d_torch.log"
    [ -n "$p" ] && plain+=("$p"); [ -n "$t" ] && traced+=("$t")
  done
  [ -f "$WORK/torch/traced1.rep" ] && TORCH_REP=$WORK/torch/traced1.rep
  rm -f "$WORK/torch/traced2.rep" "$WORK/torch/traced3.rep"
  if [ ${#plain[@]} -gt 0 ] && [ ${#traced[@]} -gt 0 ]; then
    mp=$(printf '%s\n' "${plain[@]}" | median); mt=$(printf '%s\n' "${traced[@]}" | median)
    ov=$(awk "BEGIN {printf \"%.1f\", ($mt / $mp - 1) * 100}")
    st=$(awk "BEGIN {print ($ov <= 3) ? \"PASS\" : \"FAIL\"}")
    result "d.torch_overhead" "$st" "median plain ${mp} s, traced ${mt} s, overhead ${ov} % (target <= 3; ${#plain[@]}+${#traced[@]} runs)"
  else
    tail -20 "$LOGS/d_torch.log" >>"$SUMMARY"
    result "d.torch_overhead" FAIL "no timings (plain ${#plain[@]}, traced ${#traced[@]} runs parsed)"
  fi
  if [ -n "$TORCH_REP" ]; then
    say "  torch report: $(stat -c %s "$TORCH_REP") bytes"
    timeout 20 "$SL" info "$TORCH_REP" >"$LOGS/d_torch_info.log" 2>&1
    show "$LOGS/d_torch_info.log" 40
  fi
fi
pack
if [ -n "$TORCH_REP" ]; then stats_analyze torch "$TORCH_REP"; pack; fi

# ---- summary ----
section "results (${SECONDS}s of ${BUDGET}s budget)"
[ $have_gpu = 0 ] && say "NO GPU ON THIS MACHINE: the GPU steps were skipped."
for r in "${results[@]}"; do say "$r"; done
if [ -s "$WORK/skipped.txt" ]; then say "reports left out of reports.tar.gz:"; show "$WORK/skipped.txt" 20; fi
say "OUT: $(cd "$OUT" && ls -l | tail -n +2 | awk '{print $NF" "$5}' | tr '\n' ';')"
printf '%s\n' "${results[@]}"
echo "summary: $SUMMARY"
exit 0
