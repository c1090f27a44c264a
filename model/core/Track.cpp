#include "model/core/Track.h"

#include <algorithm>
#include <numeric>

#include "model/core/LanePacker.h"

namespace sl {

namespace {

template <class T>
void permuteVec(std::vector<T>& v, const std::vector<uint32_t>& order) {
    if (v.empty()) return;
    std::vector<T> out(order.size());
    for (size_t k = 0; k < order.size(); ++k) out[k] = v[order[k]];
    v.swap(out);
}

}  // namespace

Track::Track(const TrackKey& k) : key(k) {
    const KindSchema& s = schemaOf(k.kind);
    cols.reserve(s.columns.size());
    for (const auto& c : s.columns) cols.emplace_back(c.type);
}

uint32_t Track::laneOf(size_t index) const {
    auto it = std::upper_bound(laneOffsets.begin(), laneOffsets.end(), static_cast<uint32_t>(index));
    return static_cast<uint32_t>(it - laneOffsets.begin() - 1);
}

IndexRange Track::overlapping(uint32_t l, int64_t t0, int64_t t1) const {
    IndexRange r = lane(l);
    if (r.empty() || t1 <= t0) return {r.begin, r.begin};
    const std::vector<int64_t>& ends = end.empty() ? start : end;
    auto b = ends.begin() + static_cast<ptrdiff_t>(r.begin);
    auto e = ends.begin() + static_cast<ptrdiff_t>(r.end);
    size_t i = static_cast<size_t>(std::lower_bound(b, e, t0) - ends.begin());
    // An event that only touches t0 with its end does not overlap [t0, t1).
    if (i < r.end && ends[i] == t0 && start[i] < t0) ++i;
    auto sb = start.begin() + static_cast<ptrdiff_t>(r.begin);
    auto se = start.begin() + static_cast<ptrdiff_t>(r.end);
    size_t j = static_cast<size_t>(std::lower_bound(sb, se, t1) - start.begin());
    return {i, std::max(i, j)};
}

void Track::append(int64_t s, int64_t e, uint32_t n, const int64_t* extra) {
    const KindSchema& sc = schema();
    start.push_back(s);
    if (sc.hasEnd) end.push_back(e < s ? s : e);
    if (sc.hasName) name.push_back(n);
    for (size_t c = 0; c < cols.size(); ++c) cols[c].pushInt(extra ? extra[c] : 0);
}

std::vector<uint32_t> Track::startOrder() {
    const size_t n = start.size();
    // Times from bad input (a damaged stream, a hostile trace) are held to the model's range.
    for (size_t i = 0; i < n; ++i) {
        start[i] = std::clamp(start[i], -kMaxEventTime, kMaxEventTime);
        if (!end.empty()) end[i] = std::clamp(end[i], start[i], kMaxEventTime);
    }
    // By start, longer first on ties so that parents precede their children. Events that
    // arrive in that order (the common case) need no order array.
    const bool sorted = [&] {
        for (size_t i = 1; i < n; ++i) {
            if (start[i] < start[i - 1]) return false;
            if (start[i] == start[i - 1] && !end.empty() && end[i] > end[i - 1]) return false;
        }
        return true;
    }();
    std::vector<uint32_t> order;
    if (!sorted) {
        order.resize(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
            if (start[a] != start[b]) return start[a] < start[b];
            return !end.empty() && end[a] > end[b];
        });
    }
    return order;
}

void Track::permute(const std::vector<uint32_t>& order) {
    permuteVec(start, order);
    permuteVec(end, order);
    permuteVec(name, order);
    for (auto& c : cols) c.permute(order);
}

void Track::sortByStart() {
    if (auto order = startOrder(); !order.empty()) permute(order);
}

void Track::finalize() {
    const size_t n = start.size();
    // Step 1: the order by start.
    std::vector<uint32_t> order = startOrder();
    const bool sorted = order.empty();
    auto at = [&](size_t k) { return sorted ? static_cast<uint32_t>(k) : order[k]; };
    // Step 2: first-fit lanes in that order, counted per lane. Packing is cheap and repeatable,
    // so the lane of each event is not stored: step 3 packs again when it has to move events.
    bool inPlace = sorted;  // lanes never go down along the order: the events stay where they are
    {
        LanePacker packer;
        uint32_t prev = 0;
        laneOffsets.assign(2, 0);
        for (size_t k = 0; k < n; ++k) {
            const uint32_t i = at(k);
            const uint32_t l = packer.place(start[i], endAt(i));
            if (l + 2 > laneOffsets.size()) laneOffsets.resize(l + 2, 0);
            ++laneOffsets[l + 1];
            inPlace = inPlace && l >= prev;
            prev = l;
        }
    }
    const uint32_t lanes = static_cast<uint32_t>(laneOffsets.size() - 1);
    for (uint32_t l = 0; l < lanes; ++l) laneOffsets[l + 1] += laneOffsets[l];
    // Step 3: a stable counting sort by lane, applied to every column.
    if (!inPlace) {
        std::vector<uint32_t> finalOrder(n);
        {
            std::vector<uint32_t> cursor(laneOffsets.begin(), laneOffsets.end() - 1);
            LanePacker packer;
            for (size_t k = 0; k < n; ++k) {
                const uint32_t i = at(k);
                finalOrder[cursor[packer.place(start[i], endAt(i))]++] = i;
            }
        }
        std::vector<uint32_t>().swap(order);
        permute(finalOrder);
    }
    finishLoaded();
}

void Track::finishLoaded(bool levelOfDetail) {
    if (laneOffsets.size() < 2) laneOffsets = {0, static_cast<uint32_t>(start.size())};
    tMin = tMax = 0;
    if (!start.empty()) {
        tMin = INT64_MAX;
        tMax = INT64_MIN;
        for (uint32_t l = 0; l < laneCount(); ++l) {
            IndexRange r = lane(l);
            if (r.empty()) continue;
            tMin = std::min(tMin, start[r.begin]);
            tMax = std::max(tMax, endAt(r.end - 1));
        }
    }
    if (levelOfDetail) lod.build(*this);
}

size_t Track::memoryBytes() const {
    size_t bytes = sizeof(Track) + start.capacity() * 8 + end.capacity() * 8 + name.capacity() * 4 +
                   laneOffsets.capacity() * 4 + lod.memoryBytes();
    for (const auto& c : cols) bytes += c.memoryBytes() + sizeof(Column);
    return bytes;
}

}  // namespace sl
