#pragma once
// The one details formatter of an event, for the details panel, the timeline's tooltips and the
// CLI (`sightline info --event`): (field, value) text pairs. The full form has every field: the
// common ones (name, kind, row, start, end, duration), the owner (process/thread or
// device/context/stream) and the kind's own columns in words (grid and block of a kernel, bytes
// and direction of a copy, payload of an NVTX range...); with a CorrelationIndex a GPU operation
// also names its launching API call and thread, and an API call the work it launched. The
// tooltip form is the subset a tooltip shows, with the same values: the key fields of the kind,
// the nearest frames of a call stack; nothing that scans other tracks. A field named "" continues
// the previous one (the next frame of a call stack).
#include <string>
#include <vector>

#include "model/analysis/CorrelationIndex.h"

namespace sl::analysis {

struct EventField {
    std::string field;
    std::string value;
    bool operator==(const EventField&) const = default;
};

enum class DetailForm { Full, Tooltip };

// Empty for an invalid reference. Times are shown relative to the report's time origin.
std::vector<EventField> eventDetails(const Report& report, EventRef event,
                                     const CorrelationIndex* correlation = nullptr,
                                     DetailForm form = DetailForm::Full);
// The same for event `index` of `track`, which may be a track the viewer made and the report
// does not hold (the NVTX ranges projected onto a GPU); nothing correlated.
std::vector<EventField> eventDetails(const Report& report, const Track& track, size_t index,
                                     DetailForm form);
// The event's "Name" field: its display name; a CPU sample without a resolved leaf is named by
// where it is ("libfoo.so+0x1a").
std::string eventName(const Report& report, const Track& track, size_t index);
// The value of one field ("" if absent), for tests and tooltips.
std::string detailValue(const std::vector<EventField>& fields, std::string_view field);

}  // namespace sl::analysis
