#pragma once
// Statistics of a selected time range of a report (the timeline's "selection statistics"):
// per track and per event name the count and the time inside the range, GPU busy time per
// stream and per device (union of busy intervals), and memory-copy volume and bandwidth per
// copy kind. A pure function of an immutable Report: safe to run on any thread, cancellable.
//
// Rules (documented in docs/analysis-gui.md):
// - An event takes part when it overlaps [t0, t1) (Track::overlapping); its duration is
//   clipped to the range, and count/total/min/max/average are of the clipped durations, so
//   totals add up to the time the row spent inside the selection.
// - Share = clipped total / (t1 - t0); a row with nested events (several lanes) can exceed 100%.
// - GPU busy = length of the union of kernel, memcpy, memset and graph intervals clipped to the
//   range, per (pid, device, context, stream) and per device (all streams of all processes).
// - Copies: every memcpy/memset overlapping the range counts with its full size and full
//   duration; bandwidth = bytes / duration (the copies' own rate, not bytes per selected time).
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "model/core/Report.h"

namespace sl::analysis {

struct SelectionRequest {
    int64_t t0 = 0, t1 = 0;               // [t0, t1) on the report clock, ns
    std::vector<uint32_t> tracks;         // indices into Report::tracks; empty = every track
    const std::atomic<bool>* cancel = nullptr;  // set to true to stop early (result.cancelled)
    unsigned threads = 0;                 // 0 = hardware concurrency
};

// One (track, name) group. `key` is the name's string id for kinds with a name column, else a
// kind-specific code (the copy kind of a memcpy, the sync type, ...), see selectionGroupName().
struct SelectionGroup {
    uint32_t track = 0;
    uint32_t key = 0;
    std::string name;
    int64_t count = 0;
    int64_t total = 0;  // clipped, ns
    int64_t min = 0, max = 0;
    uint64_t bytes = 0;         // memcpy/memset only: full sizes of the events
    int64_t fullDuration = 0;   // unclipped sum (for bandwidth)
    double share = 0;           // total / range length (1.0 = 100%)
    double average() const { return count ? static_cast<double>(total) / static_cast<double>(count) : 0.0; }
};

struct StreamBusy {
    int64_t pid = 0;
    int32_t device = 0;
    uint32_t context = 0, stream = 0;
    int64_t busy = 0;     // ns
    double share = 0;     // busy / range length
};

struct DeviceBusy {
    int32_t device = 0;
    int64_t busy = 0;
    double share = 0;
};

struct CopyStats {
    std::string label;  // "Host-to-Device", ... or "Memset"
    CopyKind kind = CopyKind::Unknown;
    bool memset = false;
    int64_t count = 0;
    uint64_t bytes = 0;
    int64_t duration = 0;             // sum of full durations, ns
    double bytesPerSecond() const {
        return duration > 0 ? static_cast<double>(bytes) * 1e9 / static_cast<double>(duration) : 0.0;
    }
};

struct SelectionStats {
    int64_t t0 = 0, t1 = 0;
    bool cancelled = false;
    std::vector<SelectionGroup> groups;  // by track index, then total descending, then name
    std::vector<StreamBusy> streams;     // by (device, pid, context, stream)
    std::vector<DeviceBusy> devices;     // by device
    std::vector<CopyStats> copies;       // by copy kind, memset last
    int64_t span() const { return t1 - t0; }
    uint64_t eventCount() const;
};

SelectionStats computeSelectionStats(const Report& report, const SelectionRequest& request);

// The label of a group key for a track's kind ("[CUDA memcpy Host-to-Device]", a name...).
std::string selectionGroupName(const Report& report, const Track& track, uint32_t key);

// Tab-separated text of all three tables (with a header line each and a blank line between),
// times in ns, shares in percent: what "Copy as TSV" puts on the clipboard.
std::string selectionStatsTsv(const Report& report, const SelectionStats& stats);

}  // namespace sl::analysis
