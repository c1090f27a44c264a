#include "model/analysis/SelectionStats.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "model/analysis/EventQueryColumns.h"
#include "model/analysis/SelectionParallel.h"
#include "model/analysis/StatsCommon.h"

namespace sl::analysis {
namespace {

bool isBusyKind(EventKind k) {
    return k == EventKind::Kernel || k == EventKind::Memcpy || k == EventKind::Memset || k == EventKind::GraphTrace;
}

// Slot of each group key while one track is scanned. Sized to the string table; entries
// touched by a track are reset afterwards, so a worker pays for the allocation once.
std::vector<int32_t>& scratchSlots(size_t size) {
    thread_local std::vector<int32_t> slots;
    if (slots.size() < size) slots.resize(size, -1);
    return slots;
}

std::vector<SelectionGroup> scanTrack(const Report& report, uint32_t trackIndex, int64_t t0, int64_t t1) {
    const Track& t = report.tracks[trackIndex];
    std::vector<SelectionGroup> groups;
    if (t.key.kind == EventKind::Metric || t.empty()) return groups;
    const bool named = t.schema().hasName;
    const int col = named ? -1 : groupColumn(t.key.kind);
    std::vector<int32_t>& slots = scratchSlots(std::max<size_t>(report.strings.size(), 256));
    const bool copies = t.key.kind == EventKind::Memcpy || t.key.kind == EventKind::Memset;
    const std::vector<uint64_t>* bytes = nullptr;
    if (copies) bytes = &t.col<uint64_t>(bytesColumn(t.key.kind));

    for (uint32_t l = 0; l < t.laneCount(); ++l) {
        const IndexRange r = t.overlapping(l, t0, t1);
        for (size_t i = r.begin; i < r.end; ++i) {
            uint32_t key = named ? t.name[i] : (col >= 0 ? static_cast<uint32_t>(t.intAt(col, i)) & 0xff : 0);
            if (key >= slots.size()) key = 0;  // a name id past the table (corrupt): keep it visible as ""
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
                g.bytes += (*bytes)[i];
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

// One lane's events overlapping the range; lanes are sorted and non-overlapping.
struct LaneCursor {
    const Track* track;
    size_t pos, end;
};

// Length of the union of the lanes' intervals clipped to [t0, t1): a k-way merge by start.
int64_t unionLength(std::vector<LaneCursor> lanes, int64_t t0, int64_t t1) {
    lanes.erase(std::remove_if(lanes.begin(), lanes.end(), [](const LaneCursor& c) { return c.pos >= c.end; }),
                lanes.end());
    int64_t busy = 0;
    auto clip = [&](const Track& t, size_t i, int64_t& s, int64_t& e) {
        s = std::max(t.start[i], t0);
        e = std::min(t.endAt(i), t1);
    };
    if (lanes.size() == 1) {  // one lane never overlaps itself: a plain sum
        const LaneCursor& c = lanes[0];
        for (size_t i = c.pos; i < c.end; ++i) {
            int64_t s, e;
            clip(*c.track, i, s, e);
            busy += std::max<int64_t>(0, e - s);
        }
        return busy;
    }
    auto later = [](const LaneCursor& a, const LaneCursor& b) { return a.track->start[a.pos] > b.track->start[b.pos]; };
    std::make_heap(lanes.begin(), lanes.end(), later);
    int64_t curS = 0, curE = 0;
    bool open = false;
    while (!lanes.empty()) {
        std::pop_heap(lanes.begin(), lanes.end(), later);
        LaneCursor& c = lanes.back();
        int64_t s, e;
        clip(*c.track, c.pos, s, e);
        if (!open || s > curE) {
            if (open) busy += curE - curS;
            curS = s;
            curE = std::max(s, e);
            open = true;
        } else {
            curE = std::max(curE, e);
        }
        if (++c.pos < c.end)
            std::push_heap(lanes.begin(), lanes.end(), later);
        else
            lanes.pop_back();
    }
    if (open) busy += curE - curS;
    return busy;
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
        case EventKind::Memcpy: return memcpyOperationName(static_cast<CopyKind>(key));
        case EventKind::Memset: return "[CUDA memset]";
        case EventKind::Sync: return "[" + std::string(syncTypeName(static_cast<SyncType>(key))) + "]";
        case EventKind::CudaMemory: return key == static_cast<uint32_t>(MemoryOp::Free) ? "[CUDA free]" : "[CUDA alloc]";
        case EventKind::ThreadState: return "[Running]";
        case EventKind::CuptiOverhead: return "[CUPTI overhead]";
        case EventKind::CudaApi: return std::string(apiDisplayName(report.str(key)));
        default: return std::string(report.str(key));
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
    tracks.erase(std::remove_if(tracks.begin(), tracks.end(), [&](uint32_t i) { return i >= report.tracks.size(); }),
                 tracks.end());
    std::sort(tracks.begin(), tracks.end());
    tracks.erase(std::unique(tracks.begin(), tracks.end()), tracks.end());

    // Step 1: the lanes of busy kinds per stream and per device, each cut to the range.
    std::map<StreamKey, std::vector<LaneCursor>> streamLanes;
    std::map<int32_t, std::vector<LaneCursor>> deviceLanes;
    for (uint32_t ti : tracks) {
        const Track& t = report.tracks[ti];
        if (!isBusyKind(t.key.kind)) continue;
        const StreamKey sk{t.key.device, t.key.pid, t.key.context, t.key.stream};
        for (uint32_t l = 0; l < t.laneCount(); ++l) {
            const IndexRange r = t.overlapping(l, req.t0, req.t1);
            streamLanes[sk].push_back({&t, r.begin, r.end});
            deviceLanes[t.key.device].push_back({&t, r.begin, r.end});
        }
    }
    std::vector<std::pair<StreamKey, std::vector<LaneCursor>>> streamList(streamLanes.begin(), streamLanes.end());
    std::vector<std::pair<int32_t, std::vector<LaneCursor>>> deviceList(deviceLanes.begin(), deviceLanes.end());

    // Step 2: one task per device, per stream and per track; devices first (the largest).
    std::vector<uint32_t> order = tracks;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return report.tracks[a].size() > report.tracks[b].size(); });
    std::vector<std::vector<SelectionGroup>> perTrack(order.size());
    std::vector<int64_t> streamBusy(streamList.size()), deviceBusy(deviceList.size());
    const size_t nd = deviceList.size(), ns = streamList.size();
    std::atomic<bool> stopped{false};
    parallelFor(nd + ns + order.size(), req.threads, [&](size_t task) {
        if (req.cancel && req.cancel->load(std::memory_order_relaxed)) {
            stopped = true;
            return;
        }
        if (task < nd)
            deviceBusy[task] = unionLength(deviceList[task].second, req.t0, req.t1);
        else if (task < nd + ns)
            streamBusy[task - nd] = unionLength(streamList[task - nd].second, req.t0, req.t1);
        else
            perTrack[task - nd - ns] = scanTrack(report, order[task - nd - ns], req.t0, req.t1);
    });
    if (stopped) {
        out.cancelled = true;
        return out;
    }

    // Step 3: assemble in track order, totals descending within a track.
    const double span = static_cast<double>(req.t1 - req.t0);
    std::vector<size_t> byTrack(order.size());
    for (size_t k = 0; k < order.size(); ++k) byTrack[k] = k;
    std::sort(byTrack.begin(), byTrack.end(), [&](size_t a, size_t b) { return order[a] < order[b]; });
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
    for (size_t i = 0; i < ns; ++i) {
        const auto& [dev, pid, ctx, stream] = streamList[i].first;
        out.streams.push_back({pid, dev, ctx, stream, streamBusy[i], static_cast<double>(streamBusy[i]) / span});
    }
    for (size_t i = 0; i < nd; ++i)
        out.devices.push_back({deviceList[i].first, deviceBusy[i], static_cast<double>(deviceBusy[i]) / span});
    fillCopies(out, report);
    return out;
}

}  // namespace sl::analysis
