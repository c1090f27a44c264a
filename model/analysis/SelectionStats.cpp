#include "model/analysis/SelectionStats.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

#include "model/analysis/EventQueryColumns.h"
#include "model/analysis/SelectionParallel.h"
#include "model/analysis/StatsCommon.h"

namespace sl::analysis {
namespace {

bool isBusyKind(EventKind k) {
    return k == EventKind::Kernel || k == EventKind::Memcpy || k == EventKind::Memset ||
           k == EventKind::GraphTrace;
}

// Slot of each group key while one track is scanned. Sized to the string table; entries
// touched by a track are reset afterwards, so a worker pays for the allocation once.
std::vector<int32_t>& scratchSlots(size_t size) {
    thread_local std::vector<int32_t> slots;
    if (slots.size() < size) slots.resize(size, -1);
    return slots;
}

std::vector<SelectionGroup> scanTrack(const Report& report, uint32_t trackIndex, int64_t t0,
                                      int64_t t1) {
    const Track& t = report.tracks[trackIndex];
    std::vector<SelectionGroup> groups;
    if (t.key.kind == EventKind::Metric || t.empty()) return groups;
    const bool named = t.schema().hasName;
    const int col = named ? -1 : groupColumn(t.key.kind);
    std::vector<int32_t>& slots = scratchSlots(std::max<size_t>(report.strings.size(), 256));
    const bool copies = t.key.kind == EventKind::Memcpy || t.key.kind == EventKind::Memset;
    const ColumnView<uint64_t> bytes =
        copies ? t.col<uint64_t>(bytesColumn(t.key.kind)) : ColumnView<uint64_t>(nullptr, 0, 0);

    for (uint32_t l = 0; l < t.laneCount(); ++l) {
        const IndexRange r = t.overlapping(l, t0, t1);
        for (size_t i = r.begin; i < r.end; ++i) {
            uint32_t key =
                named ? t.name[i] : (col >= 0 ? static_cast<uint32_t>(t.intAt(col, i)) & 0xff : 0);
            if (key >= slots.size())
                key = 0;  // a name id past the table (corrupt): keep it visible as ""
            int32_t& slot = slots[key];
            if (slot < 0) {
                slot = static_cast<int32_t>(groups.size());
                SelectionGroup g;
                g.track = trackIndex;
                g.key = key;
                g.min = INT64_MAX;
                groups.push_back(g);
            }
            SelectionGroup& g = groups[static_cast<size_t>(slot)];
            const int64_t s = t.start[i], e = t.endAt(i);
            const int64_t d = std::min(e, t1) - std::max(s, t0);
            const int64_t clipped = d > 0 ? d : 0;
            ++g.count;
            g.total += clipped;
            g.min = std::min(g.min, clipped);
            g.max = std::max(g.max, clipped);
            if (copies) {
                g.bytes += bytes[i];
                g.fullDuration += e - s;
            }
        }
    }
    for (auto& g : groups) {
        slots[g.key] = -1;
        g.name = selectionGroupName(report, t, g.key);
    }
    return groups;
}

// One lane of a busy kind, cut to the events overlapping the range. Lanes are sorted and
// non-overlapping, so a device's busy time is a k-way merge of its lanes by start.
struct SweepLane {
    const int64_t* start;
    const int64_t* end;
    size_t pos, stop;
    uint32_t stream;  // index into the selection's stream list
};

// The union of one multi-lane track inside [t0, t1), as sorted disjoint intervals.
struct TrackUnion {
    std::vector<int64_t> start, end;
};

// O(n) without sorting, from the first-fit lane packing (Track.h): an event of lane k >= 1
// was put there because lane k - 1 was busy at its start, so following those covering events
// down to lane 0 gives a connected chain. Hence every event belongs to the connected component
// of the last lane-0 event starting at or before it (or, when none in the range does, to the
// component containing t0). Step 1 extends each lane-0 event's end by the events of upper
// lanes that fall into its component; step 2 merges the extended intervals. In fact lane 0
// itself is busy at every upper event's start, so an upper event starting after its
// component's end means the lanes were not packed that way: nullopt, and the caller merges
// the lanes one by one instead.
std::optional<TrackUnion> trackUnion(const Track& t, int64_t t0, int64_t t1) {
    const IndexRange base = t.overlapping(0, t0, t1);
    // comp 0 is the virtual component at t0; comp j + 1 is lane-0 event base.begin + j.
    std::vector<int64_t> cs(base.size() + 1), ce(base.size() + 1);
    cs[0] = ce[0] = t0;
    for (size_t j = 0; j < base.size(); ++j) {
        const size_t i = base.begin + j;
        cs[j + 1] = std::max(t.start[i], t0);
        ce[j + 1] = std::min(t.end[i], t1);
    }
    for (uint32_t l = 1; l < t.laneCount(); ++l) {
        const IndexRange r = t.overlapping(l, t0, t1);
        size_t comp = 0;
        for (size_t i = r.begin; i < r.end; ++i) {
            const int64_t s = std::max(t.start[i], t0);
            while (comp + 1 < cs.size() && cs[comp + 1] <= s) ++comp;
            if (s > ce[comp]) return std::nullopt;
            ce[comp] = std::max(ce[comp], std::min(t.end[i], t1));
        }
    }
    TrackUnion u;
    for (size_t c = 0; c < cs.size(); ++c) {
        if (ce[c] <= cs[c]) continue;
        if (!u.start.empty() && cs[c] <= u.end.back()) {
            u.end.back() = std::max(u.end.back(), ce[c]);
        } else {
            u.start.push_back(cs[c]);
            u.end.push_back(ce[c]);
        }
    }
    return u;
}

// Running union of intervals that arrive in start order.
struct UnionAcc {
    int64_t s = 0, e = 0, total = 0;
    bool open = false;
    // Branch-free (conditional moves): whether busy intervals overlap is unpredictable.
    void add(int64_t is, int64_t ie) {
        const bool extend = open && is <= e;
        total += (open && !extend) ? e - s : 0;
        s = extend ? s : is;
        e = extend ? std::max(e, ie) : ie;
        open = true;
    }
    int64_t finish() const { return total + (open ? e - s : 0); }
};

// One pass over a device's lanes in start order gives the device's union and, since every
// stream's events also arrive in start order, each stream's union at the same time. Few
// lanes (the usual case: one per stream and kind) use a linear scan of the heads, which beats
// a heap below ~16 lanes; more lanes use a heap of (head start, lane).
void sweepDevice(std::vector<SweepLane> lanes, int64_t t0, int64_t t1,
                 std::vector<UnionAcc>& streams, int64_t& deviceBusy) {
    UnionAcc dev;
    auto take = [&](SweepLane& l) {
        const int64_t s = std::max(l.start[l.pos], t0), e = std::min(l.end[l.pos], t1);
        ++l.pos;
        if (e <= s) return;
        dev.add(s, e);
        streams[l.stream].add(s, e);
    };
    const size_t k = lanes.size();
    if (k == 1) {  // one lane never overlaps itself: a plain sum
        SweepLane& l = lanes[0];
        int64_t sum = 0;
        for (size_t i = l.pos; i < l.stop; ++i)
            sum += std::max<int64_t>(0, std::min(l.end[i], t1) - std::max(l.start[i], t0));
        streams[l.stream].total += sum;
        deviceBusy = sum;
        return;
    }
    if (k <= 16) {
        std::vector<int64_t> heads(k);
        for (size_t i = 0; i < k; ++i)
            heads[i] = lanes[i].pos < lanes[i].stop ? lanes[i].start[lanes[i].pos] : INT64_MAX;
        for (;;) {
            // Branch-free minimum (conditional moves): lanes interleave unpredictably.
            size_t m = 0;
            int64_t best = k ? heads[0] : INT64_MAX;
            for (size_t i = 1; i < k; ++i) {
                const bool lower = heads[i] < best;
                best = lower ? heads[i] : best;
                m = lower ? i : m;
            }
            if (best == INT64_MAX) break;
            SweepLane& l = lanes[m];
            take(l);
            heads[m] = l.pos < l.stop ? l.start[l.pos] : INT64_MAX;
        }
    } else {
        using Head = std::pair<int64_t, uint32_t>;
        std::vector<Head> heap;
        for (uint32_t i = 0; i < k; ++i)
            if (lanes[i].pos < lanes[i].stop) heap.emplace_back(lanes[i].start[lanes[i].pos], i);
        auto later = std::greater<Head>();
        std::make_heap(heap.begin(), heap.end(), later);
        while (!heap.empty()) {
            std::pop_heap(heap.begin(), heap.end(), later);
            SweepLane& l = lanes[heap.back().second];
            take(l);
            if (l.pos < l.stop) {
                heap.back().first = l.start[l.pos];
                std::push_heap(heap.begin(), heap.end(), later);
            } else {
                heap.pop_back();
            }
        }
    }
    deviceBusy = dev.finish();
}

using StreamKey = std::tuple<int32_t, int64_t, uint32_t, uint32_t>;  // device, pid, context, stream

void fillCopies(SelectionStats& out, const Report& report) {
    std::map<int, CopyStats> byKind;  // copy kind, memset as 1000 so it sorts last
    for (const auto& g : out.groups) {
        const EventKind kind = report.tracks[g.track].key.kind;
        if (kind != EventKind::Memcpy && kind != EventKind::Memset) continue;
        const bool memset = kind == EventKind::Memset;
        CopyStats& c = byKind[memset ? 1000 : static_cast<int>(g.key)];
        c.memset = memset;
        c.kind = memset ? CopyKind::Unknown : static_cast<CopyKind>(g.key);
        c.label = memset ? "Memset" : std::string(memcpyKindLabel(c.kind));
        c.count += g.count;
        c.bytes += g.bytes;
        c.duration += g.fullDuration;
    }
    for (auto& [k, c] : byKind) out.copies.push_back(std::move(c));
}

}  // namespace

uint64_t SelectionStats::eventCount() const {
    uint64_t n = 0;
    for (const auto& g : groups) n += static_cast<uint64_t>(g.count);
    return n;
}

std::string selectionGroupName(const Report& report, const Track& track, uint32_t key) {
    switch (track.key.kind) {
        case EventKind::Memcpy:
            return memcpyOperationName(static_cast<CopyKind>(key));
        case EventKind::Memset:
            return "[CUDA memset]";
        case EventKind::Sync:
            return "[" + std::string(syncTypeName(static_cast<SyncType>(key))) + "]";
        case EventKind::CudaMemory:
            return key == static_cast<uint32_t>(MemoryOp::Free) ? "[CUDA free]" : "[CUDA alloc]";
        case EventKind::ThreadState:
            return "[Running]";
        case EventKind::CuptiOverhead:
            return "[CUPTI overhead]";
        case EventKind::CudaApi:
            return std::string(apiDisplayName(report.str(key)));
        default:
            return std::string(report.str(key));
    }
}

SelectionStats computeSelectionStats(const Report& report, const SelectionRequest& req) {
    SelectionStats out;
    out.t0 = req.t0;
    out.t1 = req.t1;
    if (req.t1 <= req.t0) return out;
    std::vector<uint32_t> tracks = req.tracks;
    if (tracks.empty())
        for (uint32_t i = 0; i < report.tracks.size(); ++i) tracks.push_back(i);
    tracks.erase(std::remove_if(tracks.begin(), tracks.end(),
                                [&](uint32_t i) { return i >= report.tracks.size(); }),
                 tracks.end());
    std::sort(tracks.begin(), tracks.end());
    tracks.erase(std::unique(tracks.begin(), tracks.end()), tracks.end());

    // Step 1: the streams with busy kinds, and per device its lanes cut to the range.
    std::map<StreamKey, uint32_t> streamIndex;
    for (uint32_t ti : tracks) {
        const Track& t = report.tracks[ti];
        if (isBusyKind(t.key.kind))
            streamIndex.emplace(StreamKey{t.key.device, t.key.pid, t.key.context, t.key.stream}, 0);
    }
    std::vector<StreamKey> streamKeys;
    for (auto& [key, idx] : streamIndex) {
        idx = static_cast<uint32_t>(streamKeys.size());
        streamKeys.push_back(key);
    }
    // Per device its busy tracks and their lanes; every device is listed (0% when idle).
    std::map<int32_t, std::vector<std::pair<const Track*, uint32_t>>> deviceTracks;
    uint64_t gpuEvents = 0;
    for (uint32_t ti : tracks) {
        const Track& t = report.tracks[ti];
        if (!isBusyKind(t.key.kind)) continue;
        deviceTracks[t.key.device].emplace_back(
            &t, streamIndex[StreamKey{t.key.device, t.key.pid, t.key.context, t.key.stream}]);
        gpuEvents += t.size();
    }
    // Unions add up over disjoint time slices, so big devices are cut into slices swept in
    // parallel (an event crossing a cut is clipped into both).
    const unsigned threads =
        req.threads ? req.threads : ThreadPool::usableCpus();
    const int64_t slices =
        gpuEvents > 200'000 ? std::min<int64_t>(threads * 2, req.t1 - req.t0) : 1;
    struct SliceTask {
        const std::vector<std::pair<const Track*, uint32_t>>* tracks;
        size_t device;
        int64_t t0, t1;
    };
    std::vector<int32_t> deviceIds;
    std::vector<SliceTask> sliceTasks;
    for (const auto& [dev, list] : deviceTracks) {
        for (int64_t c = 0; c < slices; ++c) {
            const int64_t a0 = req.t0 + (req.t1 - req.t0) * c / slices,
                          a1 = req.t0 + (req.t1 - req.t0) * (c + 1) / slices;
            sliceTasks.push_back({&list, deviceIds.size(), a0, a1});
        }
        deviceIds.push_back(dev);
    }

    // Step 2: device time slices first (their unions), then tracks largest first (their groups).
    std::vector<uint32_t> order = tracks;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return report.tracks[a].size() > report.tracks[b].size();
    });
    std::vector<std::vector<SelectionGroup>> perTrack(order.size());
    std::vector<std::vector<UnionAcc>> sliceStreams(sliceTasks.size());
    std::vector<int64_t> sliceBusy(sliceTasks.size());
    const size_t nslices = sliceTasks.size();
    std::atomic<bool> stopped{false};
    parallelFor(nslices + order.size(), threads, [&](size_t task) {
        if (req.cancel && req.cancel->load(std::memory_order_relaxed)) {
            stopped = true;
            return;
        }
        if (task >= nslices) {
            perTrack[task - nslices] = scanTrack(report, order[task - nslices], req.t0, req.t1);
            return;
        }
        const SliceTask& st = sliceTasks[task];
        std::vector<SweepLane> lanes;
        std::vector<TrackUnion> unions;
        unions.reserve(st.tracks->size());
        for (const auto& [t, si] : *st.tracks) {
            if (t->laneCount() == 1) {
                const IndexRange r = t->overlapping(0, st.t0, st.t1);
                if (!r.empty()) lanes.push_back({t->start.data(), t->end.data(), r.begin, r.end, si});
                continue;
            }
            if (auto u = trackUnion(*t, st.t0, st.t1)) {
                unions.push_back(std::move(*u));
                const TrackUnion& v = unions.back();
                if (!v.start.empty()) lanes.push_back({v.start.data(), v.end.data(), 0, v.start.size(), si});
                continue;
            }
            for (uint32_t l = 0; l < t->laneCount(); ++l) {
                const IndexRange r = t->overlapping(l, st.t0, st.t1);
                if (!r.empty()) lanes.push_back({t->start.data(), t->end.data(), r.begin, r.end, si});
            }
        }
        sliceStreams[task].resize(streamKeys.size());
        sweepDevice(std::move(lanes), st.t0, st.t1, sliceStreams[task], sliceBusy[task]);
    });
    if (stopped) {  // skipped tasks left their outputs empty
        out.cancelled = true;
        return out;
    }
    std::vector<int64_t> streamBusy(streamKeys.size(), 0), deviceBusy(deviceIds.size(), 0);
    for (size_t k = 0; k < nslices; ++k) {
        deviceBusy[sliceTasks[k].device] += sliceBusy[k];
        for (size_t i = 0; i < streamKeys.size(); ++i) streamBusy[i] += sliceStreams[k][i].finish();
    }

    // Step 3: assemble in track order, totals descending within a track.
    const double span = static_cast<double>(req.t1 - req.t0);
    std::vector<size_t> byTrack(order.size());
    for (size_t k = 0; k < order.size(); ++k) byTrack[k] = k;
    std::sort(byTrack.begin(), byTrack.end(),
              [&](size_t a, size_t b) { return order[a] < order[b]; });
    for (size_t k : byTrack) {
        auto& g = perTrack[k];
        std::sort(g.begin(), g.end(), [](const SelectionGroup& a, const SelectionGroup& b) {
            return a.total != b.total ? a.total > b.total : a.name < b.name;
        });
        for (auto& x : g) {
            x.share = static_cast<double>(x.total) / span;
            out.groups.push_back(std::move(x));
        }
    }
    for (size_t i = 0; i < streamKeys.size(); ++i) {
        const auto& [dev, pid, ctx, stream] = streamKeys[i];
        out.streams.push_back(
            {pid, dev, ctx, stream, streamBusy[i], static_cast<double>(streamBusy[i]) / span});
    }
    for (size_t d = 0; d < deviceIds.size(); ++d)
        out.devices.push_back(
            {deviceIds[d], deviceBusy[d], static_cast<double>(deviceBusy[d]) / span});
    fillCopies(out, report);
    return out;
}

}  // namespace sl::analysis
