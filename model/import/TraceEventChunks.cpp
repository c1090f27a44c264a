#include "model/import/TraceEventChunks.h"

#include <algorithm>
#include <cstring>

namespace sl::import {
namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

size_t skipSpace(std::string_view t, size_t i) {
    while (i < t.size() && isSpace(t[i])) ++i;
    return i;
}

}  // namespace

std::optional<TraceEventChunks> planTraceEventChunks(std::string_view t, size_t chunkBytes,
                                                     const std::function<void(size_t)>& passed) {
    TraceEventChunks plan;
    // Step 1: the array after the "traceEvents" key.
    static constexpr std::string_view kKey = "\"traceEvents\"";
    const void* hit = ::memmem(t.data(), t.size(), kKey.data(), kKey.size());
    if (!hit) return std::nullopt;
    size_t i =
        skipSpace(t, static_cast<size_t>(static_cast<const char*>(hit) - t.data()) + kKey.size());
    if (i >= t.size() || t[i] != ':') return std::nullopt;
    i = skipSpace(t, i + 1);
    if (i >= t.size() || t[i] != '[') return std::nullopt;
    plan.arrayOpen = i;
    const size_t first = skipSpace(t, i + 1);
    if (first >= t.size() || t[first] != '{') return std::nullopt;
    // Step 2: ']' that may close it, from the end (keys such as baseTimeNanoseconds may follow;
    // they are short, so only the last MiB is searched).
    const size_t stop =
        std::max(first, t.size() > (size_t{1} << 20) ? t.size() - (size_t{1} << 20) : size_t{0});
    for (size_t k = t.size(); k > stop && plan.closeCandidates.size() < 16;) {
        --k;
        if (t[k] != ']') continue;
        size_t j = k;
        while (j > first && isSpace(t[j - 1])) --j;
        if (j > first && t[j - 1] == '}') plan.closeCandidates.push_back(k);
    }
    if (plan.closeCandidates.empty()) return std::nullopt;
    // Step 3: cut roughly every chunkBytes at "}" , "{".
    const size_t limit = plan.closeCandidates.front();
    size_t begin = first;
    while (begin < limit) {
        size_t cut = std::string_view::npos, next = std::string_view::npos;
        for (size_t p = begin + chunkBytes; p < limit;) {
            const void* brace = std::memchr(t.data() + p, '}', limit - p);
            if (!brace) break;
            const size_t b = static_cast<size_t>(static_cast<const char*>(brace) - t.data());
            size_t j = skipSpace(t, b + 1);
            if (j < limit && t[j] == ',') {
                j = skipSpace(t, j + 1);
                if (j < limit && t[j] == '{') {
                    cut = b + 1;
                    next = j;
                    break;
                }
            }
            p = b + 1;
        }
        if (cut == std::string_view::npos) {
            plan.chunks.emplace_back(begin, limit);
            break;
        }
        plan.chunks.emplace_back(begin, cut);
        begin = next;
        if (passed) passed(begin);
    }
    return plan;
}

std::vector<std::pair<size_t, size_t>> chunksBefore(std::string_view t,
                                                    const TraceEventChunks& plan,
                                                    size_t arrayClose) {
    std::vector<std::pair<size_t, size_t>> out;
    for (const auto& [b, e] : plan.chunks) {
        if (b >= arrayClose) break;
        out.emplace_back(b, std::min(e, arrayClose));
    }
    // The last chunk ends at the closing ']': drop trailing whitespace.
    if (!out.empty()) {
        auto& last = out.back().second;
        while (last > out.back().first && isSpace(t[last - 1])) --last;
    }
    return out;
}

}  // namespace sl::import
