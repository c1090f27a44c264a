// KinetoEventMapper, streamed: events leave the builder for the spool as they accumulate, and
// at the end every track is merged out of the spool into the writer, in key order, as the
// in-memory finish would have sorted and written it.
#include <algorithm>

#include "model/import/KinetoEventMapper.h"
#include "model/rep/RepWriter.h"

namespace sl::import {
namespace {

// t + base held to the model's time range (Track::finalize holds in-memory imports to it).
int64_t shifted(int64_t t, int64_t base) {
    int64_t out = 0;
    if (__builtin_add_overflow(t, base, &out)) out = base > 0 ? kMaxEventTime : -kMaxEventTime;
    return std::clamp(out, -kMaxEventTime, kMaxEventTime);
}

}  // namespace

Status KinetoEventMapper::writeTracks(RepWriter& writer, int64_t base,
                                      const std::function<void(double)>& progress) {
    // Step 1: what goes to each track: its own spooled events, or for a GPU track the pending
    // tracks whose events go to its process (filtered when they go to several).
    struct Source {
        TrackKey key;
        const PendingTrack* pending = nullptr;
        bool filter = false;
    };
    std::map<TrackKey, std::vector<Source>> writes;
    for (const TrackKey& key : m_spool->keys())
        if (!isPendingPid(key.pid)) writes[key].push_back({key, nullptr, false});
    for (const PendingTrack& p : m_gpuPlan)
        for (int64_t pid : p.pids) {
            TrackKey key = p.key;
            key.pid = pid;
            writes[key].push_back({p.key, &p, p.pids.size() > 1});
        }
    // Step 2: each track merged from its sources into the writer.
    const double total = static_cast<double>(std::max<uint64_t>(1, m_spool->eventCount()));
    uint64_t written = 0;
    std::vector<int64_t> extra, values;
    for (const auto& write : writes) {
        // Not a structured binding: the merge's lambda below refers to them (clang 14).
        const TrackKey& key = write.first;
        const auto& sources = write.second;
        RepWriter::TrackStream& stream = writer.beginTrack(key);
        std::vector<TrackKey> keys;
        for (const Source& s : sources) keys.push_back(s.key);
        const bool hasEnd = schemaOf(key.kind).hasEnd;
        const int64_t pid = key.pid;
        Status st = m_spool->merge(keys, ~uint64_t{0}, [&](const Track& t, size_t b, size_t e) {
            // The range's columns, column by column: one type dispatch each.
            const size_t n = e - b, ncols = t.cols.size();
            values.resize(n * ncols);
            for (size_t c = 0; c < ncols; ++c) columnBits(t.cols[c], b, e, &values[c * n]);
            const Source* src = nullptr;
            if (isPendingPid(t.key.pid))
                src = &*std::find_if(sources.begin(), sources.end(),
                                     [&t](const Source& s) { return s.key == t.key; });
            extra.resize(ncols);
            for (size_t i = b; i < e; ++i) {
                for (size_t c = 0; c < ncols; ++c) extra[c] = values[c * n + (i - b)];
                if (src) {
                    const auto stored = static_cast<uint32_t>(extra[0]);
                    if (src->filter && pidOf(*src->pending, stored) != pid) continue;
                    extra[0] = stored == 0 ? 0 : int64_t{stored - 1};
                }
                const int64_t s = shifted(t.start[i], base);
                const int64_t end = hasEnd ? std::max(s, shifted(t.end[i], base)) : s;
                if (Status w = writer.append(stream, s, end, t.nameAt(i), extra.data()); !w)
                    return w;
            }
            written += n;
            return Status{};
        });
        if (st) st = writer.endTrack(stream);
        if (!st) return st;
        if (!isPendingPid(key.pid)) m_spool->release(key);
        if (progress) progress(static_cast<double>(written) / total);
    }
    return {};
}

Result<KinetoEventMapper::Streamed> KinetoEventMapper::finishInto(
    const TraceHeader& header, RepWriter& writer, const std::function<void(double)>& progress) {
    if (!m_spool) return makeError("finishInto needs a spool");
    if (!m_spoolError.empty()) return makeError("cannot hold the events: " + m_spoolError);
    for (const Gpu& g : header.gpus) m_b.report().gpus.push_back(g);
    for (const Diagnostic& d : header.diagnostics) m_b.report().diagnostics.push_back(d);
    if (Status s = m_spool->drain(m_b.report().tracks, true); !s) return Error{s.error()};
    if (Status s = flushGpu(); !s) return Error{s.error()};
    addSamples(header);
    finishEntities(header);
    finishSession(header);
    if (m_b.eventCount() == 0)
        diag("chrome.no_events", "the trace holds no event Sightline can import");
    // The samples and GPU annotations went to the builder: they join the rest.
    if (Status s = m_spool->drain(m_b.report().tracks, true); !s) return Error{s.error()};
    Streamed out;
    out.events = m_spool->eventCount();
    out.meta = m_b.finish();  // metadata only: every track is empty now
    if (Status s = writeTracks(writer, header.baseTimeNs.value_or(0), progress); !s)
        return Error{s.error()};
    return out;
}

}  // namespace sl::import
