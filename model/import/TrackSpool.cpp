#include "model/import/TrackSpool.h"

#include <algorithm>
#include <type_traits>

namespace sl::import {
namespace {

void clearEvents(Track& t) {
    t.start.clear();
    t.end.clear();
    t.name.clear();
    for (auto& c : t.cols) c.clear();
}

}  // namespace

void columnBits(const Column& c, size_t begin, size_t end, int64_t* out) {
    auto fill = [&](auto view) {
        for (size_t i = begin; i < end; ++i) {
            if constexpr (std::is_same_v<decltype(view[i]), double>)
                out[i - begin] = std::bit_cast<int64_t>(view[i]);
            else
                out[i - begin] = static_cast<int64_t>(view[i]);
        }
    };
    switch (c.type()) {
        case ColumnType::I64:
            return fill(c.view<int64_t>());
        case ColumnType::U64:
            return fill(c.view<uint64_t>());
        case ColumnType::I32:
            return fill(c.view<int32_t>());
        case ColumnType::U32:
            return fill(c.view<uint32_t>());
        case ColumnType::I16:
            return fill(c.view<int16_t>());
        case ColumnType::U8:
            return fill(c.view<uint8_t>());
        case ColumnType::F64:
            return fill(c.view<double>());
    }
}

// One sequence being merged: its chunks decoded one at a time.
struct TrackSpool::Cursor {
    const Sequence* seq = nullptr;
    size_t next = 0;
    Track events;
    size_t i = 0;
};

TrackSpool::TrackSpool(const SpoolPolicy& policy)
    : m_policy(policy),
      m_encoder(std::make_unique<ChunkEncoder>(1)),
      m_decoder(std::make_unique<ChunkDecoder>()) {}

TrackSpool::~TrackSpool() = default;

Status TrackSpool::encodeRun(const Track& t, Run& run) {
    const size_t n = t.size();
    for (size_t b = 0; b < n; b += m_policy.chunkEvents) {
        const size_t e = std::min<size_t>(n, b + m_policy.chunkEvents);
        EncodedChunk c;
        if (Status s = m_encoder->encode(t, b, e, c); !s) return s;
        c.blob.shrink_to_fit();  // the encoder sizes it for the worst case
        m_bytes += c.blob.capacity() + sizeof(EncodedChunk);
        run.chunks.push_back(std::move(c));
    }
    run.firstStart = t.start.front();
    run.firstEnd = t.endAt(0);
    run.lastStart = t.start.back();
    run.lastEnd = t.endAt(n - 1);
    return {};
}

Status TrackSpool::spill(Track& t) {
    if (t.empty()) return {};
    t.sortByStart();  // as Track::finalize orders them before packing lanes
    Run run;
    if (Status s = encodeRun(t, run); !s) return s;
    m_events += t.size();
    m_runs[t.key].push_back(std::move(run));
    t = Track(t.key);
    return {};
}

Status TrackSpool::drain(std::vector<Track>& tracks, bool all) {
    size_t total = 0;
    for (const Track& t : tracks) total += t.size();
    all = all || total > m_policy.bufferedEvents;
    for (Track& t : tracks)
        if (all || t.size() >= m_policy.trackEvents)
            if (Status s = spill(t); !s) return s;
    return {};
}

std::vector<TrackKey> TrackSpool::keys() const {
    std::vector<TrackKey> out;
    out.reserve(m_runs.size());
    for (const auto& entry : m_runs) out.push_back(entry.first);
    return out;
}

void TrackSpool::release(const TrackKey& key) {
    auto it = m_runs.find(key);
    if (it == m_runs.end()) return;
    for (const Run& r : it->second)
        for (const EncodedChunk& c : r.chunks) m_bytes -= c.blob.capacity() + sizeof(EncodedChunk);
    m_runs.erase(it);
}

Status TrackSpool::scan(const TrackKey& key, uint64_t columns, const Visit& visit) {
    auto it = m_runs.find(key);
    if (it == m_runs.end()) return {};
    Track events(key);
    for (const Run& r : it->second) {
        for (const EncodedChunk& c : r.chunks) {
            clearEvents(events);
            if (Status s = m_decoder->decode(c.blob.data(), c.blob.size(), c.rawBytes, c.count,
                                             c.checksum, events, columns, false);
                !s)
                return s;
            if (Status s = visit(events, 0, events.size()); !s) return s;
        }
    }
    return {};
}

Status TrackSpool::merge(const std::vector<TrackKey>& sources, uint64_t columns,
                         const Visit& visit) {
    std::vector<Sequence> all;
    std::vector<std::vector<Run>> rounds;  // runs made by merge rounds, owned until the end
    for (const TrackKey& key : sources) {
        auto it = m_runs.find(key);
        if (it == m_runs.end()) continue;
        // Step 1: sequences. A run whose first event comes after the last event of the run
        // before it continues that run's sequence: events that arrive in order, the common
        // case, make one sequence per track and need no merge at all.
        std::vector<Sequence> seqs;
        const Run* prev = nullptr;
        for (const Run& r : it->second) {
            const bool follows =
                prev && (prev->lastStart < r.firstStart ||
                         (prev->lastStart == r.firstStart && prev->lastEnd >= r.firstEnd));
            if (!follows) seqs.push_back(Sequence{key, {}});
            for (const EncodedChunk& c : r.chunks) seqs.back().chunks.push_back(&c);
            prev = &r;
        }
        if (Status s = reduce(seqs, rounds); !s) return s;
        for (auto& q : seqs) all.push_back(std::move(q));
    }
    // Step 3: the final merge.
    return mergeSequences(all, columns, visit);
}

// Step 2: more sequences than the fan-in (events far out of order) are merged in rounds, groups
// of neighbours at a time, so memory stays at fan-in decoded chunks; neighbours keep arrival
// order between groups for ties.
Status TrackSpool::reduce(std::vector<Sequence>& seqs, std::vector<std::vector<Run>>& rounds) {
    const size_t fanIn = std::max<size_t>(2, m_policy.mergeFanIn);
    while (seqs.size() > fanIn) {
        std::vector<Run>& merged = rounds.emplace_back();
        merged.reserve((seqs.size() + fanIn - 1) / fanIn);
        for (size_t g = 0; g < seqs.size(); g += fanIn) {
            const std::vector<Sequence> group(
                seqs.begin() + static_cast<ptrdiff_t>(g),
                seqs.begin() + static_cast<ptrdiff_t>(std::min(seqs.size(), g + fanIn)));
            Run& out = merged.emplace_back();
            Track buffer(seqs.front().key);
            std::vector<int64_t> extra(buffer.cols.size());
            bool first = true;
            auto flush = [&]() -> Status {
                if (buffer.empty()) return {};
                if (first) {
                    out.firstStart = buffer.start.front();
                    out.firstEnd = buffer.endAt(0);
                    first = false;
                }
                out.lastStart = buffer.start.back();
                out.lastEnd = buffer.endAt(buffer.size() - 1);
                Run part;
                if (Status s = encodeRun(buffer, part); !s) return s;
                for (auto& c : part.chunks) out.chunks.push_back(std::move(c));
                clearEvents(buffer);
                return {};
            };
            Status st =
                mergeSequences(group, ~uint64_t{0}, [&](const Track& t, size_t b, size_t e) {
                    for (size_t i = b; i < e; ++i) {
                        for (size_t c = 0; c < extra.size(); ++c)
                            extra[c] = columnBits(t.cols[c], i);
                        buffer.append(t.start[i], t.endAt(i), t.nameAt(i), extra.data());
                        if (buffer.size() >= m_policy.chunkEvents)
                            if (Status s = flush(); !s) return s;
                    }
                    return Status{};
                });
            if (st) st = flush();
            if (!st) return st;
        }
        std::vector<Sequence> next;
        for (const Run& r : merged) {
            next.push_back(Sequence{seqs.front().key, {}});
            for (const EncodedChunk& c : r.chunks) next.back().chunks.push_back(&c);
        }
        seqs.swap(next);
    }
    return {};
}

Status TrackSpool::mergeSequences(const std::vector<Sequence>& seqs, uint64_t columns,
                                  const Visit& visit) {
    std::vector<Cursor> cursors(seqs.size());
    auto load = [&](Cursor& c) -> Result<bool> {
        if (c.next == c.seq->chunks.size()) return false;
        const EncodedChunk& e = *c.seq->chunks[c.next++];
        clearEvents(c.events);
        if (Status s = m_decoder->decode(e.blob.data(), e.blob.size(), e.rawBytes, e.count,
                                         e.checksum, c.events, columns, false);
            !s)
            return makeError("spooled events: " + s.error());
        c.i = 0;
        return true;
    };
    std::vector<size_t> live;
    for (size_t k = 0; k < seqs.size(); ++k) {
        cursors[k].seq = &seqs[k];
        cursors[k].events = Track(seqs[k].key);
        auto more = load(cursors[k]);
        if (!more) return Error{more.error()};
        if (*more) live.push_back(k);
    }
    // A few sequences at most (the fan-in): a linear pick of the smallest is cheapest.
    while (!live.empty()) {
        size_t best = 0;
        for (size_t j = 1; j < live.size(); ++j) {
            const Cursor& a = cursors[live[j]];
            const Cursor& b = cursors[live[best]];
            const int64_t sa = a.events.start[a.i], sb = b.events.start[b.i];
            if (sa < sb || (sa == sb && a.events.endAt(a.i) > b.events.endAt(b.i))) best = j;
        }
        Cursor& c = cursors[live[best]];
        // The chosen sequence gives every event of its chunk that still comes first.
        const int64_t limitStart = [&] {
            int64_t m = INT64_MAX;
            for (size_t j = 0; j < live.size(); ++j)
                if (j != best) m = std::min(m, cursors[live[j]].events.start[cursors[live[j]].i]);
            return m;
        }();
        size_t j = c.i + 1;
        while (j < c.events.size() && c.events.start[j] < limitStart) ++j;
        if (Status s = visit(c.events, c.i, j); !s) return s;
        c.i = j;
        if (c.i == c.events.size()) {
            auto more = load(c);
            if (!more) return Error{more.error()};
            if (!*more) live.erase(live.begin() + static_cast<ptrdiff_t>(best));
        }
    }
    return {};
}

}  // namespace sl::import
