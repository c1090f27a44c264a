#include "model/merge/ReportMerge.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "model/merge/ReportRank.h"
#include "model/util/ThreadPool.h"

namespace sl {

namespace {

// Pids of different inputs that collide move by a multiple of this: above Linux's pid_max
// (2^22), so a moved pid reads as "rank k's pid" (4242 -> 10004242) and never meets a real one.
constexpr int64_t kPidStride = 10'000'000;

// The ids one input uses in an id space (pids, GPU ordinals, metric series).
template <class Id>
struct IdSpace {
    std::set<Id> used;
    // The delta that moves `mine` clear of every id used so far (0 when none collides), then
    // marks them used. `stride`: pids move by whole strides, other ids past the largest used.
    Id place(const std::set<Id>& mine, Id stride, size_t index) {
        auto collides = [&](Id delta) {
            for (Id id : mine)
                if (used.count(static_cast<Id>(id + delta))) return true;
            return false;
        };
        Id delta = 0;
        if (collides(0)) {
            if (stride) {
                delta = static_cast<Id>(stride * static_cast<Id>(index));
                while (collides(delta)) delta = static_cast<Id>(delta + stride);
            } else {
                delta = static_cast<Id>(*used.rbegin() + 1 - *mine.begin());
            }
        }
        for (Id id : mine) used.insert(static_cast<Id>(id + delta));
        return delta;
    }
};

// Rewrites every value of an integer column in place; a uniform column stays uniform.
template <class T, class Fn>
void remapColumn(Column& c, Fn fn) {
    if (c.uniform()) {
        const size_t n = c.size();
        Column out(c.type());
        if (n) {
            const T v = static_cast<T>(fn(c.view<T>()[0]));
            for (size_t i = 0; i < n; ++i) out.push(v);
        }
        c = std::move(out);
        return;
    }
    for (T& v : c.values<T>()) v = static_cast<T>(fn(v));
}

// What one input's ids and times become.
struct PartMap {
    int64_t shift = 0;
    int64_t pidDelta = 0;
    int32_t deviceDelta = 0;
    uint32_t seriesDelta = 0;
    uint32_t launchDelta = 0;
    uint32_t stackDelta = 0;
    std::vector<uint32_t> strings;  // input string id -> merged id; empty: identity
    int64_t pid(int64_t p) const { return p == 0 ? 0 : p + pidDelta; }
    int32_t device(int32_t d) const { return d < 0 ? d : d + deviceDelta; }
    int64_t time(int64_t t) const { return t == kUnknownTime ? t : t + shift; }
    uint32_t str(uint32_t id) const {
        return strings.empty() || id >= strings.size() ? id : strings[id];
    }
};

struct Alignment {
    int64_t mono = 0;  // the event clock at the session start (or the first event)
    int64_t utc = 0;   // the wall clock then
};

Alignment alignmentOf(const Report& r, int64_t fallbackUtc) {
    Alignment a;
    a.mono = r.session.startMonotonicNs != kUnknownTime ? r.session.startMonotonicNs : r.tMin();
    // A report without a wall-clock start (some imports) is taken to have started with the first.
    a.utc = r.session.startUtcNs != 0 ? r.session.startUtcNs : fallbackUtc;
    return a;
}

std::set<int64_t> pidsOf(const Report& r) {
    std::set<int64_t> s;
    for (const Process& p : r.processes) s.insert(p.pid);
    for (const Thread& t : r.threads) s.insert(t.pid);
    for (const Track& t : r.tracks) s.insert(t.key.pid);
    for (const CudaContext& c : r.contexts) s.insert(c.pid);
    for (const MetricSeries& m : r.metricSeries) s.insert(m.pid);
    s.erase(0);  // system-wide: shared by every input
    return s;
}

std::set<int32_t> devicesOf(const Report& r) {
    std::set<int32_t> s;
    for (const Gpu& g : r.gpus) s.insert(g.deviceId);
    for (const Track& t : r.tracks) s.insert(t.key.device);
    for (const CudaContext& c : r.contexts) s.insert(c.deviceId);
    for (const MetricSeries& m : r.metricSeries) s.insert(m.deviceId);
    s.erase(s.begin(), s.lower_bound(0));  // -1: no device
    return s;
}

std::set<uint32_t> seriesOf(const Report& r) {
    std::set<uint32_t> s;
    for (const MetricSeries& m : r.metricSeries) s.insert(m.seriesId);
    for (const Track& t : r.tracks)
        if (t.key.kind == EventKind::Metric) s.insert(t.key.series);
    return s;
}

// Step 1: each input's rank; two inputs of one rank are refused (the timeline would mix them).
// Returns how many ranks there are in all.
Result<int> assignRanks(const std::vector<MergeInput>& inputs, std::vector<MergedPart>& parts) {
    std::map<int, std::string> owner;
    for (size_t i = 0; i < inputs.size(); ++i) {
        ReportRank rr = rankOfReport(*inputs[i].report, inputs[i].path);
        MergedPart& p = parts[i];
        p.path = inputs[i].path;
        p.offsetNs = inputs[i].offsetNs;
        p.rank = rr.rank >= 0 ? rr.rank : static_cast<int>(i);
        p.rankSource = rr.rank >= 0 ? rr.source : "place";
        std::set<int> ranks;
        if (rr.several) {
            for (const Process& pr : inputs[i].report->processes)
                if (pr.mpiRank >= 0) ranks.insert(pr.mpiRank);
            p.rank = -1;  // several: its processes keep theirs
        } else {
            ranks.insert(p.rank);
        }
        for (int r : ranks) {
            auto [it, fresh] = owner.emplace(r, p.path);
            if (!fresh)
                return makeError("rank " + std::to_string(r) + " is both " + it->second + " and " +
                                 p.path + " (" + p.rankSource + "): give each rank once");
        }
    }
    return static_cast<int>(owner.size());
}

// Step 2: where each input's times go: onto the first input's clock through the wall clock.
Status alignTimes(const std::vector<MergeInput>& inputs, std::vector<MergedPart>& parts,
                  std::vector<PartMap>& maps) {
    const Alignment ref = alignmentOf(*inputs[0].report, 0);
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Report& r = *inputs[i].report;
        const Alignment a = alignmentOf(r, ref.utc);
        // Any of these sums may overflow on a corrupt or foreign clock: checked, not wrapped.
        int64_t monoDelta = 0, utcDelta = 0, align = 0, shift = 0, lo = 0, hi = 0;
        const bool overflow = __builtin_sub_overflow(ref.mono, a.mono, &monoDelta) ||
                              __builtin_sub_overflow(a.utc, ref.utc, &utcDelta) ||
                              __builtin_add_overflow(monoDelta, utcDelta, &align) ||
                              __builtin_add_overflow(align, inputs[i].offsetNs, &shift) ||
                              __builtin_add_overflow(std::min(r.tMin(), a.mono), shift, &lo) ||
                              __builtin_add_overflow(std::max(r.tMax(), a.mono), shift, &hi);
        if (overflow || lo < -kMaxEventTime || hi > kMaxEventTime)
            return makeError(inputs[i].path + ": its clock is too far from " + inputs[0].path +
                             "'s to share one timeline (session starts " + std::to_string(a.utc) +
                             " and " + std::to_string(ref.utc) + " ns after the epoch)");
        parts[i].alignNs = align;
        maps[i].shift = shift;
    }
    return {};
}

// Step 3: ids that collide across inputs move apart; tables are appended.
void placeIds(std::vector<MergeInput>& inputs, std::vector<MergedPart>& parts,
              std::vector<PartMap>& maps, Report& out) {
    IdSpace<int64_t> pids;
    IdSpace<int32_t> devices;
    IdSpace<uint32_t> series;
    for (size_t i = 0; i < inputs.size(); ++i) {
        Report& r = *inputs[i].report;
        PartMap& m = maps[i];
        if (auto s = pidsOf(r); !s.empty()) m.pidDelta = pids.place(s, kPidStride, i);
        if (auto s = devicesOf(r); !s.empty()) m.deviceDelta = devices.place(s, 0, i);
        if (auto s = seriesOf(r); !s.empty()) m.seriesDelta = series.place(s, 0, i);
        parts[i].pidDelta = m.pidDelta;
        parts[i].deviceDelta = m.deviceDelta;
        if (i == 0) {
            out.strings = std::move(r.strings);  // the first input's ids stay as they are
        } else {
            m.strings.resize(r.strings.size());
            for (uint32_t id = 0; id < r.strings.size(); ++id)
                m.strings[id] = out.strings.intern(r.strings.get(id));
        }
        m.launchDelta = static_cast<uint32_t>(out.kernelLaunches.size());
        for (KernelLaunchInfo k : r.kernelLaunches) {
            k.mangledName = m.str(k.mangledName);
            k.shortName = m.str(k.shortName);
            out.kernelLaunches.push_back(k);
        }
        const auto frameDelta = static_cast<uint32_t>(out.stackFrames.size());
        for (StackFrame f : r.stackFrames) {
            f.function = m.str(f.function);
            f.module = m.str(f.module);
            out.stackFrames.push_back(f);
        }
        m.stackDelta = static_cast<uint32_t>(out.callStacks.size());
        for (CallStack& s : r.callStacks) {
            for (uint32_t& f : s.frames) f += frameDelta;
            out.callStacks.push_back(std::move(s));
        }
    }
}

// Step 4: the metadata entities, with their ids and times moved.
void mergeEntities(Report& r, const PartMap& m, const MergedPart& part, int worldSize,
                   Report& out) {
    for (Process p : r.processes) {
        const bool own = r.findProcess(p.parentPid) != nullptr;
        p.pid = m.pid(p.pid);
        if (own) p.parentPid = m.pid(p.parentPid);
        p.start = m.time(p.start);
        p.end = m.time(p.end);
        if (part.rank >= 0) {
            p.mpiRank = part.rank;  // the viewer's rank groups and every per-rank view read it
            if (p.mpiWorldSize == 0) p.mpiWorldSize = worldSize;
        }
        out.processes.push_back(std::move(p));
    }
    for (ProcessReparent x : r.reparents) {
        x.pid = m.pid(x.pid);
        x.fromPid = m.pid(x.fromPid);
        x.toPid = m.pid(x.toPid);
        x.time = m.time(x.time);
        out.reparents.push_back(x);
    }
    for (Thread t : r.threads) {
        t.pid = m.pid(t.pid);
        t.start = m.time(t.start);
        t.end = m.time(t.end);
        out.threads.push_back(std::move(t));
    }
    for (Gpu g : r.gpus) {
        g.deviceId = m.device(g.deviceId);
        out.gpus.push_back(std::move(g));
    }
    for (CudaContext c : r.contexts) {
        c.pid = m.pid(c.pid);
        c.deviceId = m.device(c.deviceId);
        out.contexts.push_back(std::move(c));
    }
    for (CudaStream s : r.streams) {
        s.pid = m.pid(s.pid);
        s.deviceId = m.device(s.deviceId);
        out.streams.push_back(std::move(s));
    }
    for (NvtxDomain d : r.nvtxDomains) {
        d.pid = m.pid(d.pid);
        out.nvtxDomains.push_back(std::move(d));
    }
    for (NvtxCategory c : r.nvtxCategories) {
        c.pid = m.pid(c.pid);
        out.nvtxCategories.push_back(std::move(c));
    }
    for (MetricSeries s : r.metricSeries) {
        s.seriesId += m.seriesDelta;
        s.deviceId = m.device(s.deviceId);
        s.pid = m.pid(s.pid);
        out.metricSeries.push_back(std::move(s));
    }
    for (EventBacktrace b : r.backtraces) {
        b.pid = m.pid(b.pid);
        b.start = m.time(b.start);
        b.stack += m.stackDelta;
        out.backtraces.push_back(b);
    }
    for (Diagnostic d : r.diagnostics) {
        if (d.pid == 0)
            d.reason = partTitle(part) + ": " + d.reason;  // a session counter of one input
        d.pid = m.pid(d.pid);
        out.diagnostics.push_back(std::move(d));
    }
    for (ProgramOutput o : r.programOutput) {
        o.pid = m.pid(o.pid);
        o.time = m.time(o.time);
        out.programOutput.push_back(std::move(o));
    }
}

// Step 5: one track's events, in place: times shifted, ids remapped. The level of detail
// indexes lanes by time, so a shifted track rebuilds it.
void moveTrack(Track& t, const PartMap& m) {
    t.key.pid = m.pid(t.key.pid);
    t.key.device = m.device(t.key.device);
    if (t.key.kind == EventKind::Metric) t.key.series += m.seriesDelta;
    if (!m.strings.empty())
        for (uint32_t& n : t.name) n = m.str(n);
    if (t.key.kind == EventKind::Kernel && m.launchDelta)
        remapColumn<uint32_t>(t.cols[cols::Kernel::Launch],
                              [&](uint32_t v) { return v + m.launchDelta; });
    if (t.key.kind == EventKind::CpuSample && m.stackDelta)
        remapColumn<uint32_t>(t.cols[cols::CpuSample::Stack],
                              [&](uint32_t v) { return v + m.stackDelta; });
    if (t.key.kind == EventKind::Memcpy && m.deviceDelta) {
        auto dev = [&](int16_t d) { return static_cast<int16_t>(m.device(d)); };
        remapColumn<int16_t>(t.cols[cols::Memcpy::SrcDevice], dev);
        remapColumn<int16_t>(t.cols[cols::Memcpy::DstDevice], dev);
    }
    if (m.shift == 0 || t.empty()) return;
    for (int64_t& s : t.start) s += m.shift;
    for (int64_t& e : t.end) e += m.shift;
    t.tMin += m.shift;
    t.tMax += m.shift;
    t.lod.build(t);
}

// Step 6: the merged session: the first input's, starting at the earliest input's start.
void mergeSession(const std::vector<MergeInput>& inputs, const std::vector<PartMap>& maps,
                  Report& out) {
    const Report& first = *inputs[0].report;
    out.session = first.session;
    out.session.source = "merged";
    int64_t start = INT64_MAX, end = INT64_MIN;
    std::vector<std::string> hosts;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Report& r = *inputs[i].report;
        const Alignment a = alignmentOf(r, first.session.startUtcNs);
        start = std::min(start, a.mono + maps[i].shift);
        end = std::max(end, a.mono + maps[i].shift + r.session.durationNs);
        if (!r.session.hostName.empty() &&
            std::find(hosts.begin(), hosts.end(), r.session.hostName) == hosts.end())
            hosts.push_back(r.session.hostName);
        if (r.unloadedTMin <= r.unloadedTMax) {
            out.unloadedTMin = std::min(out.unloadedTMin, r.unloadedTMin + maps[i].shift);
            out.unloadedTMax = std::max(out.unloadedTMax, r.unloadedTMax + maps[i].shift);
        }
    }
    const Alignment ref = alignmentOf(first, 0);
    out.session.startMonotonicNs = start;
    out.session.startUtcNs = ref.utc == 0 ? 0 : ref.utc + (start - ref.mono);
    out.session.durationNs = end - start;
    std::string joined;
    for (const std::string& h : hosts) joined += (joined.empty() ? "" : ", ") + h;
    out.session.hostName = joined;
}

}  // namespace

