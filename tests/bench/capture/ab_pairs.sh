# Sourced by the capture benchmarks (make_cost.sh, process_cost.sh): A/B timing of whole commands
# with GNU time (package `time`): pairs runs A and B in turn so that each ratio is taken from one pair
# (a drift in the machine's speed moves both); timed runs one command. Needs $out (a scratch
# directory) and $runs (runs or pairs).
# pairs LABEL COMMAND_A COMMAND_B: warm-up A and B once, then $runs pairs A B; prints the median
# wall of each and the median of the pair-by-pair ratios A/B (and min-max of the ratios).
# With metric=cpu set, CPU seconds (user + system, the command's waited-for children included)
# instead of wall seconds.
pairs() {
    label=$1
    a=$2
    b=$3
    rm -f "$out/a.t" "$out/b.t"
    local fmt=%e what=wall
    if [ "${metric:-wall}" = cpu ]; then fmt="%U %S"; what=CPU; fi
    eval "$a" >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
    eval "$b" >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
    k=0
    while [ $k -lt "$runs" ]; do
        eval "/usr/bin/time -a -o $out/a.t -f '$fmt' $a" >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
        eval "/usr/bin/time -a -o $out/b.t -f '$fmt' $b" >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
        k=$((k + 1))
    done
    # One figure per run: wall, or user + system.
    for f in a b; do awk '{ print ($2 == "" ? $1 : $1 + $2) }' "$out/$f.t" >"$out/$f.v"; done
    paste "$out/a.v" "$out/b.v" | awk -v label="$label" -v what="$what" '
        function median(v, n,   i, j, t) {
            for (i = 2; i <= n; ++i)
                for (j = i; j > 1 && v[j - 1] > v[j]; --j) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
            return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        }
        { ++n; a[n] = $1; b[n] = $2; r[n] = $1 / $2 }
        END {
            ma = median(a, n); mb = median(b, n); mr = median(r, n)
            printf "%s: %d pairs; median %s A %.2f s, B %.2f s; A/B pair by pair: median %.3f (%+.1f%%), min %.3f, max %.3f\n",
                label, n, what, ma, mb, mr, (mr - 1) * 100, r[1], r[n]
        }'
}

# timed LABEL COMMAND: one warm-up, then $runs runs; prints the median wall (GNU time, 10 ms).
timed() {
    rm -f "$out/one.t"
    eval "$2" >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
    k=0
    while [ $k -lt "$runs" ]; do
        eval "/usr/bin/time -a -o $out/one.t -f %e $2" >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
        k=$((k + 1))
    done
    sort -n "$out/one.t" | awk -v label="$1" '{ v[++n] = $1 }
        END { printf "%s: %d runs; median wall %.3f s\n", label, n, n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
