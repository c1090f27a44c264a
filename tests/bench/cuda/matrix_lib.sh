# Shared by the GPU cost matrices (launch_cost_matrix.sh, api_cost_matrix.sh,
# torch_cost_matrix.sh); sourced, with SL (the sightline binary) and W (a work folder) set.
# A configuration is "name|environment|profile options", options "-" for a plain run.

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" | head -1; }

# run_config CONFIG REPORT PROGRAM...: PROGRAM's standard output, run plain or under
# `sightline profile` writing REPORT; standard error goes to $W/err.log.
run_config() {
  local spec=$1 rep=$2 name envs opts
  shift 2
  IFS='|' read -r name envs opts <<<"$spec"
  if [ "$opts" = "-" ]; then
    timeout 120 env $envs "$@" 2>>"$W/err.log"
  else
    timeout 150 env $envs "$SL" profile $opts -o "$rep" --force-overwrite=true "$@" 2>>"$W/err.log"
  fi
}

# MATRIX_CONFIGS (lines in the same form) replaces a matrix's list; it must have one named plain.
override_configs() {
  if [ -n "${MATRIX_CONFIGS:-}" ]; then mapfile -t configs <<<"$MATRIX_CONFIGS"; fi
}

# loop_matrix LABEL WIDTH PROGRAM...: PROGRAM (which prints "seconds=S") run plain and under
# every configuration of $configs, $RUNS rounds interleaved, each run logged to $OUTF as it ends
# (a run cut off by a time limit still leaves the ones before it) with its report in
# $W/ROUND-NAME.rep (NAME up to a "("); then, through log, one line per configuration: its
# median and the change against plain. The caller declares `secs` (declare -A), filled here.
loop_matrix() {
  local label=$1 width=$2 rep c name v m ov base
  shift 2
  for rep in $(seq "$RUNS"); do
    for c in "${configs[@]}"; do
      name=${c%%|*}
      v=$(run_config "$c" "$W/$rep-${name%%(*}.rep" "$@" | field seconds)
      secs[$name]+="$v "
      echo "run $rep $name: ${v:-?} s" >>"$OUTF"
    done
  done
  base=$(tr ' ' '\n' <<<"${secs[plain]}" | grep . | median)
  for c in "${configs[@]}"; do
    name=${c%%|*}
    m=$(tr ' ' '\n' <<<"${secs[$name]}" | grep . | median)
    ov=$(awk "BEGIN {if (\"$m\" != \"\" && \"$base\" != \"\") printf \"%+.1f %%\", ($m / $base - 1) * 100; else print \"?\"}")
    log "$(printf "$label %-${width}s median %9s s  %8s  (runs: %s)" "$name" "${m:-?}" "$ov" "${secs[$name]}")"
  done
}

log() { echo "$*" | tee -a "$OUTF"; }

# matrix_start OUT_FILE PROGRAM: OUTF emptied (for log), W a work folder removed at exit, and
# exit 77 with the reason when PROGRAM is not in the bundle.
matrix_start() {
  OUTF=$1
  : >"$OUTF"
  W=$(mktemp -d /tmp/sl-matrix-XXXXXX)
  trap 'rm -rf "$W"' EXIT
  [ -x "$2" ] || { log "SKIP: $2 is not in the bundle"; exit 77; }
}

# require_torch TRAIN: exit 77 with the reason when PyTorch cannot run TRAIN (torch_train.py) on
# a CUDA device here.
require_torch() {
  if ! timeout 120 python3 "$1" 1 >/dev/null 2>&1; then
    log "SKIP: PyTorch with CUDA is not available"
    exit 77
  fi
}
