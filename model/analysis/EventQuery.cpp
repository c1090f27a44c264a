#include "model/analysis/EventQuery.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <numeric>
#include <regex>

#include "model/analysis/EventQueryColumns.h"
#include "model/analysis/SelectionParallel.h"
#include "model/analysis/SelectionStats.h"
#include "model/analysis/StatsCommon.h"

namespace sl::analysis {
namespace {

uint64_t orderedBits(int64_t v) { return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63); }

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

std::string_view eventColumnTitle(EventColumn c) {
    switch (c) {
        case EventColumn::Start: return "Start";
        case EventColumn::Duration: return "Duration";
        case EventColumn::End: return "End";
        case EventColumn::Name: return "Name";
        case EventColumn::Row: return "Row";
        case EventColumn::Correlation: return "Correlation ID";
        case EventColumn::Bytes: return "Bytes";
    }
    return "";
}

std::string eventDisplayName(const Report& report, const Track& t, size_t i) {
    if (t.schema().hasName) {
        const std::string_view n = report.str(t.name[i]);
        return t.key.kind == EventKind::CudaApi ? std::string(apiDisplayName(n)) : std::string(n);
    }
    return selectionGroupName(report, t, groupKeyOf(t, i));
}

void radixSortByKey(std::vector<uint32_t>& ids, const std::vector<uint64_t>& keys) {
    const size_t n = ids.size();
    if (n < 2) return;
    std::vector<uint64_t> k(n);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t j = 0; j < n; ++j) {
        k[j] = keys[ids[j]];
        lo = std::min(lo, k[j]);
        hi = std::max(hi, k[j]);
    }
    if (lo == hi) return;
    for (auto& v : k) v -= lo;
    const int bits = 64 - std::countl_zero(hi - lo);
    constexpr int kDigit = 11;
    constexpr size_t kBuckets = size_t{1} << kDigit;
    std::vector<uint64_t> k2(n);
    std::vector<uint32_t> ids2(n);
    for (int shift = 0; shift < bits; shift += kDigit) {
        std::vector<size_t> count(kBuckets, 0);
        for (size_t j = 0; j < n; ++j) ++count[(k[j] >> shift) & (kBuckets - 1)];
        if (std::find(count.begin(), count.end(), n) != count.end()) continue;  // one digit value: no-op pass
        size_t sum = 0;
        for (auto& c : count) {
            const size_t x = c;
            c = sum;
            sum += x;
        }
        for (size_t j = 0; j < n; ++j) {
            const size_t pos = count[(k[j] >> shift) & (kBuckets - 1)]++;
            k2[pos] = k[j];
            ids2[pos] = ids[j];
        }
        k.swap(k2);
        ids.swap(ids2);
    }
}

std::vector<uint32_t> EventQuery::tracksOfKind(const Report& report, EventKind kind) {
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < report.tracks.size(); ++i)
        if (report.tracks[i].key.kind == kind) out.push_back(i);
    return out;
}

EventQuery::EventQuery(std::shared_ptr<const Report> report, std::vector<uint32_t> tracks, unsigned threads)
    : m_report(std::move(report)), m_threads(threads) {
    m_trackPos.assign(m_report->tracks.size(), -1);
    uint64_t total = 0;
    for (uint32_t t : tracks) {
        if (t >= m_report->tracks.size() || m_trackPos[t] >= 0) continue;
        if (total + m_report->tracks[t].size() > UINT32_MAX) break;  // global ids are uint32
        m_trackPos[t] = static_cast<int32_t>(m_tracks.size());
        m_tracks.push_back(t);
        m_offsets.push_back(static_cast<uint32_t>(total));
        total += m_report->tracks[t].size();
    }
    m_offsets.push_back(static_cast<uint32_t>(total));
    m_byStart.resize(total);
    std::iota(m_byStart.begin(), m_byStart.end(), 0u);
    radixSortByKey(m_byStart, keysByGlobalId(EventColumn::Start));
    m_sorted = m_byStart;
}

uint32_t EventQuery::globalId(EventRef e) const {
    return m_offsets[static_cast<size_t>(m_trackPos[e.track])] + e.index;
}

EventRef EventQuery::refOf(uint32_t gid) const {
    const size_t k = static_cast<size_t>(std::upper_bound(m_offsets.begin(), m_offsets.end(), gid) - m_offsets.begin()) - 1;
    return {m_tracks[k], gid - m_offsets[k]};
}

