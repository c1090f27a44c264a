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