std::string partTitle(const MergedPart& part) {
    if (part.rank >= 0) return "Rank " + std::to_string(part.rank);
    return std::filesystem::path(part.path).filename().string();
}

Result<MergedReport> mergeReports(std::vector<MergeInput> inputs) {
    if (inputs.empty()) return makeError("no reports to merge");
    for (const MergeInput& in : inputs)
        if (!in.report) return makeError(in.path + ": not opened");
    MergedReport result;
    result.parts.resize(inputs.size());
    std::vector<PartMap> maps(inputs.size());
    auto worldSize = assignRanks(inputs, result.parts);
    if (!worldSize) return makeError(worldSize.error());
    if (Status s = alignTimes(inputs, result.parts, maps); !s) return makeError(s.error());
    auto out = std::make_shared<Report>();
    mergeSession(inputs, maps, *out);
    placeIds(inputs, result.parts, maps, *out);
    for (size_t i = 0; i < inputs.size(); ++i)
        mergeEntities(*inputs[i].report, maps[i], result.parts[i], *worldSize, *out);
    // Tracks are moved (their columns change owner, nothing is copied), then shifted and
    // remapped in place on every core.
    size_t total = 0;
    for (const MergeInput& in : inputs) total += in.report->tracks.size();
    out->tracks.reserve(total);
    std::vector<const PartMap*> mapOf;
    mapOf.reserve(total);
    for (size_t i = 0; i < inputs.size(); ++i) {
        for (Track& t : inputs[i].report->tracks) {
            result.parts[i].events += t.size();
            out->tracks.push_back(std::move(t));
            mapOf.push_back(&maps[i]);
        }
        inputs[i].report->tracks.clear();
    }
    // On every core: the per-track work of 64 M events is not small.
    sl::parallelFor(out->tracks.size(), [&](size_t k) { moveTrack(out->tracks[k], *mapOf[k]); });
    std::sort(out->backtraces.begin(), out->backtraces.end(),
              [](const EventBacktrace& a, const EventBacktrace& b) { return a.key() < b.key(); });
    result.report = std::move(out);
    return result;
}

}  // namespace sl
