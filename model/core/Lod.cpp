#include "model/core/Lod.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/core/Track.h"

namespace sl {

namespace {

size_t ceilPow2(size_t n) {
    size_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

// Index of the first leaf in [lo, hi) of a max segment tree with value >= x, or hi.
size_t findFirstAtLeast(const std::vector<int64_t>& tree, size_t leaves, size_t lo, size_t hi, int64_t x) {
    // Walk node ranges left to right, descending only into nodes that can contain a hit.
    struct Frame { size_t node, l, r; };
    Frame stack[64];
    int top = 0;
    stack[top++] = {1, 0, leaves};
    while (top > 0) {
        Frame f = stack[--top];
        if (f.r <= lo || f.l >= hi || tree[f.node] < x) continue;
        if (f.r - f.l == 1) return f.l;
        size_t mid = (f.l + f.r) / 2;
        stack[top++] = {2 * f.node + 1, mid, f.r};  // right pushed first: left explored first
        stack[top++] = {2 * f.node, f.l, mid};
    }
    return hi;
}

}  // namespace

void TrackLod::clear() {
    m_leaves = 0;
    m_busyPrefix.clear();
    m_maxTree.clear();
    m_minTree.clear();
    m_maxValueTree.clear();
    m_sumPrefix.clear();
    m_lanes.clear();
}

size_t TrackLod::memoryBytes() const {
    size_t lanes = 0;
    for (const auto& l : m_lanes) lanes += l.first.capacity() * 4;
    return lanes + (m_busyPrefix.capacity() + m_maxTree.capacity()) * 8 +
           (m_minTree.capacity() + m_maxValueTree.capacity() + m_sumPrefix.capacity()) * 8;
}

void TrackLod::build(const Track& t) {
    clear();
    const size_t n = t.size();
    const size_t blocks = (n + kBlock - 1) / kBlock;
    m_leaves = ceilPow2(std::max<size_t>(blocks, 1));
    m_busyPrefix.resize(blocks + 1);
    m_maxTree.assign(2 * m_leaves, 0);
    int64_t acc = 0;
    for (size_t b = 0; b < blocks; ++b) {
        m_busyPrefix[b] = acc;
        int64_t mx = 0;
        const size_t e = std::min(n, (b + 1) * kBlock);
        for (size_t i = b * kBlock; i < e; ++i) {
            int64_t d = t.durationAt(i);
            acc = wrapAdd(acc, d);
            mx = std::max(mx, d);
        }
        m_maxTree[m_leaves + b] = mx;
    }
    m_busyPrefix[blocks] = acc;
    for (size_t k = m_leaves - 1; k >= 1; --k) m_maxTree[k] = std::max(m_maxTree[2 * k], m_maxTree[2 * k + 1]);

    buildLaneBuckets(t);
    if (t.key.kind == EventKind::Metric && !t.cols.empty()) {
        const auto& v = t.col<double>(0);
        m_minTree.assign(2 * m_leaves, std::numeric_limits<double>::infinity());
        m_maxValueTree.assign(2 * m_leaves, -std::numeric_limits<double>::infinity());
        m_sumPrefix.resize(blocks + 1);
        double sum = 0;
        for (size_t b = 0; b < blocks; ++b) {
            m_sumPrefix[b] = sum;
            double mn = std::numeric_limits<double>::infinity(), mx = -mn;
            const size_t e = std::min(n, (b + 1) * kBlock);
            for (size_t i = b * kBlock; i < e; ++i) {
                mn = std::min(mn, v[i]);
                mx = std::max(mx, v[i]);
                sum += v[i];
            }
            m_minTree[m_leaves + b] = mn;
            m_maxValueTree[m_leaves + b] = mx;
        }
        m_sumPrefix[blocks] = sum;
        for (size_t k = m_leaves - 1; k >= 1; --k) {
            m_minTree[k] = std::min(m_minTree[2 * k], m_minTree[2 * k + 1]);
            m_maxValueTree[k] = std::max(m_maxValueTree[2 * k], m_maxValueTree[2 * k + 1]);
        }
    }
}

size_t TrackLod::LaneBuckets::bucketOf(int64_t t) const {
    if (t <= origin) return 0;
    // Unsigned subtraction: exact for any t > origin, where t - origin could overflow int64.
    const size_t k = static_cast<size_t>((static_cast<uint64_t>(t) - static_cast<uint64_t>(origin)) >> shift);
    return std::min(k, first.size() - 2);
}

void TrackLod::buildLaneBuckets(const Track& t) {
    m_lanes.resize(t.laneCount());
    for (uint32_t l = 0; l < t.laneCount(); ++l) {
        LaneBuckets& lb = m_lanes[l];
        const IndexRange r = t.lane(l);
        lb.origin = r.empty() ? 0 : t.start[r.begin];
        const int64_t span = r.empty() ? 1 : std::max<int64_t>(1, t.endAt(r.end - 1) - lb.origin + 1);
        const size_t want = std::max<size_t>(r.size() / kEventsPerLaneBucket, 1);
        lb.shift = 0;
        while ((span >> lb.shift) >= static_cast<int64_t>(want)) ++lb.shift;
        const size_t buckets = static_cast<size_t>((span - 1) >> lb.shift) + 1;
        lb.first.assign(buckets + 1, static_cast<uint32_t>(r.end));
        size_t k = 0;
        for (size_t i = r.begin; i < r.end; ++i) {
            const size_t b = static_cast<size_t>(static_cast<uint64_t>(t.start[i] - lb.origin) >> lb.shift);
            while (k <= b) lb.first[k++] = static_cast<uint32_t>(i);
        }
    }
}

int64_t TrackLod::prefixBusy(const Track& t, size_t k) const {
    const size_t b = k / kBlock;
    int64_t acc = m_busyPrefix[b];
    for (size_t i = b * kBlock; i < k; ++i) acc = wrapAdd(acc, t.durationAt(i));
    return acc;
}

int64_t TrackLod::busy(const Track& t, size_t i, size_t j) const {
    if (j <= i) return 0;
    return wrapSub(prefixBusy(t, j), prefixBusy(t, i));
}

// Max of the per-block longest durations over blocks [bi, bj), bottom-up: it touches about
// 2 x log2(bj - bi) nodes next to the leaves instead of two root-to-leaf paths.
int64_t TrackLod::blockRangeMax(size_t bi, size_t bj) const {
    int64_t m = -1;
    for (size_t l = bi + m_leaves, r = bj + m_leaves; l < r; l >>= 1, r >>= 1) {
        if (l & 1) m = std::max(m, m_maxTree[l++]);
        if (r & 1) m = std::max(m, m_maxTree[--r]);
    }
    return m;
}

int64_t TrackLod::longest(const Track& t, size_t i, size_t j, size_t* index) const {
    if (j <= i) return 0;
    int64_t best = -1;
    size_t bestIndex = i;
    auto scan = [&](size_t a, size_t b) {
        for (size_t k = a; k < b; ++k) {
            int64_t d = t.durationAt(k);
            if (d > best) { best = d; bestIndex = k; }
        }
    };
    const size_t bi = (i + kBlock - 1) / kBlock;  // first full block
    const size_t bj = j / kBlock;                 // one past the last full block
    if (bi >= bj) {
        scan(i, j);
    } else {
        scan(i, bi * kBlock);
        // Max over full blocks [bi, bj) from the tree, then locate it inside its block.
        const int64_t blockMax = blockRangeMax(bi, bj);
        if (blockMax > best) {
            if (index) {  // locating the event costs a tree descent and a block scan: only on request
                size_t blk = findFirstAtLeast(m_maxTree, m_leaves, bi, bj, blockMax);
                scan(blk * kBlock, (blk + 1) * kBlock);
            } else {
                best = blockMax;
            }
        }
        scan(bj * kBlock, j);
    }
    if (index) *index = bestIndex;
    return best;
}

size_t TrackLod::firstLongerThan(const Track& t, size_t i, size_t j, int64_t minDuration) const {
    size_t k = i;
    const size_t firstFull = std::min(j, ((i + kBlock - 1) / kBlock) * kBlock);
    for (; k < firstFull; ++k)
        if (t.durationAt(k) >= minDuration) return k;
    const size_t bj = j / kBlock;
    // Most callers (the timeline folding sub-pixel events) find nothing: rule that out with the
    // cheap bottom-up range max before descending from the root.
    if (k / kBlock < bj) {
        if (blockRangeMax(k / kBlock, bj) >= minDuration) {
            const size_t blk = findFirstAtLeast(m_maxTree, m_leaves, k / kBlock, bj, minDuration);
            for (size_t m = blk * kBlock; m < (blk + 1) * kBlock; ++m)
                if (t.durationAt(m) >= minDuration) return m;
        }
        k = bj * kBlock;
    }
    for (; k < j; ++k)
        if (t.durationAt(k) >= minDuration) return k;
    return j;
}

namespace {
template <class Op>
double rangeValue(const std::vector<double>& tree, size_t leaves, const ColumnView<double>& v, size_t i,
                  size_t j, double init, Op op) {
    constexpr size_t B = TrackLod::kBlock;
    double acc = init;
    const size_t bi = (i + B - 1) / B, bj = j / B;
    if (bi >= bj) {
        for (size_t k = i; k < j; ++k) acc = op(acc, v[k]);
        return acc;
    }
    for (size_t k = i; k < bi * B; ++k) acc = op(acc, v[k]);
    for (size_t l = bi + leaves, r = bj + leaves; l < r; l >>= 1, r >>= 1) {
        if (l & 1) acc = op(acc, tree[l++]);
        if (r & 1) acc = op(acc, tree[--r]);
    }
    for (size_t k = bj * B; k < j; ++k) acc = op(acc, v[k]);
    return acc;
}
}  // namespace

double TrackLod::minValue(const Track& t, size_t i, size_t j) const {
    return rangeValue(m_minTree, m_leaves, t.col<double>(0), i, j,
                      std::numeric_limits<double>::infinity(), [](double a, double b) { return std::min(a, b); });
}

double TrackLod::maxValue(const Track& t, size_t i, size_t j) const {
    return rangeValue(m_maxValueTree, m_leaves, t.col<double>(0), i, j,
                      -std::numeric_limits<double>::infinity(), [](double a, double b) { return std::max(a, b); });
}

double TrackLod::sumValue(const Track& t, size_t i, size_t j) const {
    const auto& v = t.col<double>(0);
    auto prefix = [&](size_t k) {
        const size_t b = k / kBlock;
        double acc = m_sumPrefix[b];
        for (size_t m = b * kBlock; m < k; ++m) acc += v[m];
        return acc;
    };
    return j <= i ? 0.0 : prefix(j) - prefix(i);
}

}  // namespace sl
