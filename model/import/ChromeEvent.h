#pragma once
// One parsed Chrome trace event, as the JSON parser hands it to the mapper. Strings view the
// parser's buffers (valid for the whole import); numbers keep their JSON text so times convert
// to nanoseconds exactly.
#include <cstdint>
#include <optional>
#include <string_view>

namespace sl::import {

// A pid or tid: Chrome allows numbers and strings ("Spans", "stream 7").
struct ChromeId {
    bool isString = false;
    int64_t number = 0;
    std::string_view text;
};

struct ChromeArg {
    std::string_view key;
    std::string_view raw;  // the number's JSON text
};

struct ChromeEvent {
    static constexpr int kMaxNumericArgs = 24;

    std::string_view ph, cat, name;
    ChromeId pid, tid;
    std::optional<int64_t> ts, dur;  // ns; ts before baseTimeNanoseconds is added
    bool badTime = false;            // a ts/dur that is not a number
    std::string_view id;             // flow / async id, raw
    std::string_view sf;             // stack frame id ("stackFrames" key), quotes removed
    // args
    ChromeArg numeric[kMaxNumericArgs];
    int numericCount = 0;
    std::string_view argName;    // args.name (M events)
    std::string_view argLabels;  // args.labels (M process_labels)
    int64_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
    bool hasGrid = false, hasBlock = false;

    // The integer value of a numeric arg, if present and whole.
    std::optional<int64_t> intArg(std::string_view key) const;
    std::optional<double> doubleArg(std::string_view key) const;
    // Resets what the parser sets (the numeric args array is only read up to numericCount).
    void clear() {
        ph = cat = name = id = sf = argName = argLabels = {};
        pid = tid = ChromeId{};
        ts.reset();
        dur.reset();
        badTime = hasGrid = hasBlock = false;
        numericCount = 0;
        for (int i = 0; i < 3; ++i) grid[i] = block[i] = 0;
    }
};

}  // namespace sl::import
