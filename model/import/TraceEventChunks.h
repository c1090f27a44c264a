#pragma once
// Splits the traceEvents array of a large Chrome trace into chunks of whole events, so each
// chunk is parsed on its own with one reused parser: memory stays at the chunk size instead of
// a structural index over the whole file (which otherwise costs more page faults than parsing).
// The split is a guess from the text (an event ends with '}' and the next starts after ','):
// callers must parse the header and every chunk, and on any failure parse the whole document
// instead. A wrong guess always fails: a split inside a string leaves that string unclosed, a
// split inside an event leaves its brackets unbalanced.
#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace sl::import {

struct TraceEventChunks {
    size_t arrayOpen = 0;  // offset of the '[' of "traceEvents"
    std::vector<size_t>
        closeCandidates;  // offsets of ']' that may close it, nearest to the end first
    std::vector<std::pair<size_t, size_t>> chunks;  // [begin, end) of each run of whole events
};

// nullopt when the text does not look like {..."traceEvents": [{...}, ...]...}. `passed`, when
// given, is called as the cuts advance with the offset before which the planner reads no more
// (a mapped file gives those pages back).
std::optional<TraceEventChunks> planTraceEventChunks(
    std::string_view text, size_t chunkBytes, const std::function<void(size_t)>& passed = {});

// The chunks of `plan` that end before `arrayClose` (the last one clipped to it).
std::vector<std::pair<size_t, size_t>> chunksBefore(std::string_view text,
                                                    const TraceEventChunks& plan,
                                                    size_t arrayClose);

}  // namespace sl::import
