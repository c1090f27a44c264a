#pragma once
// Per-name duration groups folded straight from a .rep file's chunks (RepFile::scanTrack) on
// every core, for the summaries that need nothing else of a kind's events (cuda_gpu_kern_sum,
// cuda_api_sum, osrt_sum, and nvtx_sum, which also reads each range's style): the tracks are
// never loaded. Loading them first cost the columns'
// memory (start, end, name: 20 bytes per event, each page cleared by the kernel on first touch)
// and a second pass over them to group (issue #23). A group keeps the values durationsByName
// would give it, in the same order, so every summary is the same to the last digit.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <memory>
#include <utility>
#include <vector>

#include "model/analysis/StatsCommon.h"
#include "model/core/Result.h"
#include "model/rep/RepReader.h"

namespace sl::analysis {

struct ScannedNvtx;

// The durations of one kind's events inside a window, by name id.
class ScannedDurations {
public:
    uint64_t events = 0;  // events of the kind in the file, inside the window or not

    size_t size() const { return m_keys.size(); }  // name ids, in order of first appearance
    uint32_t key(size_t i) const { return m_keys[i]; }
    // Groups of name ids summarized: ids with the same groupOf(id) are one group, its values
    // those of its ids in order of first appearance. Returns (group, stats) in order of first
    // appearance, summarized on `threads` cores (0: all).
    template <class GroupOf>
    std::vector<std::pair<uint32_t, DurationStats>> summarize(GroupOf groupOf, unsigned threads = 0) const {
        std::vector<uint32_t> group(m_keys.size());
        for (size_t i = 0; i < m_keys.size(); ++i) group[i] = groupOf(m_keys[i]);
        return summarizeGroups(group, threads);
    }

    // One worker's values: a contiguous run of the kind's tracks.
    struct Part;

    ScannedDurations();
    ScannedDurations(ScannedDurations&&) noexcept;
    ScannedDurations& operator=(ScannedDurations&&) noexcept;
    ~ScannedDurations();

private:
    friend Result<ScannedDurations> scanDurationsByName(const RepFile&, EventKind, const StatsOptions&, unsigned);
    friend Result<ScannedNvtx> scanNvtxRanges(const RepFile&, const StatsOptions&, unsigned);
    std::vector<std::pair<uint32_t, DurationStats>> summarizeGroups(const std::vector<uint32_t>& groupOfKey,
                                                                    unsigned threads) const;
    std::vector<uint32_t> m_keys;
    std::vector<std::unique_ptr<Part>> m_parts;
};

// Summary rows of `d`, one per name id, labelled label(id) (as durationsByName's groups are).
template <class Label>
std::vector<SummaryRow> scannedRowsById(const ScannedDurations& d, Label label) {
    std::vector<SummaryRow> rows;
    for (auto& [id, stats] : d.summarize([](uint32_t id) { return id; })) rows.push_back({{std::string(label(id))}, stats});
    return rows;
}

// Summary rows of `d` with the ids merged under the name nameOf(id) shows, as mergedByName
// merges them (cudaLaunchKernel_v7000 is cudaLaunchKernel), labelled by that name.
template <class NameOf>
std::vector<SummaryRow> scannedRowsByName(const ScannedDurations& d, NameOf nameOf) {
    std::map<std::string_view, uint32_t> first;  // name -> the first id showing it
    auto rows = d.summarize([&](uint32_t id) { return first.emplace(nameOf(id), id).first->second; });
    std::vector<SummaryRow> out;
    for (auto& [id, stats] : rows) out.push_back({{std::string(nameOf(id))}, stats});
    return out;
}

// Reads every track of `kind` of `file` chunk by chunk (checked as a load checks them) on
// `threads` cores (0: all), keeping the durations of the events inside `window`'s bounds;
// the error kCancelled once window.cancel is set (read after each chunk).
Result<ScannedDurations> scanDurationsByName(const RepFile& file, EventKind kind, const StatsOptions& window,
                                            unsigned threads = 0);

// NVTX ranges' durations for nvtx_sum, which groups by (style, "domain:name"): a key is
// group * stride + 2 * name id + (1 for a start/end range, 0 for push/pop), where group indexes
// `prefixes` ("" for the default domain, "domain:" otherwise; domains of the same name in
// several processes are one group).
struct ScannedNvtx {
    ScannedDurations durations;
    uint32_t stride = 0;
    std::vector<std::string> prefixes;
};
Result<ScannedNvtx> scanNvtxRanges(const RepFile& file, const StatsOptions& window, unsigned threads = 0);
// Whether a report's NVTX ranges are few enough in (domain, name) to scan (each worker holds a
// slot per domain name, name id and style); otherwise nvtx_sum loads them.
bool nvtxScanFits(const Report& metadata);

// The kinds a stats run summarizes from the file instead of the loaded report, each scanned
// once for the run's window (NVTX ranges in `nvtx`).
struct ScannedKinds {
    std::vector<std::pair<EventKind, ScannedDurations>> kinds;
    std::shared_ptr<const ScannedNvtx> nvtx;
    const ScannedDurations* find(EventKind k) const {
        for (const auto& [kind, d] : kinds)
            if (kind == k) return &d;
        return nullptr;
    }
};
Result<std::shared_ptr<const ScannedKinds>> scanKinds(const RepFile& file, KindSet kinds, const StatsOptions& window,
                                                      unsigned threads = 0);

}  // namespace sl::analysis
