#include "model/analysis/DenseGroups.h"

#include <algorithm>
#include <numeric>

namespace sl::analysis {
namespace {

// Below this many events one thread is faster than starting another.
constexpr size_t kParallelEvents = 200000;

// One worker's share: a contiguous run of the kind's tracks, so that in every group a worker's
// values come after those of the workers before it (the order one pass would give).
struct Part {
    std::vector<const Track*> tracks;
    std::vector<uint32_t> counts;  // by name id: values in this part, then this part's first slot
    std::vector<uint32_t> keys;    // name ids in order of first appearance
};

// fn(i) for the events of `t` inside the window, in order; false once the run is cancelled
// (the flag is read between blocks of kCancelStride events, outside the hot loop).
template <class Fn>
bool forEachInWindow(const Track& t, const StatsOptions& o, Fn&& fn) {
    const size_t n = t.size();
    const bool bounded = o.bounded();
    for (size_t b = 0; b < n; b += kCancelStride) {
        if (o.cancelled()) return false;
        const size_t e = std::min(n, b + kCancelStride);
        if (!bounded)
            for (size_t i = b; i < e; ++i) fn(i);
        else
            for (size_t i = b; i < e; ++i)
                if (o.inWindow(t.start[i], t.end[i])) fn(i);
    }
    return true;
}

}  // namespace

DenseGroups durationsByName(const Report& r, EventKind kind, const StatsOptions& o, unsigned threads) {
    if (threads == 0) threads = ThreadPool::usableCpus();
    std::vector<const Track*> tracks;
    size_t total = 0;
    for (const auto& t : r.tracks)
        if (t.key.kind == kind && !t.empty()) {
            tracks.push_back(&t);
            total += t.size();
        }
    const size_t nparts = total < kParallelEvents ? 1 : std::max<size_t>(1, std::min<size_t>(threads, tracks.size()));
    std::vector<Part> parts(nparts);
    // Step 1: split the tracks into contiguous runs of about equal event counts.
    size_t seen = 0;
    for (const Track* t : tracks) {
        const size_t p = std::min(nparts - 1, (seen + t->size() / 2) * nparts / std::max<size_t>(total, 1));
        parts[p].tracks.push_back(t);
        seen += t->size();
    }
    // Step 2: each part counts its values per name. A cancelled run returns the groups made
    // so far (its caller drops them).
    sl::parallelFor(
        nparts,
        [&](size_t p) {
            Part& part = parts[p];
            part.counts.assign(r.strings.size(), 0);
            for (const Track* t : part.tracks) {
                const bool whole = forEachInWindow(*t, o, [&](size_t i) {
                    const uint32_t name = t->name[i];
                    if (name >= part.counts.size()) part.counts.resize(size_t{name} + 1, 0);
                    if (part.counts[name]++ == 0) part.keys.push_back(name);
                });
                if (!whole) return;
            }
        },
        o.parallel(threads));
    if (o.cancelled()) return DenseGroups(0);
    // Step 3: groups in order of first appearance, each sized once; each part's counts become
    // the slot its first value goes to.
    size_t keySpace = r.strings.size();
    for (const Part& part : parts) keySpace = std::max(keySpace, part.counts.size());
    DenseGroups groups(keySpace);
    std::vector<uint32_t> filled(keySpace, 0);
    for (Part& part : parts)
        for (uint32_t key : part.keys) {
            if (!groups.has(key)) groups.at(key);
            const uint32_t n = part.counts[key];
            part.counts[key] = filled[key];
            filled[key] += n;
        }
    // The groups' memory is first touched on every core (page faults are much of the cost).
    std::vector<size_t> bySize(groups.size());
    std::iota(bySize.begin(), bySize.end(), size_t{0});
    std::sort(bySize.begin(), bySize.end(),
              [&](size_t a, size_t b) { return filled[groups.key(a)] > filled[groups.key(b)]; });
    sl::parallelFor(
        bySize.size(),
        [&](size_t k) {
            std::vector<int64_t>& v = groups.values(bySize[k]);
            v.reserve(filled[groups.key(bySize[k])]);
            adviseHugePages(v);
            v.resize(filled[groups.key(bySize[k])]);
        },
        o.parallel(threads));
    if (o.cancelled()) return groups;
    std::vector<int64_t*> data(groups.size());
    for (size_t g = 0; g < groups.size(); ++g) data[g] = groups.values(g).data();
    // Step 4: each part writes its durations in place.
    sl::parallelFor(
        nparts,
        [&](size_t p) {
            Part& part = parts[p];
            for (const Track* t : part.tracks) {
                const bool whole = forEachInWindow(*t, o, [&](size_t i) {
                    const uint32_t name = t->name[i];
                    data[groups.slotOf(name)][part.counts[name]++] = t->end[i] - t->start[i];
                });
                if (!whole) return;
            }
        },
        o.parallel(threads));
    return groups;
}

}  // namespace sl::analysis
