"""Which GPU operations of a stream overlap their predecessor, from an nsys-schema SQLite export:

    python3 stream_overlaps.py EXPORT.sqlite

gpu_capture_check fails "timestamps monotonic per stream" when an operation starts before the one
before it on its stream ends. This says what those pairs are: their kinds, how much they
overlap, whether both came from the same graph launch (same correlation id) and their graph
nodes, so that a real overlap (the GPU ran them together) can be told from a clock artefact
(a few ns, at the seam of two records).
"""
import collections
import sqlite3
import statistics
import sys


def main():
    db = sqlite3.connect(sys.argv[1])
    ops = collections.defaultdict(list)
    for kind, table in (("kernel", "CUPTI_ACTIVITY_KIND_KERNEL"), ("memset", "CUPTI_ACTIVITY_KIND_MEMSET"),
                        ("memcpy", "CUPTI_ACTIVITY_KIND_MEMCPY")):
        try:
            rows = db.execute(f"select start, end, streamId, correlationId, graphNodeId from {table}")
        except sqlite3.Error:
            continue
        for start, end, stream, corr, node in rows:
            ops[stream].append((start, end, kind, corr, node))
    pairs = collections.Counter()
    overlaps = []
    examples = []
    total = 0
    for stream, items in ops.items():
        items.sort()
        total += len(items)
        for prev, cur in zip(items, items[1:]):
            if cur[0] < prev[1]:
                same = "same launch" if prev[3] == cur[3] else "two launches"
                pairs[(prev[2], cur[2], same)] += 1
                overlaps.append(prev[1] - cur[0])
                if len(examples) < 8:
                    examples.append((stream, prev, cur))
    print(f"{total} operations on {len(ops)} streams; {len(overlaps)} overlap their predecessor")
    if overlaps:
        print(f"overlap ns: min {min(overlaps)}  median {statistics.median(overlaps):.0f}  max {max(overlaps)}")
    for (a, b, same), n in pairs.most_common():
        print(f"  {n:6d}  {a} then {b}, {same}")
    for stream, prev, cur in examples:
        print(f"  stream {stream}: {prev[2]} {prev[0]}..{prev[1]} (corr {prev[3]}, node {prev[4]})  "
              f"{cur[2]} {cur[0]}..{cur[1]} (corr {cur[3]}, node {cur[4]})")


if __name__ == "__main__":
    main()
