#pragma once
// The open start/end ranges of one stream, by range id, while the merge reads it. An image
// numbers its ranges from one counter, so the ids of a stream are nearly dense: a table from
// the smallest id costs 8 bytes per range, and an end finds its start at once (the whole
// table is the memory a start/end range costs beyond its track row). Ids that are not dense
// (a span far over the count) go to a hash map instead.
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace sl::capture {

class StartEndIndex {
public:
    static constexpr uint64_t kNone = 0;         // no start with this id (yet)
    static constexpr uint64_t kOutside = 1;      // started outside the merge window: ends are consumed
    static constexpr uint64_t kEnded = 2;        // already ended: a second end is unmatched
    static constexpr uint64_t kFirstRef = 3;     // refs are stored as ref + kFirstRef

    // The ids the stream's starts use (from a first pass): sizes the table.
    void expect(uint64_t minId, uint64_t maxId, uint64_t count) {
        m_base = minId;
        const uint64_t span = maxId - minId + 1;
        if (count > 0 && maxId >= minId && span <= 2 * count + 4096)
            m_dense.assign(span, kNone);
    }
    // `ref` is the caller's (track << 32 | row); `outside`: the range is not in the report.
    void started(uint64_t id, uint64_t ref, bool outside) {
        slot(id) = outside ? kOutside : ref + kFirstRef;
    }
    // The open start `id` ends: true and its ref when it was one in the report; `known` says
    // whether the id was started at all (else the end may belong to a start not read yet).
    bool end(uint64_t id, uint64_t* ref, bool* known) {
        uint64_t* s = find(id);
        *known = s && *s != kNone && *s != kEnded;
        if (!*known) return false;
        const uint64_t v = *s;
        *s = kEnded;
        if (v == kOutside) return false;
        *ref = v - kFirstRef;
        return true;
    }
    // f(ref) for every range in the report that never ended.
    template <class F>
    void forEachOpen(F&& f) const {
        for (uint64_t v : m_dense)
            if (v >= kFirstRef) f(v - kFirstRef);
        for (const auto& [id, v] : m_sparse)
            if (v >= kFirstRef) f(v - kFirstRef);
    }

private:
    uint64_t& slot(uint64_t id) {
        if (!m_dense.empty() && id >= m_base && id - m_base < m_dense.size())
            return m_dense[id - m_base];
        return m_sparse[id];
    }
    uint64_t* find(uint64_t id) {
        if (!m_dense.empty() && id >= m_base && id - m_base < m_dense.size())
            return &m_dense[id - m_base];
        auto it = m_sparse.find(id);
        return it == m_sparse.end() ? nullptr : &it->second;
    }

    uint64_t m_base = 0;
    std::vector<uint64_t> m_dense;
    std::unordered_map<uint64_t, uint64_t> m_sparse;
};

}  // namespace sl::capture
