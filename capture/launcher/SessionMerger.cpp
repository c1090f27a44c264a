#include "capture/launcher/SessionMerger.h"

#include <dirent.h>

#include <algorithm>
#include <cstring>

namespace sl::capture {

struct SessionMerger::StreamCtx {
    int64_t pid = 0;
    std::vector<std::string_view> text;  // stream-local string id -> text
    std::vector<uint32_t> ids;           // stream-local string id -> report id (UINT32_MAX: not yet)
    std::unordered_map<int64_t, uint32_t> launches;  // stream-local launch id -> report launch id
    std::map<std::pair<int64_t, uint32_t>, std::vector<OpenPush>> stacks;  // (tid, domain)
    std::unordered_map<std::string_view, uint32_t> inlineIds;  // NVTX texts seen in this stream
    std::map<std::pair<int64_t, uint32_t>, size_t> rangeCounts;  // pushes and starts per (thread, domain)
    std::string_view lastText;  // the last inline text and its id: most pushes repeat the name
    uint32_t lastTextId = 0;
    // The stack of the last (thread, domain) used: consecutive records are of the same thread.
    std::pair<int64_t, uint32_t> lastStackKey{INT64_MIN, 0};
    std::vector<OpenPush>* lastStack = nullptr;
    std::vector<OpenPush>& stack(int64_t tid, uint32_t domain) {
        std::pair<int64_t, uint32_t> key{tid, domain};
        if (lastStack && key == lastStackKey) return *lastStack;
        lastStackKey = key;
        lastStack = &stacks[key];
        return *lastStack;
    }
    int64_t lastTime = kUnknownTime;
    bool sawEnd = false, sawExec = false;
    int64_t endTime = kUnknownTime;
};

namespace {


const char* dropName(int64_t kind) {
    switch (static_cast<DropKind>(kind)) {
    case DropKind::NvtxRange: return "nvtx.ranges_dropped";
    case DropKind::NvtxMark: return "nvtx.marks_dropped";
    case DropKind::NvtxRangeEnd: return "nvtx.range_ends_dropped";
    case DropKind::OsRuntime: return "osrt.calls_dropped";
    case DropKind::Event: return "events.dropped";
    case DropKind::Meta: return "metadata.dropped";
    }
    return "records.dropped";
}

}  // namespace

SessionMerger::SessionMerger(ReportBuilder& builder, MergeWindow window) : m_b(builder), m_window(window) {}

std::vector<std::string> SessionMerger::listStreams(const std::string& dir) {
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            std::string n = e->d_name;
            if (n.size() > 6 && n.compare(n.size() - 6, 6, ".slraw") == 0) out.push_back(dir + "/" + n);
        }
        closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

SessionMerger::ProcInfo& SessionMerger::proc(int64_t pid) {
    auto [it, inserted] = m_procs.try_emplace(pid);
    if (inserted) it->second.p.pid = pid;
    return it->second;
}

Thread& SessionMerger::thread(int64_t pid, int64_t tid) {
    auto [it, inserted] = m_threads.try_emplace({pid, tid});
    if (inserted) {
        it->second.pid = pid;
        it->second.tid = tid;
    }
    return it->second;
}

void SessionMerger::noteTime(int64_t pid, int64_t t) {
    ProcInfo& p = proc(pid);
    if (p.lastEventTime == kUnknownTime || t > p.lastEventTime) p.lastEventTime = t;
}

Status SessionMerger::addStream(const std::string& path) {
    auto opened = RawStream::open(path);
    if (!opened) return Error{opened.error()};
    RawStream& rs = opened.value();
    StreamCtx s;
    s.pid = rs.header().pid;
    m_stats.streams += 1;
    m_stats.bytes += rs.fileBytes();
    ProcInfo& pi = proc(s.pid);
    pi.streams += 1;
    if (!rs.damage().empty())
        m_damage.push_back(path.substr(path.find_last_of('/') + 1) + ": " + rs.damage() + " (" +
                           std::to_string(rs.damagedBytes()) + " bytes unreadable)");

    // Blocks of one thread in sequence order (the writer may interleave threads).
    std::vector<const RawBlock*> order;
    order.reserve(rs.blocks().size());
    for (const auto& b : rs.blocks()) order.push_back(&b);
    std::stable_sort(order.begin(), order.end(), [](const RawBlock* a, const RawBlock* b) {
        return a->tid != b->tid ? a->tid < b->tid : a->seq < b->seq;
    });
    // Step 1: strings and metadata used across threads.
    for (const RawBlock* b : order) firstPass(s, *b);
    s.ids.assign(s.text.size(), UINT32_MAX);
    // Exact capacities for the NVTX range tracks: no reallocation while appending.
    for (const auto& [key, n] : s.rangeCounts) {
        Track& t = ownTrack(TrackKey::forThread(EventKind::NvtxRange, s.pid, key.first, key.second));
        size_t want = t.size() + n;
        t.start.reserve(want);
        t.end.reserve(want);
        t.name.reserve(want);
        for (auto& c : t.cols) c.reserve(want);
    }
    // Step 2: events, per thread in order; count sequence gaps (lost blocks).
    int64_t curTid = INT64_MIN;
    uint64_t expect = 0;
    for (const RawBlock* b : order) {
        if (b->tid != curTid) {
            curTid = b->tid;
            expect = 0;
        }
        if (b->seq != UINT64_MAX) {
            if (b->seq > expect) m_lostBlocks += static_cast<int64_t>(b->seq - expect);
            expect = b->seq + 1;
        }
        secondPass(s, *b);
    }
    // Ranges still open when this process image ended are closed at its last known time.
    int64_t end = s.endTime != kUnknownTime ? s.endTime : s.lastTime;
    for (auto& [key, stack] : s.stacks) {
        while (!stack.empty()) {
            if (m_window.contains(stack.back().start)) ++m_unterminated;  // only those in the report
            closePush(s, key.first, key.second, end);
        }
    }
    if (s.sawEnd) pi.endedCleanly = pi.endedCleanly || !s.sawExec;
    if (!s.sawEnd) {
        pi.incompleteStreams += 1;
        m_incomplete.emplace_back(s.pid, path.substr(path.find_last_of('/') + 1));
    }
    if (s.lastTime != kUnknownTime) noteTime(s.pid, s.lastTime);
    return {};
}

void SessionMerger::firstPass(StreamCtx& s, const RawBlock& b) {
    forEachRecord(b, [&](const RecordHeader& h, const uint8_t* rec) {
        if (h.type == RecordType::NvtxPush || h.type == RecordType::NvtxStart) {
            ++s.rangeCounts[{b.tid, h.aux}];
        } else if (h.type == RecordType::String) {
            if (h.aux >= s.text.size()) s.text.resize(h.aux + 1);
            s.text[h.aux] = stringText(rec);
        } else if (h.type == RecordType::Meta) {
            MetaView m;
            if (decodeMeta(rec, &m)) onMeta(s, b.tid, m);
        }
    });
}

void SessionMerger::secondPass(StreamCtx& s, const RawBlock& b) {
    const int64_t tid = b.tid;
    const int64_t pid = s.pid;
    bool ok = forEachRecord(b, [&](const RecordHeader& h, const uint8_t* rec) {
        ++m_stats.records;
        switch (h.type) {
        case RecordType::NvtxPush: {
            NvtxFields f;
            if (!decodeNvtx(rec, &f)) break;
            s.lastTime = std::max(s.lastTime, f.time);
            s.stack(tid, h.aux).push_back({f.time, nvtxMessage(s, h, f), f.category, f.color,
                                              static_cast<uint8_t>(h.flags & kNvtxPayloadMask), f.payload});
            break;
        }
        case RecordType::NvtxPop: {
            const auto* r = reinterpret_cast<const NvtxEndRecord*>(rec);
            s.lastTime = std::max(s.lastTime, r->time);
            if (s.stack(tid, h.aux).empty()) ++m_orphanPops;
            else closePush(s, tid, h.aux, r->time);
            break;
        }
        case RecordType::NvtxStart: {
            NvtxFields f;
            if (!decodeNvtx(rec, &f)) break;
            s.lastTime = std::max(s.lastTime, f.time);
            m_starts[static_cast<uint64_t>(pid) << 40 ^ f.rangeId] = {
                pid, tid, h.aux,
                {f.time, nvtxMessage(s, h, f), f.category, f.color, static_cast<uint8_t>(h.flags & kNvtxPayloadMask),
                 f.payload}};
            break;
        }
        case RecordType::NvtxEnd: {
            const auto* r = reinterpret_cast<const NvtxEndRecord*>(rec);
            s.lastTime = std::max(s.lastTime, r->time);
            m_ends[static_cast<uint64_t>(pid) << 40 ^ r->rangeId] = {r->time, tid};
            break;
        }
        case RecordType::NvtxMark: {
            NvtxFields f;
            if (!decodeNvtx(rec, &f)) break;
            s.lastTime = std::max(s.lastTime, f.time);
            if (!m_window.contains(f.time)) break;
            NvtxMarkEvent e;
            e.pid = pid;
            e.tid = tid;
            e.domain = h.aux;
            e.time = f.time;
            e.message = nvtxMessage(s, h, f);
            e.category = f.category;
            e.color = f.color;
            e.payloadType = static_cast<PayloadType>(h.flags & kNvtxPayloadMask);
            e.payload = f.payload;
            addMark(e);
            break;
        }
        case RecordType::Event: onEvent(s, rec); break;
        case RecordType::Meta: {
            MetaView m;
            if (decodeMeta(rec, &m)) {
                if (m.kind == MetaKind::ProcessEnd) {
                    s.sawEnd = true;
                    s.endTime = m.i(0);
                    if (m.i(3) == static_cast<int64_t>(ExitHow::Exec)) s.sawExec = true;
                } else if (m.kind == MetaKind::Drops) {
                    dropDiagnostic(pid, m.i(0), m.i(1), m.i(2));
                }
            }
            break;
        }
        default: break;  // String (first pass) and record types of newer writers
        }
    });
    if (!ok) m_damage.push_back("malformed record in a block of thread " + std::to_string(tid) + " at byte " +
                                std::to_string(b.fileOffset));
    // The final flush writes the ProcessEnd block with tid 0; exec leaves no ProcessEnd.
}

uint32_t SessionMerger::nvtxMessage(StreamCtx& s, const RecordHeader& h, const NvtxFields& f) {
    if (h.flags & kNvtxRegistered) {
        uint32_t local = f.message;
        if (local >= s.ids.size()) return 0;
        if (s.ids[local] == UINT32_MAX) s.ids[local] = m_b.intern(s.text[local]);
        return s.ids[local];
    }
    if (f.text.size() == s.lastText.size() && std::memcmp(f.text.data(), s.lastText.data(), f.text.size()) == 0)
        return s.lastTextId;
    auto [it, inserted] = s.inlineIds.try_emplace(f.text, 0);
    if (inserted) it->second = m_b.intern(f.text);
    s.lastText = f.text;
    s.lastTextId = it->second;
    return it->second;
}

void SessionMerger::closePush(StreamCtx& s, int64_t tid, uint32_t domain, int64_t end) {
    auto& stack = s.stack(tid, domain);
    OpenPush p = stack.back();
    stack.pop_back();
    if (!m_window.contains(p.start)) return;
    NvtxRangeEvent e;
    e.pid = s.pid;
    e.tid = tid;
    e.domain = domain;
    e.start = p.start;
    e.end = std::max(end, p.start);
    e.message = p.message;
    e.category = p.category;
    e.color = p.color;
    e.payloadType = static_cast<PayloadType>(p.payloadType);
    e.payload = p.payload;
    e.rangeType = RangeType::PushPop;
    addRange(e);
}

Track& SessionMerger::ownTrack(const TrackKey& key) {
    if (m_lastOwn != SIZE_MAX && key == m_lastOwnKey) return m_own[m_lastOwn];
    auto [it, inserted] = m_ownIndex.try_emplace(key, m_own.size());
    if (inserted) m_own.emplace_back(key);
    m_lastOwnKey = key;
    m_lastOwn = it->second;
    return m_own[it->second];
}

// NVTX events are the bulk of most captures: they are appended straight into typed columns
// (the generic builder path costs about three times more per event).
void SessionMerger::addRange(const NvtxRangeEvent& e) {
    Track& t = ownTrack(TrackKey::forThread(EventKind::NvtxRange, e.pid, e.tid, e.domain));
    t.start.push_back(e.start);
    t.end.push_back(std::max(e.end, e.start));
    t.name.push_back(e.message);
    t.cols[cols::Nvtx::Category].get<uint32_t>().push_back(e.category);
    t.cols[cols::Nvtx::Color].get<uint32_t>().push_back(e.color);
    t.cols[cols::Nvtx::PayloadType].get<uint8_t>().push_back(static_cast<uint8_t>(e.payloadType));
    t.cols[cols::Nvtx::Payload].get<uint64_t>().push_back(e.payload);
    t.cols[cols::Nvtx::RangeType].get<uint8_t>().push_back(static_cast<uint8_t>(e.rangeType));
    t.cols[cols::Nvtx::EndTid].get<int64_t>().push_back(e.endTid);
    ++m_stats.events;
}

void SessionMerger::addMark(const NvtxMarkEvent& e) {
    Track& t = ownTrack(TrackKey::forThread(EventKind::NvtxMark, e.pid, e.tid, e.domain));
    t.start.push_back(e.time);
    t.name.push_back(e.message);
    t.cols[cols::Nvtx::Category].get<uint32_t>().push_back(e.category);
    t.cols[cols::Nvtx::Color].get<uint32_t>().push_back(e.color);
    t.cols[cols::Nvtx::PayloadType].get<uint8_t>().push_back(static_cast<uint8_t>(e.payloadType));
    t.cols[cols::Nvtx::Payload].get<uint64_t>().push_back(e.payload);
    ++m_stats.events;
}

void SessionMerger::onEvent(StreamCtx& s, const uint8_t* rec) {
    const auto* e = reinterpret_cast<const EventRecord*>(rec);
    const KindSchema* schema = findSchema(e->kind);
    if (!schema) return;  // a kind this build does not know
    s.lastTime = std::max(s.lastTime, e->end);
    if (!m_window.contains(e->start)) return;
    int64_t cols[24] = {};
    int n = std::min<int>(e->columnCount, static_cast<int>(schema->columns.size()));
    std::memcpy(cols, rec + sizeof(EventRecord), 8 * static_cast<size_t>(n));
    if (static_cast<EventKind>(e->kind) == EventKind::Kernel) {
        auto it = s.launches.find(cols[cols::Kernel::Launch]);
        cols[cols::Kernel::Launch] = it != s.launches.end() ? it->second : 0;
    }
    uint32_t name = 0;
    if (e->name && e->name < s.ids.size()) {
        if (s.ids[e->name] == UINT32_MAX) s.ids[e->name] = m_b.intern(s.text[e->name]);
        name = s.ids[e->name];
    }
    TrackKey key;
    auto kind = static_cast<EventKind>(e->kind);
    switch (schema->owner) {
    case OwnerKind::Thread: key = TrackKey::forThread(kind, s.pid, e->tid, e->domain); break;
    case OwnerKind::Stream: key = TrackKey::forStream(kind, s.pid, e->device, e->context, e->stream); break;
    case OwnerKind::ProcessDevice: key = TrackKey::forProcessDevice(kind, s.pid, e->device); break;
    case OwnerKind::Series: key = TrackKey::forMetric(e->stream); break;
    }
    m_b.addRaw(key, e->start, schema->hasEnd ? e->end : e->start, name, cols);
    ++m_stats.events;
}

void SessionMerger::onMeta(StreamCtx& s, int64_t blockTid, const MetaView& m) {
    const int64_t pid = s.pid;
    switch (m.kind) {
    case MetaKind::ProcessStart: {
        ProcInfo& p = proc(pid);
        int64_t t = m.i(2);
        if (!p.announced || p.p.start == kUnknownTime || t >= p.p.start) {
            // The latest image (after exec) names the process.
            p.p.name = std::string(m.s(0));
            p.p.commandLine = std::string(m.s(1));
        }
        if (!p.announced || p.p.parentPid == 0) p.p.parentPid = m.i(1);
        if (p.p.start == kUnknownTime || t < p.p.start) p.p.start = t;
        p.announced = true;
        break;
    }
    case MetaKind::ProcessEnd: {
        ProcInfo& p = proc(pid);
        if (m.i(3) == static_cast<int64_t>(ExitHow::Exec)) break;
        if (!p.reaped) {
            p.p.end = m.i(0);
            p.p.exitSignal = static_cast<int32_t>(m.i(2));
            if (m.i(1) >= 0) p.p.exitCode = static_cast<int32_t>(m.i(1));
        }
        p.lastStreamEnd = m.i(0);
        break;
    }
    case MetaKind::ChildCreated: {
        ProcInfo& c = proc(m.i(0));
        if (c.p.parentPid == 0) c.p.parentPid = pid;
        if (c.p.start == kUnknownTime || m.i(1) < c.p.start) c.p.start = m.i(1);
        if (!c.announced && c.p.name.empty()) {
            const ProcInfo& parent = proc(pid);
            c.p.name = parent.p.name;
            c.p.commandLine = parent.p.commandLine;
        }
        break;
    }
    case MetaKind::ChildReaped: processExited(m.i(0), m.i(1), static_cast<int>(m.i(2)), static_cast<int>(m.i(3))); break;
    case MetaKind::ThreadStart: {
        Thread& t = thread(pid, m.i(0));
        t.start = m.i(1);
        if (!m.s(0).empty() && !m_nameSource.count({pid, m.i(0)})) {
            t.name = std::string(m.s(0));
            m_nameSource[{pid, m.i(0)}] = {false, m.i(1)};
        }
        break;
    }
    case MetaKind::ThreadEnd: thread(pid, m.i(0)).end = m.i(1); break;
    case MetaKind::ThreadName: {
        // nvtxNameOsThread wins over OS names (as in nsys); among names of one source the latest
        // wins. Records come grouped by the thread that wrote them, so compare times.
        if (m.s(0).empty()) break;
        Thread& t = thread(pid, m.i(0));
        auto [it, fresh] = m_nameSource.try_emplace({pid, m.i(0)}, std::make_pair(false, INT64_MIN));
        bool fromNvtx = m.i(2) == 1;
        auto& [bestNvtx, bestTime] = it->second;
        if (!fresh && (bestNvtx && !fromNvtx)) break;
        if (!fresh && bestNvtx == fromNvtx && m.i(1) < bestTime) break;
        t.name = std::string(m.s(0));
        bestNvtx = fromNvtx;
        bestTime = m.i(1);
        break;
    }
    case MetaKind::DomainCreate: m_domains[{pid, static_cast<uint32_t>(m.i(0))}] = std::string(m.s(0)); break;
    case MetaKind::Category:
        m_categories[{pid, static_cast<uint32_t>(m.i(0)), static_cast<uint32_t>(m.i(1))}] = std::string(m.s(0));
        break;
    case MetaKind::ResourceName:
        m_resourceNames.push_back({pid, m.i(0), m.i(1), m.i(2), std::string(m.s(0))});
        break;
    case MetaKind::ResourceHandle:
        m_resourceHandles[{pid, m.i(0), m.i(1)}] = {m.i(2), m.i(3), m.i(4)};
        break;
    case MetaKind::Gpu: {
        Report& r = m_b.report();
        int32_t dev = static_cast<int32_t>(m.i(0));
        if (r.findGpu(dev)) break;
        Gpu g;
        g.deviceId = dev;
        g.smCount = static_cast<int32_t>(m.i(1));
        g.memoryBytes = m.i(2);
        g.computeMajor = static_cast<int32_t>(m.i(3));
        g.computeMinor = static_cast<int32_t>(m.i(4));
        g.smClockKHz = m.i(5);
        g.memoryClockKHz = m.i(6);
        g.memoryBandwidthBytesPerSec = m.i(7);
        g.name = std::string(m.s(0));
        g.uuid = std::string(m.s(1));
        g.pciBusId = std::string(m.s(2));
        r.gpus.push_back(g);
        break;
    }
    case MetaKind::Context: {
        CudaContext c;
        c.pid = pid;
        c.deviceId = static_cast<int32_t>(m.i(0));
        c.contextId = static_cast<uint32_t>(m.i(1));
        c.name = std::string(m.s(0));
        m_b.report().contexts.push_back(c);
        break;
    }
    case MetaKind::Stream: {
        CudaStream c;
        c.pid = pid;
        c.deviceId = static_cast<int32_t>(m.i(0));
        c.contextId = static_cast<uint32_t>(m.i(1));
        c.streamId = static_cast<uint32_t>(m.i(2));
        c.priority = static_cast<int32_t>(m.i(3));
        c.flags = static_cast<uint32_t>(m.i(4));
        c.isDefault = m.i(5) != 0;
        c.name = std::string(m.s(0));
        m_b.report().streams.push_back(c);
        break;
    }
    case MetaKind::KernelLaunch: {
        KernelLaunchInfo k;
        for (int i = 0; i < 3; ++i) {
            k.grid[i] = static_cast<uint32_t>(m.i(1 + i));
            k.block[i] = static_cast<uint32_t>(m.i(4 + i));
        }
        k.registersPerThread = static_cast<uint32_t>(m.i(7));
        k.staticSharedBytes = static_cast<uint32_t>(m.i(8));
        k.dynamicSharedBytes = static_cast<uint32_t>(m.i(9));
        k.localBytesPerThread = static_cast<uint32_t>(m.i(10));
        k.launchType = static_cast<LaunchType>(m.i(11));
        k.graphId = static_cast<uint32_t>(m.i(12));
        k.graphNodeId = static_cast<uint64_t>(m.i(13));
        k.mangledName = m_b.intern(m.s(0));
        k.shortName = m_b.intern(m.s(1));
        s.launches[m.i(0)] = m_b.launchId(k);
        break;
    }
    case MetaKind::Diagnostic: m_b.addDiagnostic(m.s(0), m.i(0), m.s(1), pid); break;
    default: break;  // Drops are counted in the second pass; unknown kinds are skipped
    }
    (void)blockTid;
}

void SessionMerger::dropDiagnostic(int64_t pid, int64_t tid, int64_t kind, int64_t count) {
    m_drops[{pid, kind}] += count;
    m_dropsByThread[{pid, kind}].emplace_back(tid, count);
}

void SessionMerger::processExited(int64_t pid, int64_t time, int exitCode, int signal) {
    ProcInfo& p = proc(pid);
    p.reaped = true;
    p.p.end = time;
    p.p.exitCode = exitCode;
    p.p.exitSignal = signal;
}

void SessionMerger::finish(int64_t sessionEnd) {
    Report& r = m_b.report();
    // Step 1: start/end ranges (the end may have been written by any thread).
    for (auto& [key, st] : m_starts) {
        auto it = m_ends.find(key);
        int64_t end;
        int64_t endTid = 0;
        if (it != m_ends.end()) {
            end = it->second.time;
            if (it->second.tid != st.tid) endTid = it->second.tid;
            m_ends.erase(it);
        } else {
            if (m_window.contains(st.attrs.start)) ++m_unterminated;
            const ProcInfo& p = proc(st.pid);
            end = p.p.end != kUnknownTime ? p.p.end : (p.lastEventTime != kUnknownTime ? p.lastEventTime : sessionEnd);
        }
        if (!m_window.contains(st.attrs.start)) continue;
        NvtxRangeEvent e;
        e.pid = st.pid;
        e.tid = st.tid;
        e.domain = st.domain;
        e.start = st.attrs.start;
        e.end = std::max(end, e.start);
        e.message = st.attrs.message;
        e.category = st.attrs.category;
        e.color = st.attrs.color;
        e.payloadType = static_cast<PayloadType>(st.attrs.payloadType);
        e.payload = st.attrs.payload;
        e.rangeType = RangeType::StartEnd;
        e.endTid = endTid;
        addRange(e);
    }
    m_unmatchedEnds += static_cast<int64_t>(m_ends.size());
    for (Track& t : m_own) r.tracks.push_back(std::move(t));
    m_own.clear();
    m_ownIndex.clear();
    m_lastOwn = SIZE_MAX;
    // Step 2: processes (every one that announced itself, was created or reaped).
    for (auto& [pid, pi] : m_procs) {
        if (pi.p.end == kUnknownTime && pi.lastStreamEnd != kUnknownTime) pi.p.end = pi.lastStreamEnd;
        r.processes.push_back(pi.p);
    }
    for (const auto& [pid, file] : m_incomplete) {
        const ProcInfo& p = proc(pid);
        if (p.endedCleanly) continue;
        std::string how = p.p.exitSignal ? "killed by signal " + std::to_string(p.p.exitSignal) : "ended abruptly";
        m_b.addDiagnostic("capture.stream_incomplete", 1,
                          "process " + std::to_string(pid) + " (" + p.p.name + ") " + how +
                              " before its stream " + file +
                              " was finished: events it had not yet handed to the writer are lost",
                          pid);
    }
    // Step 3: threads, including those only known from their events.
    for (const Track& t : r.tracks)
        if (schemaOf(t.key.kind).owner == OwnerKind::Thread && t.key.tid != 0) thread(t.key.pid, t.key.tid);
    for (auto& [key, t] : m_threads) {
        if (t.tid == t.pid) {
            const ProcInfo& p = proc(t.pid);
            if (t.start == kUnknownTime) t.start = p.p.start;
            if (t.end == kUnknownTime) t.end = p.p.end;
            if (t.name.empty()) t.name = p.p.name;
        }
        r.threads.push_back(t);
    }
    // NVTX names of CUDA contexts and streams, through the handles the CUDA module reported.
    for (const auto& rn : m_resourceNames) {
        auto kind = static_cast<ResourceKind>(rn.kind);
        auto it = m_resourceHandles.find({rn.pid, rn.kind, rn.handle});
        bool attached = false;
        if (it != m_resourceHandles.end()) {
            auto [device, context, stream] = it->second;
            if (kind == ResourceKind::CuContext) {
                for (auto& c : r.contexts)
                    if (c.pid == rn.pid && c.contextId == static_cast<uint32_t>(context)) c.name = rn.name, attached = true;
            } else if (kind == ResourceKind::CuStream || kind == ResourceKind::CudaStream) {
                for (auto& st : r.streams)
                    if (st.pid == rn.pid && st.contextId == static_cast<uint32_t>(context) &&
                        st.streamId == static_cast<uint32_t>(stream) && st.deviceId == static_cast<int32_t>(device))
                        st.name = rn.name, attached = true;
            }
        }
        if (!attached) ++m_unresolvedNames;
    }
    for (const auto& [key, name] : m_domains) r.nvtxDomains.push_back({key.first, key.second, name});
    for (const auto& [key, name] : m_categories)
        r.nvtxCategories.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), name});
    // Step 4: diagnostics.
    for (const auto& [key, count] : m_drops) {
        std::string reason = "records not stored because the capture buffers were full (per thread:";
        int shown = 0;
        std::map<int64_t, int64_t> perThread;
        for (auto [tid, n] : m_dropsByThread[key]) perThread[tid] += n;
        for (auto [tid, n] : perThread) {
            if (shown++ == 8) {
                reason += " ...";
                break;
            }
            reason += " " + std::to_string(tid) + ": " + std::to_string(n);
        }
        reason += "); raise SIGHTLINE_BUFFER_MB or trace less";
        m_b.addDiagnostic(dropName(key.second), count, reason, key.first);
    }
    if (m_lostBlocks)
        m_b.addDiagnostic("capture.blocks_lost", m_lostBlocks, "buffers that never reached the stream file (process killed while writing)");
    for (const auto& d : m_damage)
        m_b.addDiagnostic("capture.stream_damaged", 1, d);
    if (m_unterminated)
        m_b.addDiagnostic("nvtx.unterminated_ranges", m_unterminated,
                          "NVTX ranges never ended (no pop/end before the thread or process ended); shown ending at the process end");
    if (m_orphanPops)
        m_b.addDiagnostic("nvtx.unmatched_pops", m_orphanPops, "nvtxRangePop calls without a matching push on that thread");
    if (m_unmatchedEnds)
        m_b.addDiagnostic("nvtx.unmatched_ends", m_unmatchedEnds, "nvtxRangeEnd calls with an id no recorded start returned");
    if (m_unresolvedNames)
        m_b.addDiagnostic("nvtx.resource_names_unattached", m_unresolvedNames,
                          "NVTX names of CUDA devices, contexts, streams or events that could not be attached to a CUDA row "
                          "(no CUDA trace of that object was captured)");
}

}  // namespace sl::capture
