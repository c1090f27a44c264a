#pragma once
// A sortable, filterable index over the events of one or many tracks: the data behind the
// GUI's events view. Rows are "global ids" (events of tracks[0], then tracks[1], ...) held in
// uint32 permutation arrays, so 10 million rows cost 40 MB per order and the report's columns
// are never copied. Sorting is a stable LSD radix sort on 64-bit keys (ties stay in start
// order); the name filter is evaluated once per distinct name, not per event.
// Not thread-safe: one owner (the GUI model); the report it shares is immutable.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/analysis/CorrelationIndex.h"
#include "model/core/Report.h"
#include "model/core/Result.h"

namespace sl::analysis {

enum class EventColumn : uint8_t { Start, Duration, End, Name, Row, Correlation, Bytes };
constexpr int kEventColumnCount = 7;
std::string_view eventColumnTitle(EventColumn c);  // "Start (ns)", "Name", ...

struct EventFilter {
    std::string text;          // empty: every name
    bool regex = false;        // ECMAScript regular expression instead of a substring
    bool caseSensitive = false;
    int64_t minDuration = 0;   // inclusive, ns
    int64_t maxDuration = INT64_MAX;
    bool active() const { return !text.empty() || minDuration > 0 || maxDuration != INT64_MAX; }
};

class EventQuery {
public:
    // `tracks`: indices into report->tracks (duplicates and out-of-range indices are dropped;
    // metric tracks are allowed and show their samples). Starts sorted by start time.
    EventQuery(std::shared_ptr<const Report> report, std::vector<uint32_t> tracks, unsigned threads = 0);

    // Every track of a kind, in report order ("all kernels", "all CUDA API calls").
    static std::vector<uint32_t> tracksOfKind(const Report& report, EventKind kind);

    const Report& report() const { return *m_report; }
    const std::shared_ptr<const Report>& reportPtr() const { return m_report; }
    const std::vector<uint32_t>& tracks() const { return m_tracks; }
    size_t totalCount() const { return m_sorted.size(); }
    size_t rowCount() const { return m_filterActive ? m_rows.size() : m_sorted.size(); }
    EventRef eventAt(size_t row) const;
    // The row showing an event under the current sort and filter, if it is visible.
    std::optional<size_t> rowOf(EventRef event) const;

    void sort(EventColumn column, bool descending);
    EventColumn sortColumn() const { return m_sortColumn; }
    bool sortDescending() const { return m_descending; }
    // Applies a filter to every event (the sort is kept). A bad regular expression is an
    // error naming it, and leaves the previous filter in place.
    Status setFilter(const EventFilter& filter);
    const EventFilter& filter() const { return m_filter; }

    // Cell values of an event, as the view shows them.
    int64_t value(EventRef e, EventColumn column) const;  // numeric columns (Name/Row: rank / position)
    std::string text(EventRef e, EventColumn column) const;

private:
    uint32_t globalId(EventRef e) const;
    EventRef refOf(uint32_t gid) const;
    uint32_t nameToken(const Track& t, size_t i) const;
    std::vector<uint64_t> keysByGlobalId(EventColumn column) const;
    void ensureNameRanks();

    std::shared_ptr<const Report> m_report;
    std::vector<uint32_t> m_tracks;
    std::vector<uint32_t> m_offsets;   // m_offsets[k]: global id of tracks[k]'s first event
    std::vector<int32_t> m_trackPos;   // report track index -> position in m_tracks, or -1
    std::vector<uint32_t> m_byStart;   // all global ids by start (the tie-break order)
    std::vector<uint32_t> m_sorted;    // all global ids in the current order
    std::vector<uint32_t> m_rows;      // m_sorted filtered (only used while a filter is active)
    bool m_filterActive = false;
    EventFilter m_filter;
    EventColumn m_sortColumn = EventColumn::Start;
    bool m_descending = false;
    std::vector<uint32_t> m_nameRank;  // name token -> rank in name order (built on first use)
    unsigned m_threads = 0;
};

// The name an event is shown with: its name, or for nameless kinds a label such as
// "[CUDA memcpy Host-to-Device]" (the same labels as the selection statistics).
std::string eventDisplayName(const Report& report, const Track& track, size_t index);

// Per string id of the report, 1 when that string matches the filter's text (substring or
// regular expression, as EventQuery filters names); for the timeline's find-and-dim. Each
// distinct string is tested once. A bad expression is an error naming it.
Result<std::vector<uint8_t>> matchingNameIds(const Report& report, const EventFilter& filter);

// Sorts `ids` stably by `keys[ids[k]]` (ascending) with an LSD radix sort; O(n) per 11 bits
// of the key range. Exposed for tests and the benchmark.
void radixSortByKey(std::vector<uint32_t>& ids, const std::vector<uint64_t>& keys);

}  // namespace sl::analysis
