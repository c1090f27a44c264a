"""Interval helpers shared by the golden-count scripts of this folder (each run by path, which
puts this folder on sys.path): plain Python, nothing of Sightline's."""


def merged(intervals):
    """The union of (start, end) intervals as sorted, disjoint [start, end] lists."""
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out
