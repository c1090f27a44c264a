# Sourced by the per-call cost benchmarks of a runtime's trace (mpi_overhead.sh,
# openmp_overhead.sh): a client that times its own loop and prints its figure, profiled with
# and without the trace, A and B in turn. Needs $here (the script's directory).
# client_setup CLIENT_VAR CLIENT_NAME HINT N_DEFAULT [N] [PAIRS]: sets root, n, runs (default 5),
# sl ($SIGHTLINE or the build's CLI), client ($CLIENT_VAR or build/tests/clients/CLIENT_NAME; exits
# with HINT where it is not built), out (a scratch directory, removed on exit) and prof (the
# `sightline profile` command, no CPU sampling or context switches, output in $out).
client_setup() {
    root=$(cd "$here/../../.." && pwd)
    n=${5:-$4}
    runs=${6:-5}
    sl=${SIGHTLINE:-$root/build/app/cli/sightline}
    client=${!1:-$root/build/tests/clients/$2}
    [ -x "$client" ] || { echo "no $client ($3)" >&2; exit 1; }
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    prof="$sl profile -f true -s none --cpuctxsw none -o $out/r"
}

# client_pairs "A_OPTIONS" "B_OPTIONS": with the caller's one() (one profiled run, printing its
# figures on one line): a warm-up of A and B, then $runs pairs, A's lines in $out/a, B's in $out/b.
client_pairs() {
    one $1 >/dev/null  # warm-up
    one $2 >/dev/null
    for ((k = 0; k < runs; ++k)); do
        one $1 >>"$out/a"
        one $2 >>"$out/b"
    done
}

# The awk function median(v, n) of v[1..n] (sorts v), to put before an awk program.
awk_median='
    function median(v, n,   i, j, t) {
        for (i = 2; i <= n; ++i)
            for (j = i; j > 1 && v[j - 1] > v[j]; --j) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }'
