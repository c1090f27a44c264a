#!/bin/sh
# Merge memory per event (issue #15, target: at most 40 bytes per event, 25 M events merged in at
# most 1 GB): profiles the flood client (NVTX push/pop ranges as fast as it can) at two or more
# sizes and reads the peak resident memory of the sightline process, where the merge of the raw
# streams into the .rep runs. Prints, per size, the peak and peak/N, and the growth between the
# smallest and the largest size, (peak(N2) - peak(N1)) / (N2 - N1): the bytes each event costs.
# The peak is GNU time's: the largest of the launcher and the processes it reaped; the program's
# own peak is measured inside the profile too, and must be far below (else the figure is not
# the launcher's). Each report is checked to hold exactly N NVTX ranges (`sightline info`).
#   tests/bench/capture/merge_memory.sh build/app/cli/sightline [N1 N2 ...]
# Sizes default to 1000000 10000000 25000000 (about 1.2 GB of raw stream in TMPDIR at 25 M).
# Environment: FLOOD (the flood client, default build/tests/clients/flood next to the binary),
# THREADS (flood threads, default 1; N must be a multiple), MODE (empty: push/pop ranges;
# startend: start/end ranges, paired by id in the merge).
set -eu
new=$1
shift
sizes=${*:-1000000 10000000 25000000}
flood=${FLOOD:-$(dirname "$new")/../../tests/clients/flood}
threads=${THREADS:-1}
mode=${MODE:-}
out=${TMPDIR:-/tmp}/sightline-merge-memory
mkdir -p "$out"
flags="-q true -f true -s none --cpuctxsw none"
echo "== sightline profile $flags $flood $threads N/$threads $mode: peak memory of the launcher"
: >"$out/peaks"
for n in $sizes; do
    rm -f "$out/outer" "$out/inner"
    /usr/bin/time -o "$out/outer" -f '%M %e' "$new" profile $flags -o "$out/m.rep" \
        /usr/bin/time -o "$out/inner" -f '%M' "$flood" "$threads" $((n / threads)) $mode >"$out/log" 2>&1 ||
        { cat "$out/log"; exit 1; }
    ranges=$("$new" info "$out/m.rep" | awk '$1 == "NVTX" && $2 == "ranges" && $4 == "in" {
        gsub(",", "", $3); print $3; exit }')
    rm -f "$out/m.rep"
    read -r peak wall <"$out/outer"
    read -r own <"$out/inner"
    echo "$n $peak" >>"$out/peaks"
    awk -v n="$n" -v peak="$peak" -v own="$own" -v wall="$wall" -v ranges="${ranges:-0}" 'BEGIN {
        printf "N %d: launcher peak %.1f MiB = %.1f bytes per event; program own peak %.1f MiB; %.2f s wall; report: %d ranges (%s)\n",
            n, peak / 1024, peak * 1024 / n, own / 1024, wall, ranges, ranges == n ? "exact" : "MISMATCH"
        if (own * 1.2 > peak) print "  warning: the program peaked near the launcher: this peak may be the program'"'"'s"
    }'
done
awk 'NR == 1 { n1 = $1; p1 = $2 } { n2 = $1; p2 = $2 } END {
    if (n2 > n1)
        printf "growth from %d to %d events: %.1f bytes per event; peak/N at %d: %.1f bytes per event\n",
            n1, n2, (p2 - p1) * 1024 / (n2 - n1), n2, p2 * 1024 / n2
}' "$out/peaks"
