#pragma once
// Every field of one event as (field, value) text pairs, for the details panel and tests:
// the common fields (name, kind, row, start, end, duration), the owner (process/thread or
// device/context/stream) and the kind's own columns in words (grid and block of a kernel,
// bytes and direction of a copy, payload of an NVTX range...). With a CorrelationIndex a GPU
// operation also names its launching API call and thread, and an API call the work it launched.
#include <string>
#include <vector>

#include "model/analysis/CorrelationIndex.h"

namespace sl::analysis {

struct EventField {
    std::string field;
    std::string value;
    bool operator==(const EventField&) const = default;
};

// Empty for an invalid reference. Times are shown relative to the report's time origin.
std::vector<EventField> eventDetails(const Report& report, EventRef event, const CorrelationIndex* correlation = nullptr);
// The value of one field ("" if absent), for tests and tooltips.
std::string detailValue(const std::vector<EventField>& fields, std::string_view field);

}  // namespace sl::analysis
