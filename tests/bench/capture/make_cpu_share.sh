#!/bin/sh
# The CPU a capture adds to `make -j2` (issue #15), measured so that other work on the machine
# does not move it: each run is recorded with `perf record` (cpu-clock samples of the command's
# own process tree only), and its samples are divided by the samples of the compiler's own code
# (cc1 in cc1), which tracing does not change. plain: 1.00 means the build; a capture's figure
# minus plain's is its extra CPU as a share of the build's. Wall-clock A/B (make_cost.sh) needs
# an idle machine; this does not, though it counts CPU only, not the time the end of a profile
# adds. Also prints the profiler's own share (samples of the `sightline` process).
# Runs alternate: plain, then each binary given, RUNS times (default 3).
#   tests/bench/capture/make_cpu_share.sh build/app/cli/sightline [/tmp/old/app/cli/sightline]
# Run make_cost.sh once first: it generates the project in $TMPDIR/sightline-make-cost.
# Environment: RUNS; CAPTURE (the profile options, default: the default capture).
set -eu
runs=${RUNS:-3}
capture=${CAPTURE:-}
out=${TMPDIR:-/tmp}/sightline-make-cost
src=$out/project
[ -f "$src/Makefile" ] || { echo "no project in $src: run make_cost.sh first" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is needed (package linux-perf)" >&2; exit 1; }
make_cmd="make -s -j2 -B -C $src"

# share LABEL DATA: appends "LABEL total/cc1 sightline/cc1" for one recording.
share() {
    perf report -i "$2" --stdio -n --sort comm,dso -g none 2>/dev/null | awk -v label="$1" '
        /%/ { t += $2; if ($3 == "cc1" && $4 == "cc1") c = $2; if ($3 == "sightline") s += $2 }
        END { if (c == 0) exit 1; printf "%s %.4f %.4f\n", label, t / c, s / c }' >>"$out/share.txt"
}

rm -f "$out/share.txt"
k=0
while [ $k -lt "$runs" ]; do
    perf record -q -F 2000 -o "$out/perf.data" -- $make_cmd >/dev/null 2>&1
    share plain "$out/perf.data"
    n=0
    for bin in "$@"; do
        perf record -q -F 2000 -o "$out/perf.data" -- "$bin" profile -q true -f true $capture \
            -o "$out/share.rep" $make_cmd >/dev/null 2>&1
        share "$n:$bin" "$out/perf.data"
        n=$((n + 1))
    done
    k=$((k + 1))
done
rm -f "$out/perf.data" "$out/share.rep"
sort "$out/share.txt" | awk '
    { v[$1] = v[$1] " " $2; s[$1] = s[$1] " " $3; n[$1]++ }
    function median(list,   a, m, i, j, t) {
        m = split(list, a, " ")
        for (i = 2; i <= m; ++i) for (j = i; j > 1 && a[j - 1] > a[j]; --j) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    END {
        base = median(v["plain"])
        for (k in v) {
            m = median(v[k])
            printf "%-50s CPU per compiler sample: median %.3f (%+.1f%% of the build), profiler itself %.3f, %d runs\n",
                k, m, (m / base - 1) * 100, median(s[k]) / base, n[k]
        }
    }' | sort
