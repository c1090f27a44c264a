#!/usr/bin/env bash
# Cost of -b dwarf (issue #19: <= 20 us of unwinding per sample), side by side in one run:
# tests/clients/dwarf/dwarf_client (built -O2 -fomit-frame-pointer, CPU_MS of CPU in two spin
# loops, 5 to 7 frames deep) run alone, and profiled with -s none, -b fp and -b dwarf at 1000 Hz
# (tracing and context switches off so that only the sampling differs), RUNS rounds, the modes
# in turn within each round. Prints per mode the median wall seconds of the whole profile and,
# for -b dwarf, the unwinding time per sample the profiler measured (total unwinding time over
# samples, from its summary line) and how many samples reached the outermost frame.
#   tests/bench/capture/dwarf_unwind.sh [CPU_MS] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
ms=${1:-3000}
runs=${2:-5}
sl=${SIGHTLINE:-$root/build/app/cli/sightline}
client=${DWARF_CLIENT:-$root/build/tests/clients/dwarf_client}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -x "$sl" ] && [ -x "$client" ] || { echo "build sightline and dwarf_client first" >&2; exit 1; }

profile="$sl profile -f true -t none --cpuctxsw none --sampling-frequency 1000 -o $out/r"
declare -A cmd=(
    [alone]="$client $ms"
    [s-none]="$profile -s none $client $ms"
    [b-fp]="$profile -s process-tree -b fp $client $ms"
    [b-dwarf]="$profile -s process-tree -b dwarf $client $ms"
)
modes=(alone s-none b-fp b-dwarf)

now() { date +%s%N; }
for ((k = 0; k <= runs; ++k)); do  # round 0 warms the page cache, not counted
    for m in "${modes[@]}"; do
        t0=$(now)
        ${cmd[$m]} >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
        t1=$(now)
        ((k == 0)) && continue
        echo "$(((t1 - t0) / 1000000))" >>"$out/$m.ms"
        if [ "$m" = b-dwarf ]; then
            grep -o '[0-9]* of [0-9]* DWARF-unwound[^(]*([0-9.]* us' "$out/log" |
                awk '{ gsub(/\(/, "", $0); print $1, $3, $(NF - 1) }' >>"$out/dwarf.txt"
        fi
        if [ "$m" = b-fp ] || [ "$m" = b-dwarf ]; then
            grep -o 'CPU sampling: [0-9]* samples' "$out/log" | awk '{ print $3 }' >>"$out/$m.samples"
        fi
    done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
base=$(median <"$out/s-none.ms")
echo "dwarf_client $ms ms of CPU, $runs rounds, $(nproc) CPUs ($(uname -r)); median wall per mode:"
for m in "${modes[@]}"; do
    w=$(median <"$out/$m.ms")
    line=$(printf '  %-8s %7.3f s' "$m" "$(echo "$w / 1000" | bc -l)")
    if [ "$m" != alone ]; then
        line+=$(printf '  (%+.1f%% vs -s none)' "$(echo "($w - $base) * 100 / $base" | bc -l)")
    fi
    [ -f "$out/$m.samples" ] && line+="  $(median <"$out/$m.samples") samples"
    echo "$line"
done
# Unwinding per sample: the median round, and the range.
sort -n -k3 "$out/dwarf.txt" | awk '
    { ok[NR] = $1; n[NR] = $2; us[NR] = $3 }
    END {
        m = int((NR + 1) / 2)
        printf "  -b dwarf unwinding: median %.1f us per sample (min %.1f, max %.1f); %d of %d samples of that round reached the outermost frame\n",
            us[m], us[1], us[NR], ok[m], n[m]
    }'