EventRef EventQuery::eventAt(size_t row) const {
    const std::vector<uint32_t>& v = m_filterActive ? m_rows : m_sorted;
    return row < v.size() ? refOf(v[row]) : EventRef{};
}

std::optional<size_t> EventQuery::rowOf(EventRef e) const {
    if (!e.valid() || e.track >= m_trackPos.size() || m_trackPos[e.track] < 0) return std::nullopt;
    if (e.index >= m_report->tracks[e.track].size()) return std::nullopt;
    const uint32_t gid = globalId(e);
    const std::vector<uint32_t>& v = m_filterActive ? m_rows : m_sorted;
    const auto it = std::find(v.begin(), v.end(), gid);
    if (it == v.end()) return std::nullopt;
    return static_cast<size_t>(it - v.begin());
}

uint32_t EventQuery::nameToken(const Track& t, size_t i) const {
    if (t.schema().hasName) return t.name[i];
    return static_cast<uint32_t>(m_report->strings.size()) + static_cast<uint32_t>(t.key.kind) * 256 + groupKeyOf(t, i);
}

void EventQuery::ensureNameRanks() {
    if (!m_nameRank.empty()) return;
    const Report& r = *m_report;
    const size_t tokens = r.strings.size() + (kEventKindCount + 1) * 256;
    std::vector<uint8_t> used(tokens, 0);
    for (uint32_t ti : m_tracks) {
        const Track& t = r.tracks[ti];
        for (size_t i = 0; i < t.size(); ++i) used[nameToken(t, i)] = 1;
    }
    // One display string per used token; a representative event gives nameless labels.
    std::vector<std::pair<std::string, uint32_t>> names;
    for (uint32_t tok = 0; tok < r.strings.size(); ++tok)
        if (used[tok]) names.emplace_back(std::string(r.str(tok)), tok);
    for (uint32_t ti : m_tracks) {
        const Track& t = r.tracks[ti];
        if (t.schema().hasName) continue;
        for (uint32_t key = 0; key < 256; ++key) {
            const uint32_t tok = static_cast<uint32_t>(r.strings.size()) + static_cast<uint32_t>(t.key.kind) * 256 + key;
            if (!used[tok]) continue;
            used[tok] = 0;  // once per token
            names.emplace_back(selectionGroupName(r, t, key), tok);
        }
    }
    std::sort(names.begin(), names.end());
    m_nameRank.assign(tokens, 0);
    for (uint32_t k = 0; k < names.size(); ++k) m_nameRank[names[k].second] = k;
}

std::vector<uint64_t> EventQuery::keysByGlobalId(EventColumn column) const {
    std::vector<uint64_t> keys(m_offsets.back());
    parallelFor(m_tracks.size(), m_threads, [&](size_t k) {
        const Track& t = m_report->tracks[m_tracks[k]];
        uint64_t* out = keys.data() + m_offsets[k];
        const size_t n = t.size();
        switch (column) {
            case EventColumn::Start:
                for (size_t i = 0; i < n; ++i) out[i] = orderedBits(t.start[i]);
                break;
            case EventColumn::End:
                for (size_t i = 0; i < n; ++i) out[i] = orderedBits(t.endAt(i));
                break;
            case EventColumn::Duration:
                for (size_t i = 0; i < n; ++i) out[i] = orderedBits(t.durationAt(i));
                break;
            case EventColumn::Name:
                for (size_t i = 0; i < n; ++i) out[i] = m_nameRank[nameToken(t, i)];
                break;
            case EventColumn::Row:
                std::fill(out, out + n, k);
                break;
            case EventColumn::Correlation:
            case EventColumn::Bytes: {
                const int col = column == EventColumn::Correlation ? correlationColumn(t.key.kind) : bytesColumn(t.key.kind);
                if (col < 0) {
                    std::fill(out, out + n, 0);
                } else {
                    for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint64_t>(t.intAt(col, i));
                }
                break;
            }
        }
    });
    return keys;
}

void EventQuery::sort(EventColumn column, bool descending) {
    if (column == EventColumn::Name) ensureNameRanks();
    std::vector<uint64_t> keys = keysByGlobalId(column);
    if (descending)
        for (auto& k : keys) k = ~k;
    m_sorted = m_byStart;
    if (column != EventColumn::Start || descending) radixSortByKey(m_sorted, keys);
    m_sortColumn = column;
    m_descending = descending;
    if (m_filterActive) (void)setFilter(m_filter);
}

namespace {

// Tests display strings against a filter's text; construction fails on a bad expression.
class NameMatcher {
public:
    static Result<NameMatcher> make(const EventFilter& f) {
        NameMatcher m;
        m.m_filter = &f;
        if (f.regex && !f.text.empty()) {
            try {
                auto flags = std::regex::ECMAScript | std::regex::optimize;
                if (!f.caseSensitive) flags |= std::regex::icase;
                m.m_re = std::regex(f.text, flags);
            } catch (const std::regex_error& e) {
                return makeError("invalid regular expression '" + f.text + "': " + e.what());
            }
        }
        m.m_needle = f.caseSensitive ? f.text : lower(f.text);
        return m;
    }
    bool operator()(std::string_view s) const {
        if (m_filter->text.empty()) return true;
        if (m_filter->regex) return std::regex_search(s.begin(), s.end(), m_re);
        if (m_filter->caseSensitive) return s.find(m_needle) != std::string_view::npos;
        return lower(s).find(m_needle) != std::string::npos;
    }

private:
    const EventFilter* m_filter = nullptr;
    std::regex m_re;
    std::string m_needle;
};

}  // namespace

Result<std::vector<uint8_t>> matchingNameIds(const Report& report, const EventFilter& filter) {
    auto matcher = NameMatcher::make(filter);
    if (!matcher) return std::move(matcher).takeError();
    std::vector<uint8_t> out(report.strings.size(), 0);
    for (uint32_t id = 0; id < out.size(); ++id) out[id] = (*matcher)(report.str(id)) ? 1 : 0;
    return out;
}

Status EventQuery::setFilter(const EventFilter& filter) {
    const Report& r = *m_report;
    // Step 1: a matcher for one display string, evaluated once per distinct name.
    auto made = NameMatcher::make(filter);
    if (!made) return std::move(made).takeError();
    const NameMatcher& matches = *made;
    m_filter = filter;
    m_filterActive = filter.active();
    if (!m_filterActive) {
        m_rows.clear();
        m_rows.shrink_to_fit();
        return {};
    }
    // Step 2: per token 0 = not evaluated, 1 = rejected, 2 = accepted.
    std::vector<uint8_t> verdict(r.strings.size() + (kEventKindCount + 1) * 256, 0);
    std::vector<uint8_t> rowOk(m_offsets.back(), 0);
    for (size_t k = 0; k < m_tracks.size(); ++k) {
        const Track& t = r.tracks[m_tracks[k]];
        uint8_t* ok = rowOk.data() + m_offsets[k];
        for (size_t i = 0; i < t.size(); ++i) {
            const int64_t d = t.durationAt(i);
            if (d < filter.minDuration || d > filter.maxDuration) continue;
            uint8_t& v = verdict[nameToken(t, i)];
            if (v == 0) v = matches(eventDisplayName(r, t, i)) ? 2 : 1;
            ok[i] = v == 2;
        }
    }
    // Step 3: keep the sort order.
    m_rows.clear();
    for (uint32_t gid : m_sorted)
        if (rowOk[gid]) m_rows.push_back(gid);
    return {};
}

int64_t EventQuery::value(EventRef e, EventColumn column) const {
    const Track& t = m_report->tracks[e.track];
    const size_t i = e.index;
    switch (column) {
        case EventColumn::Start: return t.start[i];
        case EventColumn::End: return t.endAt(i);
        case EventColumn::Duration: return t.durationAt(i);
        case EventColumn::Name: return nameToken(t, i);
        case EventColumn::Row: return m_trackPos[e.track];
        case EventColumn::Correlation: {
            const int c = correlationColumn(t.key.kind);
            return c < 0 ? 0 : t.intAt(c, i);
        }
        case EventColumn::Bytes: {
            const int c = bytesColumn(t.key.kind);
            return c < 0 ? 0 : t.intAt(c, i);
        }
    }
    return 0;
}

std::string EventQuery::text(EventRef e, EventColumn column) const {
    const Track& t = m_report->tracks[e.track];
    switch (column) {
        case EventColumn::Name: return eventDisplayName(*m_report, t, e.index);
        case EventColumn::Row: return m_report->trackTitle(t);
        default: return std::to_string(value(e, column));
    }
}

}  // namespace sl::analysis
