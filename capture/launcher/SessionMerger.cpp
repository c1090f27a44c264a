#include "capture/launcher/SessionMerger.h"

#include "capture/common/ExecCheck.h"
#include "capture/launcher/ProcTree.h"
#include "capture/launcher/SessionMergerStream.h"
#include "model/util/Format.h"
#include "model/util/ThreadPool.h"

#include <dirent.h>

#include <algorithm>
#include <map>
#include <cstring>
#include <thread>
#include <tuple>

namespace sl::capture {

namespace {

const char* dropName(int64_t kind) {
    switch (static_cast<DropKind>(kind)) {
        case DropKind::NvtxRange:
            return "nvtx.ranges_dropped";
        case DropKind::NvtxMark:
            return "nvtx.marks_dropped";
        case DropKind::NvtxRangeEnd:
            return "nvtx.range_ends_dropped";
        case DropKind::OsRuntime:
            return "osrt.calls_dropped";
        case DropKind::Event:
            return "events.dropped";
        case DropKind::Meta:
            return "metadata.dropped";
        case DropKind::TextCut:
            return "capture.texts_cut";
        case DropKind::InSignalHandler:
            return "capture.handler_records_dropped";
    }
    return "records.dropped";
}

}  // namespace

namespace {
// "a, b, c, ...": the first 8 items of a diagnostic's list, and how many there were.
struct ShortList {
    int64_t count = 0;
    std::string text;
    void add(const std::string& item) {
        if (count < 8) text += (text.empty() ? "" : ", ") + item;
        if (count == 8) text += ", ...";
        ++count;
    }
};
}  // namespace

SessionMerger::SessionMerger(ReportBuilder& builder, MergeWindow window)
    : m_b(builder), m_window(window) {}

std::vector<std::string> SessionMerger::listStreams(const std::string& dir,
                                                    const std::string& arenaDir,
                                                    const std::string& copiesDir) {
    // By name wherever they are: a pid's images (-0, -1, ...) stay in order across the
    // directories; a later directory's file replaces an earlier one's of the same name.
    std::map<std::string, std::string> named;  // file name -> path
    auto list = [&named](const std::string& from) {
        if (DIR* d = opendir(from.c_str())) {
            while (dirent* e = readdir(d)) {
                std::string n = e->d_name;
                if (n.size() > 6 && n.compare(n.size() - 6, 6, ".slraw") == 0)
                    named[n] = from + "/" + n;
            }
            closedir(d);
        }
    };
    list(dir);
    if (!arenaDir.empty() && arenaDir != dir) list(arenaDir);
    if (!copiesDir.empty()) list(copiesDir);
    std::vector<std::string> out;
    out.reserve(named.size());
    for (auto& n : named) out.push_back(std::move(n.second));
    return out;
}

int64_t SessionMerger::streamPid(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    const std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
    const size_t last = name.rfind('-');
    if (last == std::string::npos || last == 0) return 0;
    const size_t prev = name.rfind('-', last - 1);
    return prev == std::string::npos ? 0 : std::strtoll(name.c_str() + prev + 1, nullptr, 10);
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

void SessionMerger::rootProcess(int64_t pid, const std::vector<std::string>& command,
                                int64_t launcherPid, int64_t started) {
    m_rootPid = pid;
    m_launcherPid = launcherPid;
    ProcInfo& p = proc(pid);
    if (p.announced) return;
    // A root that recorded nothing (static, setuid): what the launcher knows of it.
    if (p.p.parentPid == 0) p.p.parentPid = launcherPid;
    if (p.p.start == kUnknownTime && started) p.p.start = started;
    if (command.empty()) return;
    char path[4096];
    if (!p.untraced && findExecutable(command[0].c_str(), path, sizeof path))
        p.untraced = static_cast<uint8_t>(untraceableImage(path));
    p.p.name = command[0].substr(command[0].find_last_of('/') + 1);
    p.p.commandLine.clear();
    for (const auto& a : command) p.p.commandLine += (p.p.commandLine.empty() ? "" : " ") + a;
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
    std::vector<char> needsSecond(order.size());
    for (size_t k = 0; k < order.size(); ++k) needsSecond[k] = firstPass(s, *order[k]);
    // Every stream string gets its report id now: the parallel NVTX pass only reads them.
    s.ids.assign(s.text.size(), UINT32_MAX);
    if (!s.ids.empty()) s.ids[0] = 0;  // id 0 is no string (a damaged record may name it)
    for (size_t k = 1; k < s.text.size(); ++k) s.ids[k] = m_b.intern(s.text[k]);
    // The NVTX tracks of this stream, created with exact capacities (no reallocation while
    // appending, and no insertion while workers append in parallel).
    auto reserveTrack = [&](EventKind kind, const std::pair<int64_t, uint32_t>& key, size_t n) {
        Track& t = m_own[ownTrack(TrackKey::forThread(kind, s.pid, key.first, key.second))];
        size_t want = t.size() + n;
        t.start.reserve(want);
        if (kind == EventKind::NvtxRange) t.end.reserve(want);
        t.name.reserve(want);
        for (auto& c : t.cols) c.reserve(want);
    };
    for (const auto& [key, n] : s.rangeCounts) reserveTrack(EventKind::NvtxRange, key, n);
    for (const auto& [key, n] : s.markCounts) reserveTrack(EventKind::NvtxMark, key, n);
    s.startEnds.expect(s.minStartId, s.maxStartId, s.startCount);
    // Step 2: everything but NVTX push/pop/mark, per thread in order; sequence gaps are lost
    // blocks.
    int64_t curTid = INT64_MIN;
    uint64_t expect = 0;
    uint64_t bytes = 0;
    for (size_t k = 0; k < order.size(); ++k) {
        const RawBlock* b = order[k];
        if (b->tid != curTid) {
            curTid = b->tid;
            expect = 0;
        }
        if (b->seq != UINT64_MAX) {
            ++pi.blocks;
            // A gap no process could make (2^32 blocks of a thread) is a damaged header, not
            // lost blocks.
            if (b->seq > expect && b->seq - expect <= (uint64_t{1} << 32))
                pi.lostBlocks += static_cast<int64_t>(b->seq - expect);
            else if (b->seq > expect)
                m_damage.push_back(path.substr(path.find_last_of('/') + 1) +
                                   ": a block of thread " + std::to_string(b->tid) +
                                   " has an impossible sequence number (damaged)");
            expect = b->seq + 1;
        }
        if (needsSecond[k]) secondPass(s, *b);  // blocks of only push/pop/mark go to step 3
        bytes += b->bytes;
    }
    pairStartEnd(s);
    // Step 3: NVTX push/pop/mark, threads split over workers (each thread's records stay in
    // order on one worker). Ranges still open when the image ended close at its last time.
    // Without the image's end record (killed, or still running), its last record is not its
    // end: what is still open ends with the process (finish()), whose end the launcher's reaping
    // or the kernel's exit record gives.
    const int64_t end = s.endTime != kUnknownTime           ? s.endTime
                        : s.sawEnd && !s.sawSeal ? s.lastTime
                                                  : kUnknownTime;
    pairNvtxParallel(s, order, end, bytes);
    if (s.sawEnd) pi.endedCleanly = pi.endedCleanly || !s.sawExec;
    // A process still running when the capture ended (its stream a snapshot) has no end yet:
    // capture.program_still_running says so, not an incomplete stream.
    if (!s.sawEnd && !s.stillRunning) {
        pi.incompleteStreams += 1;
        m_incomplete.push_back({s.pid, path.substr(path.find_last_of('/') + 1), s.salvaged,
                                s.recoveredBlocks, s.recoveredBytes});
    }
    if (s.lastTime != kUnknownTime) noteTime(s.pid, s.lastTime);
    if (s.badStringIds)
        m_damage.push_back(path.substr(path.find_last_of('/') + 1) + ": " +
                           std::to_string(s.badStringIds) +
                           " string records with an impossible id (damaged), left out");
    const size_t pyFrom = m_b.report().backtraces.size();
    resolvePython(s);
    resolveNative(s, pyFrom);
    if (s.pySamplesUnresolved)
        m_b.addDiagnostic("python.samples_unresolved", s.pySamplesUnresolved,
                          "Python samples or backtraces whose frames were not defined in their "
                          "stream (a damaged or cut stream), left out",
                          s.pid);
    return {};
}


// Strings, metadata and NVTX counts; also the latest NVTX time. Returns whether the block holds
// records other than NVTX push/pop/mark (those need the second pass).
bool SessionMerger::firstPass(StreamCtx& s, const RawBlock& b) {
    bool other = false;
    bool ok = forEachRecord(b, [&](const RecordHeader& h, const uint8_t* rec) {
        switch (h.type) {
            case RecordType::NvtxPush:
            case RecordType::NvtxPop:
            case RecordType::NvtxMark: {
                if (h.type == RecordType::NvtxPush) ++s.rangeCounts[{b.tid, h.aux}];
                if (h.type == RecordType::NvtxMark) ++s.markCounts[{b.tid, h.aux}];
                int64_t t;  // all three keep their time at byte 8
                std::memcpy(&t, rec + 8, 8);
                s.lastTime = std::max(s.lastTime, t);
                return;
            }
            case RecordType::NvtxStart: {
                ++s.rangeCounts[{b.tid, h.aux}];
                NvtxFields f;
                if (decodeNvtx(rec, &f)) {
                    s.minStartId = std::min(s.minStartId, f.rangeId);
                    s.maxStartId = std::max(s.maxStartId, f.rangeId);
                    ++s.startCount;
                }
                break;
            }
            case RecordType::String:
                // Ids are given in order from 1: one far past those seen is damage, and must
                // not size the table (a damaged id of 2^32 would take 64 GiB).
                if (h.aux >= s.text.size() + kMaxStringIdGap) {
                    ++s.badStringIds;
                    break;
                }
                if (h.aux >= s.text.size()) s.text.resize(h.aux + 1);
                s.text[h.aux] = stringText(rec);
                break;
            case RecordType::Meta: {
                MetaView m;
                if (decodeMeta(rec, &m)) onMeta(s, b.tid, m);
                break;
            }
            default:
                break;
        }
        other = true;
    });
    releasePages(b);
    return other || !ok;
}

void SessionMerger::secondPass(StreamCtx& s, const RawBlock& b) {
    const int64_t tid = b.tid;
    const int64_t pid = s.pid;
    bool ok = forEachRecord(b, [&](const RecordHeader& h, const uint8_t* rec) {
        switch (h.type) {
            case RecordType::NvtxPush:
            case RecordType::NvtxPop:
            case RecordType::NvtxMark:
                break;  // paired in step 3 (their times were taken in the first pass)
            case RecordType::NvtxStart: {
                NvtxFields f;
                if (!decodeNvtx(rec, &f)) break;
                s.lastTime = std::max(s.lastTime, f.time);
                uint64_t ref = 0;
                const bool outside = !m_window.contains(f.time);
                if (!outside) {
                    NvtxRangeEvent e;
                    e.pid = pid;
                    e.tid = tid;
                    e.domain = h.aux;
                    e.start = e.end = f.time;
                    e.message = sequentialMessage(s, h, f);
                    e.category = f.category;
                    e.color = f.color;
                    e.payloadType = static_cast<PayloadType>(h.flags & kNvtxPayloadMask);
                    e.payload = f.payload;
                    e.rangeType = RangeType::StartEnd;
                    const auto [track, row] = addRange(e);
                    ref = static_cast<uint64_t>(track) << 32 | row;
                }
                s.startEnds.started(f.rangeId, ref, outside);
                break;
            }
            case RecordType::NvtxEnd: {
                const auto* r = reinterpret_cast<const NvtxEndRecord*>(rec);
                s.lastTime = std::max(s.lastTime, r->time);
                if (!endRange(s, r->rangeId, r->time, tid))
                    s.earlyEnds.push_back({r->rangeId, r->time, tid});
                break;
            }
            case RecordType::Event:
                onEvent(s, rec);
                break;
            case RecordType::Meta: {
                MetaView m;
                if (decodeMeta(rec, &m)) {
                    if (m.kind == MetaKind::ProcessEnd) {
                        s.sawEnd = true;
                        if (m.i(3) == static_cast<int64_t>(ExitHow::Sealed))
                            s.sawSeal = true;  // its ranges still open end with the process
                        else
                            s.endTime = m.i(0);
                        if (m.i(3) == static_cast<int64_t>(ExitHow::Exec)) s.sawExec = true;
                    } else if (m.kind == MetaKind::Drops) {
                        dropDiagnostic(pid, m.i(0), m.i(1), m.i(2));
                    } else if (m.kind == MetaKind::Recovered) {
                        s.salvaged = true;
                        s.recoveredBlocks += m.i(0);
                        s.recoveredBytes += m.i(1);
                        s.stillRunning = s.stillRunning || m.i(2) == 1;
                    }
                }
                break;
            }
            default:
                break;  // String (first pass) and record types of newer writers
        }
    });
    releasePages(b);
    if (!ok)
        m_damage.push_back("malformed record in a block of thread " + std::to_string(tid) +
                           " at byte " + std::to_string(b.fileOffset));
    // The final flush writes the ProcessEnd block with tid 0; exec leaves no ProcessEnd.
}

// One worker of the NVTX pass: its threads' push stacks, the inline texts it met (local ids,
// made report ids after the join) and the tracks it appends to (created beforehand).
struct SessionMerger::NvtxWorker {
    static constexpr uint32_t kLocal = 0x80000000u;  // marks a worker-local text id in `name`
    std::map<std::pair<int64_t, uint32_t>, std::vector<OpenPush>> stacks;
    std::unordered_map<std::string_view, uint32_t> texts;
    std::vector<std::string_view> localTexts;
    std::string_view lastText;
    uint32_t lastTextId = 0;
    TrackKey lastKey;
    Track* lastTrack = nullptr;
    int64_t orphanPops = 0, unterminated = 0;
    uint64_t events = 0;
    // Ranges still open when an image without its end record stopped (killed, or still
    // running): (track in m_own, row); they end with their process, in finish().
    std::vector<std::pair<uint32_t, uint32_t>> endWithProcess;

    uint32_t message(const StreamCtx& s, const RecordHeader& h, const NvtxFields& f) {
        if (h.flags & kNvtxRegistered) return f.message < s.ids.size() ? s.ids[f.message] : 0;
        if (f.text == lastText) return lastTextId;  // (memcmp of an empty view's null data is UB)
        auto [it, inserted] = texts.try_emplace(f.text, 0);
        if (inserted) {
            it->second = kLocal | static_cast<uint32_t>(localTexts.size());
            localTexts.push_back(f.text);
        }
        lastText = f.text;
        lastTextId = it->second;
        return it->second;
    }
};

Track* SessionMerger::workerTrack(NvtxWorker& w, const TrackKey& key) {
    if (w.lastTrack && key == w.lastKey) return w.lastTrack;
    auto it = m_ownIndex.find(key);  // read-only while workers run
    if (it == m_ownIndex.end()) return nullptr;
    w.lastKey = key;
    w.lastTrack = &m_own[it->second];
    return w.lastTrack;
}

void SessionMerger::pairNvtx(const StreamCtx& s, const std::vector<const RawBlock*>& blocks,
                             NvtxWorker& w, int64_t end) {
    // kUnknownTime as `t`: the range ends with its process (finish()).
    auto close = [&](int64_t tid, uint32_t domain, std::vector<OpenPush>& stack, int64_t t) {
        OpenPush p = stack.back();
        stack.pop_back();
        if (!m_window.contains(p.start)) return;
        Track* tr = workerTrack(w, TrackKey::forThread(EventKind::NvtxRange, s.pid, tid, domain));
        if (!tr) return;
        if (t == kUnknownTime)
            w.endWithProcess.emplace_back(static_cast<uint32_t>(tr - m_own.data()),
                                          static_cast<uint32_t>(tr->start.size()));
        tr->start.push_back(p.start);
        tr->end.push_back(std::max(t, p.start));
        tr->name.push_back(p.message);
        tr->cols[cols::Nvtx::Category].push<uint32_t>(p.category);
        tr->cols[cols::Nvtx::Color].push<uint32_t>(p.color);
        tr->cols[cols::Nvtx::PayloadType].push<uint8_t>(p.payloadType);
        tr->cols[cols::Nvtx::Payload].push<uint64_t>(p.payload);
        tr->cols[cols::Nvtx::RangeType].push<uint8_t>(0);
        tr->cols[cols::Nvtx::EndTid].push<int64_t>(0);
        ++w.events;
    };
    std::pair<int64_t, uint32_t> lastKey{INT64_MIN, 0};
    std::vector<OpenPush>* stack = nullptr;
    auto stackOf = [&](int64_t tid, uint32_t domain) -> std::vector<OpenPush>& {
        std::pair<int64_t, uint32_t> key{tid, domain};
        if (!stack || key != lastKey) {
            lastKey = key;
            stack = &w.stacks[key];
        }
        return *stack;
    };
    for (const RawBlock* b : blocks) {
        const int64_t tid = b->tid;
        forEachRecord(*b, [&](const RecordHeader& h, const uint8_t* rec) {
            if (h.type == RecordType::NvtxPush) {
                NvtxFields f;
                if (!decodeNvtx(rec, &f)) return;
                stackOf(tid, h.aux)
                    .push_back({f.time, w.message(s, h, f), f.category, f.color,
                                static_cast<uint8_t>(h.flags & kNvtxPayloadMask), f.payload});
            } else if (h.type == RecordType::NvtxPop) {
                const auto* r = reinterpret_cast<const NvtxEndRecord*>(rec);
                auto& st = stackOf(tid, h.aux);
                if (st.empty())
                    ++w.orphanPops;
                else
                    close(tid, h.aux, st, r->time);
            } else if (h.type == RecordType::NvtxMark) {
                NvtxFields f;
                if (!decodeNvtx(rec, &f) || !m_window.contains(f.time)) return;
                Track* tr =
                    workerTrack(w, TrackKey::forThread(EventKind::NvtxMark, s.pid, tid, h.aux));
                if (!tr) return;
                tr->start.push_back(f.time);
                tr->name.push_back(w.message(s, h, f));
                tr->cols[cols::Nvtx::Category].push<uint32_t>(f.category);
                tr->cols[cols::Nvtx::Color].push<uint32_t>(f.color);
                tr->cols[cols::Nvtx::PayloadType].push<uint8_t>(
                    static_cast<uint8_t>(h.flags & kNvtxPayloadMask));
                tr->cols[cols::Nvtx::Payload].push<uint64_t>(f.payload);
                ++w.events;
            }
        });
        releasePages(*b);
    }
    for (auto& [key, st] : w.stacks) {
        while (!st.empty()) {
            if (m_window.contains(st.back().start)) ++w.unterminated;  // only those in the report
            close(key.first, key.second, st, end);
        }
    }
}

void SessionMerger::pairNvtxParallel(const StreamCtx& s, const std::vector<const RawBlock*>& order,
                                     int64_t end, uint64_t bytes) {
    // Sizes before this stream, to find the names to translate afterwards.
    std::vector<std::pair<Track*, size_t>> before;
    for (Track& t : m_own)
        if (t.key.pid == s.pid) before.emplace_back(&t, t.size());
    // Threads (runs of blocks with one tid), biggest first, to the least loaded worker.
    std::vector<std::pair<size_t, size_t>> groups;  // [begin, end) in `order`
    for (size_t k = 0; k < order.size();) {
        size_t e = k;
        while (e < order.size() && order[e]->tid == order[k]->tid) ++e;
        groups.emplace_back(k, e);
        k = e;
    }
    size_t workers = bytes < (8u << 20) ? 1 : std::min<size_t>({ThreadPool::usableCpus(), 8, groups.size()});
    workers = std::max<size_t>(workers, 1);
    std::vector<std::vector<const RawBlock*>> parts(workers);
    std::vector<uint64_t> load(workers, 0);
    std::vector<std::pair<uint64_t, size_t>> bySize;
    for (size_t g = 0; g < groups.size(); ++g) {
        uint64_t n = 0;
        for (size_t k = groups[g].first; k < groups[g].second; ++k) n += order[k]->bytes;
        bySize.emplace_back(n, g);
    }
    std::sort(bySize.rbegin(), bySize.rend());
    for (auto [n, g] : bySize) {
        size_t w = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        load[w] += n;
        for (size_t k = groups[g].first; k < groups[g].second; ++k) parts[w].push_back(order[k]);
    }
    std::vector<NvtxWorker> ws(workers);
    sl::parallelFor(workers, [&](size_t w) { pairNvtx(s, parts[w], ws[w], end); },
                    ParallelOptions{static_cast<unsigned>(workers)});
    // Worker-local text ids become report ids. A thread's tracks were written by one worker.
    std::vector<std::vector<uint32_t>> global(workers);
    for (size_t w = 0; w < workers; ++w) {
        for (std::string_view t : ws[w].localTexts) global[w].push_back(m_b.intern(t));
        m_orphanPops += ws[w].orphanPops;
        m_unterminated += ws[w].unterminated;
        m_stats.events += ws[w].events;
        for (auto [track, row] : ws[w].endWithProcess) m_openRanges.push_back({track, row, s.pid});
    }
    std::unordered_map<int64_t, size_t> workerOfTid;
    for (size_t w = 0; w < workers; ++w)
        for (const RawBlock* b : parts[w]) workerOfTid[b->tid] = w;
    for (auto [t, from] : before) {
        auto it = workerOfTid.find(t->key.tid);
        if (it == workerOfTid.end()) continue;
        const auto& map = global[it->second];
        for (size_t k = from; k < t->name.size(); ++k)
            if (t->name[k] & NvtxWorker::kLocal) t->name[k] = map[t->name[k] & ~NvtxWorker::kLocal];
    }
}

size_t SessionMerger::ownTrack(const TrackKey& key) {
    if (m_lastOwn != SIZE_MAX && key == m_lastOwnKey) return m_lastOwn;
    auto [it, inserted] = m_ownIndex.try_emplace(key, m_own.size());
    if (inserted) m_own.emplace_back(key);
    m_lastOwnKey = key;
    m_lastOwn = it->second;
    return it->second;
}

// NVTX events are the bulk of most captures: they are appended straight into typed columns
// (the generic builder path costs about three times more per event).
std::pair<uint32_t, uint32_t> SessionMerger::addRange(const NvtxRangeEvent& e) {
    const size_t index = ownTrack(TrackKey::forThread(EventKind::NvtxRange, e.pid, e.tid, e.domain));
    Track& t = m_own[index];
    const size_t row = t.size();
    t.start.push_back(e.start);
    t.end.push_back(std::max(e.end, e.start));
    t.name.push_back(e.message);
    t.cols[cols::Nvtx::Category].push<uint32_t>(e.category);
    t.cols[cols::Nvtx::Color].push<uint32_t>(e.color);
    t.cols[cols::Nvtx::PayloadType].push<uint8_t>(static_cast<uint8_t>(e.payloadType));
    t.cols[cols::Nvtx::Payload].push<uint64_t>(e.payload);
    t.cols[cols::Nvtx::RangeType].push<uint8_t>(static_cast<uint8_t>(e.rangeType));
    t.cols[cols::Nvtx::EndTid].push<int64_t>(e.endTid);
    ++m_stats.events;
    return {static_cast<uint32_t>(index), static_cast<uint32_t>(row)};
}

// Ends the open start/end range `id` of the stream: false when no start with that id was read.
bool SessionMerger::endRange(StreamCtx& s, uint64_t id, int64_t time, int64_t tid) {
    uint64_t ref = 0;
    bool known = false;
    if (s.startEnds.end(id, &ref, &known)) {
        Track& t = m_own[ref >> 32];
        const uint32_t row = static_cast<uint32_t>(ref);
        t.end[row] = std::max(time, t.start[row]);
        if (tid != t.key.tid) t.cols[cols::Nvtx::EndTid].setInt(row, tid);
    }
    return known;
}

// After the stream's records: ends read before their starts, then the ranges that never ended
// (they end with their process, in finish()).
void SessionMerger::pairStartEnd(StreamCtx& s) {
    for (const StreamCtx::RangeEnd& e : s.earlyEnds)
        if (!endRange(s, e.id, e.time, e.tid)) ++m_unmatchedEnds;
    s.startEnds.forEachOpen([&](uint64_t ref) {
        ++m_unterminated;
        m_openRanges.push_back({static_cast<uint32_t>(ref >> 32), static_cast<uint32_t>(ref), s.pid});
    });
    std::vector<StreamCtx::RangeEnd>().swap(s.earlyEnds);
    s.startEnds = StartEndIndex{};
}

// The message id of a start record (rare: read in the sequential pass).
uint32_t SessionMerger::sequentialMessage(StreamCtx& s, const RecordHeader& h,
                                          const NvtxFields& f) {
    if (h.flags & kNvtxRegistered) return f.message < s.ids.size() ? s.ids[f.message] : 0;
    auto [it, inserted] = s.inlineIds.try_emplace(f.text, 0);
    if (inserted) it->second = m_b.intern(f.text);
    return it->second;
}

void SessionMerger::onEvent(StreamCtx& s, const uint8_t* rec) {
    const auto* e = reinterpret_cast<const EventRecord*>(rec);
    const KindSchema* schema = findSchema(e->kind);
    if (!schema) return;  // a kind this build does not know
    s.lastTime = std::max(s.lastTime, e->end);
    if (!m_window.contains(e->start)) return;
    int64_t cols[24] = {};
    const size_t room = (static_cast<size_t>(e->h.size8) * 8 - sizeof(EventRecord)) / 8;
    int n = std::min<int>({e->columnCount, static_cast<int>(schema->columns.size()),
                           static_cast<int>(room)});
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
        case OwnerKind::Thread:
            key = TrackKey::forThread(kind, s.pid, e->tid, e->domain);
            break;
        case OwnerKind::Stream:
            key = TrackKey::forStream(kind, s.pid, e->device, e->context, e->stream);
            break;
        case OwnerKind::ProcessDevice:
            key = TrackKey::forProcessDevice(kind, s.pid, e->device);
            break;
        case OwnerKind::Series:
            key = TrackKey::forMetric(e->stream);
            break;
    }
    m_b.addRaw(key, e->start, schema->hasEnd ? e->end : e->start, name, cols);
    ++m_stats.events;
    if (kind == EventKind::Mpi) ++m_stats.mpiEvents;
    if (kind == EventKind::OpenMp) ++m_stats.openMpEvents;
    if (kind >= EventKind::Cublas && kind <= EventKind::Nccl)
        ++m_stats.cudaLibEvents[static_cast<int>(kind) - static_cast<int>(EventKind::Cublas)];
}

void SessionMerger::dropDiagnostic(int64_t pid, int64_t tid, int64_t kind, int64_t count) {
    m_drops[{pid, kind}] += count;
    m_dropsByThread[{pid, kind}].emplace_back(tid, count);
}

void SessionMerger::processExited(int64_t pid, int64_t time, int exitCode, int signal,
                                  int64_t reaper) {
    ProcInfo& p = proc(pid);
    p.reaper = reaper ? reaper : -1;
    p.p.end = time;
    p.p.exitCode = exitCode;
    p.p.exitSignal = signal;
}

void SessionMerger::processForked(int64_t pid, int64_t parent, int64_t time) {
    auto it = m_procs.find(pid);
    if (it == m_procs.end()) {
        // A copy of its parent until it execs (processExecd names it then). Without this it
        // was a nameless thread row, missing from the process rows and the untraced count.
        const auto from = m_procs.find(parent);
        if (from == m_procs.end()) return;  // the launcher's own child, or outside the tree
        const ProcInfo& parentInfo = from->second;
        ProcInfo& p = proc(pid);
        p.kernelOnly = true;
        p.p.name = parentInfo.p.name;
        p.p.commandLine = parentInfo.p.commandLine;
        // Made by a vfork child before its exec: it ran that child's code, its parent's
        // parent's, as a vfork child does; not an untraced process either.
        p.vforked = parentInfo.vforked &&
                    (parentInfo.imageTime == kUnknownTime || time < parentInfo.imageTime);
        it = m_procs.find(pid);
    }
    ProcInfo& p = it->second;
    // Known already, without a name: its parent recorded reaping it, and it never announced
    // itself (a clone or clone3 system call, clone with CLONE_VM, a child after a seal). It
    // ran its parent's image.
    if (p.p.name.empty() && !p.announced)
        if (const auto from = m_procs.find(parent); from != m_procs.end()) {
            p.kernelOnly = p.kernelOnly || p.streams == 0;
            p.p.name = from->second.p.name;
            p.p.commandLine = from->second.p.commandLine;
        }
    if (p.creator) return;
    p.creator = parent;
    if (p.p.start == kUnknownTime || time < p.p.start) p.p.start = time;
}

void SessionMerger::processExecd(int64_t pid, const std::string& name, int64_t time) {
    auto it = m_procs.find(pid);
    if (it == m_procs.end()) return;
    ProcInfo& p = it->second;
    nameThread(pid, pid, name, time, false);
    // Our module announced this image (its ProcessStart comes after the exec) or a later one.
    if (p.imageTime != kUnknownTime && time <= p.imageTime) return;
    // The image a traced caller described before the exec (UntracedImage, same name).
    if (p.untraced && p.p.name.compare(0, 15, name) == 0) return;
    p.imageTime = time;
    p.unseenImage = true;
    p.untraced = 0;
    p.p.name = name;
    p.p.commandLine = name;  // its arguments are not known; the previous image's would mislead
}

void SessionMerger::threadExited(int64_t pid, int64_t tid, int64_t time) {
    auto it = m_procs.find(pid);
    if (it == m_procs.end()) return;
    ProcInfo& p = it->second;
    if (p.kernelExit == kUnknownTime || time > p.kernelExit) p.kernelExit = time;
    if (tid == pid) p.mainThreadExit = time;
    auto t = m_threads.find({pid, tid});
    if (t == m_threads.end()) return;
    // The main thread's id exits twice when another thread execs: the old leader at the exec
    // (the exec'ing thread takes its id and goes on in the new image), then the process. The
    // last is its end.
    if (t->second.end == kUnknownTime || (tid == pid && time > t->second.end))
        t->second.end = time;
}

void SessionMerger::findOrphans() {
    for (auto& [pid, pi] : m_procs) {
        if (pid == m_rootPid) continue;
        const int64_t parent = pi.creator ? pi.creator : pi.firstParent;
        if (parent == 0) continue;
        pi.p.parentPid = parent;
        // Adopted: a later image saw another parent, or another process (the launcher, -1)
        // reaped it.
        int64_t adopter = 0, seen = kUnknownTime;
        if (pi.lastParent && pi.lastParent != parent) {
            adopter = pi.lastParent;
            seen = pi.lastParentTime;
        } else if (pi.reaper && pi.reaper != parent) {
            adopter = pi.reaper == -1 ? m_launcherPid : pi.reaper;
        }
        // Adopted by the launcher as the tree's subreaper (a later image's parent, or reaped by
        // it): without the profiler the orphan went to the probe's reaper (init, or a subreaper
        // above), which its getppid() answers too.
        if (adopter == m_launcherPid && m_orphanReaper) adopter = m_orphanReaper;
        if (adopter == 0 || adopter == parent) continue;
        // A process that ended before its parent was only reaped by another (a zombie whose
        // parent never waited): it was never orphaned while it ran.
        auto pit = m_procs.find(parent);
        if (pit != m_procs.end() && pi.p.end != kUnknownTime &&
            pit->second.p.end != kUnknownTime && pi.p.end <= pit->second.p.end)
            continue;
        // The parent's end is the moment it was orphaned (when the parent's end is known and
        // not after the evidence).
        int64_t when = pit != m_procs.end() ? pit->second.p.end : kUnknownTime;
        if (when == kUnknownTime || (seen != kUnknownTime && when > seen)) when = seen;
        m_b.report().reparents.push_back({pid, when, parent, adopter});
    }
}

void SessionMerger::finish(int64_t sessionEnd) {
    Report& r = m_b.report();
    // Step 1: start/end ranges that never ended end with their process.
    for (const OpenRange& o : m_openRanges) {
        const ProcInfo& p = proc(o.pid);
        const int64_t end = p.p.end != kUnknownTime
                                ? p.p.end
                                : (p.lastEventTime != kUnknownTime ? p.lastEventTime : sessionEnd);
        Track& t = m_own[o.track];
        t.end[o.row] = std::max(end, t.start[o.row]);
    }
    m_openRanges.clear();
    for (Track& t : m_own) r.tracks.push_back(std::move(t));
    m_own.clear();
    m_ownIndex.clear();
    m_lastOwn = SIZE_MAX;
    // Step 2: processes (every one that announced itself, was created or reaped).
    // The end a process recorded itself is when it exited; a reap can come much later (a zombie
    // its parent never waited for, reaped by whoever adopted it).
    for (auto& [pid, pi] : m_procs) {
        if (pi.lastStreamEnd != kUnknownTime &&
            (pi.p.end == kUnknownTime || pi.lastStreamEnd < pi.p.end))
            pi.p.end = pi.lastStreamEnd;
        if (pi.kernelExit != kUnknownTime && pi.p.end != kUnknownTime && pi.kernelExit < pi.p.end)
            pi.p.end = pi.kernelExit;
        // Only the kernel saw it end, and it was reaped by a process we do not trace.
        if (pi.kernelOnly && pi.p.end == kUnknownTime && pi.mainThreadExit != kUnknownTime) {
            pi.p.end = std::max(pi.kernelExit, pi.mainThreadExit);
            pi.p.exitSignal = kExitStatusUnknown;
        }
        if (m_endGone && pi.p.end == kUnknownTime && pi.lastEventTime != kUnknownTime &&
            !runsSince(pid, pi.p.start == kUnknownTime ? 0 : pi.p.start)) {
            pi.p.end = pi.lastEventTime;
            pi.p.exitSignal = kExitStatusUnknown;
        }
    }
    findOrphans();
    for (auto& [pid, pi] : m_procs) r.processes.push_back(pi.p);
    for (const IncompleteStream& inc : m_incomplete) {
        const ProcInfo& p = proc(inc.pid);
        if (p.endedCleanly || p.writeFailed) continue;
        std::string how = p.p.exitSignal ? "was killed by signal " + std::to_string(p.p.exitSignal)
                                         : "ended without its final flush";
        std::string who = "process " + std::to_string(inc.pid) + " (" + p.p.name + ") " + how;
        if (inc.salvaged && p.unseenImage) continue;  // replaced by an exec we did not see
        if (inc.salvaged) {
            // Nothing committed was lost: the buffers were read back from the arena (when none
            // was missing there is nothing to say beyond the process's end, which its row shows).
            if (inc.recoveredBlocks == 0) continue;
            m_b.addDiagnostic("capture.stream_recovered", inc.recoveredBlocks,
                              who + ": " + formatBytes(static_cast<uint64_t>(inc.recoveredBytes)) +
                                  " of events it had not written yet were recovered from its "
                                  "buffer file into " + inc.file,
                              inc.pid);
        } else {
            m_b.addDiagnostic("capture.stream_incomplete", 1,
                              who + " before its stream " + inc.file +
                                  " was finished and had no buffer file: events it had not yet "
                                  "written are lost",
                              inc.pid);
        }
    }
    // Processes that recorded nothing of their own (or not after an exec): the loader never ran
    // our module in them. Why, when a traced parent saw the image before it ran.
    ShortList untraced, unwritten;
    bool unexplained = false;
    for (const auto& [pid, pi] : m_procs) {
        // A stream made (with its first block) that lacks the first of its records (none at
        // all, or a gap before the rest): they could not be written, and without a buffer
        // file nothing was recovered. Traced, not untraced.
        if (pi.streams > 0 && !pi.announced && !pi.untraced &&
            (pi.blocks == 0 || pi.lostBlocks > 0)) {
            unwritten.add(std::to_string(pid) + " (" + (pi.p.name.empty() ? "?" : pi.p.name) + ")");
            continue;
        }
        const bool silent = !pi.announced && pi.streams == 0 && !pi.vforked && !pi.tracedFork &&
                            (pi.creator || pid == m_rootPid);
        if (!silent && !pi.untraced && !pi.unseenImage) continue;
        std::string who =
            std::to_string(pid) + " (" + (pi.p.name.empty() ? "?" : pi.p.name) + ")";
        if (pi.untraced)
            who += " " + std::string(untraceableText(static_cast<Untraceable>(pi.untraced)));
        else if (pi.unseenImage)
            who += " ran an image our module was not loaded into (a static or setuid program "
                   "exec'd by an untraced process, fexecve, a direct execve system call, or an "
                   "environment without LD_PRELOAD)";
        else
            unexplained = true;
        untraced.add(who);
    }
    if (unwritten.count)
        m_b.addDiagnostic("capture.records_unwritten", unwritten.count,
                          "processes whose stream lacks their first records: they could not "
                          "be written (no room, or the file-size limit, ulimit -f) and there was "
                          "no buffer file to recover them from: " + unwritten.text);
    if (untraced.count)
        m_b.addDiagnostic(
            "capture.processes_untraced", untraced.count,
            "processes whose NVTX, OS runtime and CUDA calls could not be traced (shown with "
            "start, end, exit status, CPU samples and context switches): " + untraced.text +
                (unexplained
                     ? ". Causes: forked without exec under --trace-fork-before-exec=false, a "
                       "statically linked program (no loader to preload our module), a setuid "
                       "or setgid program (the loader ignores LD_PRELOAD), an exec by a program "
                       "we do not trace (or by a direct system call) with LD_PRELOAD removed "
                       "from its environment, a child of a clone or clone3 system call (or of "
                       "clone with CLONE_VM) that did not exec, a child of a process that had "
                       "sandboxed itself (capture.sandboxed)"
                     : std::string()));
    // Processes that could learn only their namespace's pid: their rows may merge processes of
    // different namespaces, and the kernel's records of them land on rows of their own.
    ShortList unresolved;
    for (const auto& [pid, pi] : m_procs)
        if (pi.pidUnresolved) unresolved.add(std::to_string(pid) + " (" + (pi.p.name.empty() ? "?" : pi.p.name) + ")");
    if (unresolved.count)
        m_b.addDiagnostic(
            "capture.pids_unresolved", unresolved.count,
            "processes whose /proc is their PID namespace's own could not ask the profiler which "
            "pid it sees (neither its session directory nor its network namespace is theirs): "
            "they are shown with their namespace pids, so processes of different namespaces with "
            "the same pid share a row, and their CPU samples and context switches are on rows of "
            "their own: " + unresolved.text);
    // Processes in other PID namespaces (containers, unshare --pid): their own pids, kept here.
    ShortList namespaced;
    for (const auto& [pid, pi] : m_procs)
        if (pi.namespacePid)
            namespaced.add(std::to_string(pid) + " (" + std::to_string(pi.namespacePid) +
                           " there)");
    if (namespaced.count)
        m_b.addDiagnostic("capture.pid_namespaces", namespaced.count,
                          "processes that ran in another PID namespace (a container, unshare "
                          "--pid) are shown with the pids the profiler sees: " + namespaced.text);
    // Step 3: threads, including those only known from their events; the capture's own threads
    // (their CPU samples and context switches included) are not the program's.
    auto isTool = [&](int64_t pid, int64_t tid) { return m_toolThreads.count({pid, tid}) != 0; };
    if (!m_toolThreads.empty()) {
        std::erase_if(r.tracks, [&](const Track& t) {
            return schemaOf(t.key.kind).owner == OwnerKind::Thread && isTool(t.key.pid, t.key.tid);
        });
        std::erase_if(m_threads, [&](const auto& kv) { return isTool(kv.first.first, kv.first.second); });
    }
    for (const Track& t : r.tracks)
        if (schemaOf(t.key.kind).owner == OwnerKind::Thread && t.key.tid != 0)
            thread(t.key.pid, t.key.tid);
    for (auto& [key, t] : m_threads) {
        const ProcInfo& p = proc(t.pid);
        if (t.tid == t.pid) {
            if (t.start == kUnknownTime) t.start = p.p.start;
            if (t.end == kUnknownTime) t.end = p.p.end;
            if (t.name.empty()) t.name = p.p.name;
        } else if (t.end == kUnknownTime && t.start != kUnknownTime && p.p.end != kUnknownTime &&
                   p.p.end >= t.start) {
            // Still alive when its process ended (exit, exec, a signal): it ended with it.
            t.end = p.p.end;
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
                    if (c.pid == rn.pid && c.contextId == static_cast<uint32_t>(context))
                        c.name = rn.name, attached = true;
            } else if (kind == ResourceKind::CuStream || kind == ResourceKind::CudaStream) {
                for (auto& st : r.streams)
                    if (st.pid == rn.pid && st.contextId == static_cast<uint32_t>(context) &&
                        st.streamId == static_cast<uint32_t>(stream) &&
                        st.deviceId == static_cast<int32_t>(device))
                        st.name = rn.name, attached = true;
            }
        }
        if (!attached) ++m_unresolvedNames;
    }
    for (const auto& [key, name] : m_domains)
        r.nvtxDomains.push_back({key.first, key.second, name});
    for (const auto& [key, name] : m_categories)
        r.nvtxCategories.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), name});
    // Step 4: diagnostics.
    {
        std::map<std::pair<int64_t, std::string>, std::pair<int64_t, std::string>> perProcess;
        for (const auto& d : m_threadDiagnostics)
            if (!isTool(d.pid, d.tid)) {
                auto& [count, reason] = perProcess[{d.pid, d.name}];
                count += d.count;
                if (reason.empty()) reason = d.reason;
            }
        for (const auto& [key, d] : perProcess)
            m_b.addDiagnostic(key.second, d.first, d.second, key.first);
    }
    if (m_noBufferFile.size() == 1) {
        m_b.addDiagnostic("capture.no_buffer_file", 1, m_noBufferFile[0].second,
                          m_noBufferFile[0].first);
    } else if (!m_noBufferFile.empty()) {
        const auto& [pid, reason] = m_noBufferFile.front();
        m_b.addDiagnostic("capture.no_buffer_file", static_cast<int64_t>(m_noBufferFile.size()),
                          std::to_string(m_noBufferFile.size()) +
                              " processes had no buffer file; the first, pid " +
                              std::to_string(pid) + ": " + reason);
    }
    for (const auto& [key, count] : m_drops) {
        const bool cut = key.second == static_cast<int64_t>(DropKind::TextCut);
        const bool inHandler = key.second == static_cast<int64_t>(DropKind::InSignalHandler);
        std::string reason =
            inHandler
                ? "records made in a signal handler that interrupted its thread while that thread "
                  "was making another record (an NVTX call or a traced OS call in the handler), not "
                  "stored: both would have had the same space (per thread:"
            : cut ? "texts longer than the capture keeps were cut at that length (NVTX messages, "
                  "names and registered strings: " +
                      formatCount(kMetaStringMax) +
                      " bytes, less with a small SIGHTLINE_BUFFER_KB; wide-character NVTX messages: "
                      "4,096 bytes as UTF-8) (per thread:"
                : "records not stored because the capture buffers were full (per thread:";
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
        reason += cut || inHandler ? ")" : "); raise SIGHTLINE_BUFFER_MB or trace less";
        m_b.addDiagnostic(dropName(key.second), count, reason, key.first);
    }
    // Command lines longer than a record keeps (64 KiB): each process and its full length.
    ShortList cutLines;
    for (const auto& [pid, p] : m_procs)
        if (p.commandLineBytes > 0)
            cutLines.add("pid " + std::to_string(pid) + ": " +
                         formatCount(p.p.commandLine.size()) + " of " +
                         formatCount(static_cast<uint64_t>(p.commandLineBytes)) + " bytes");
    if (cutLines.count)
        m_b.addDiagnostic("capture.command_lines_cut", cutLines.count,
                          "command lines longer than the capture keeps were cut (" +
                              cutLines.text + ")");
    // A process whose writes failed (a full disk) has gaps where the blocks it could not write
    // were: capture.write_failed counts those, with their cause. Other gaps are blocks a killed
    // process never finished writing.
    int64_t lostBlocks = 0;
    for (const auto& [pid, p] : m_procs)
        if (!p.writeFailed) lostBlocks += p.lostBlocks;
    if (lostBlocks)
        m_b.addDiagnostic(
            "capture.blocks_lost", lostBlocks,
            "buffers that never reached the stream file (process killed while writing)");
    for (const auto& d : m_damage) m_b.addDiagnostic("capture.stream_damaged", 1, d);
    if (m_unterminated)
        m_b.addDiagnostic("nvtx.unterminated_ranges", m_unterminated,
                          "NVTX ranges never ended (no pop/end before the thread or process "
                          "ended); shown ending at the process end");
    if (m_orphanPops)
        m_b.addDiagnostic("nvtx.unmatched_pops", m_orphanPops,
                          "nvtxRangePop calls without a matching push on that thread");
    if (m_unmatchedEnds)
        m_b.addDiagnostic("nvtx.unmatched_ends", m_unmatchedEnds,
                          "nvtxRangeEnd calls with an id no recorded start returned");
    if (m_unresolvedNames)
        m_b.addDiagnostic("nvtx.resource_names_unattached", m_unresolvedNames,
                          "NVTX names of CUDA devices, contexts, streams or events that could not "
                          "be attached to a CUDA row "
                          "(no CUDA trace of that object was captured)");
    // --python-backtrace: processes whose interpreter's stacks could not be read, and why.
    if (!m_pyBacktraceOff.empty()) {
        std::string text;
        int64_t shown = 0;
        for (const auto& [pid, why] : m_pyBacktraceOff)
            if (++shown <= 3) text += (shown > 1 ? "; " : "") + std::string("pid ") + std::to_string(pid) + ": " + why;
        if (shown > 3) text += "; ...";
        m_b.addDiagnostic("python.backtraces_unavailable", static_cast<int64_t>(m_pyBacktraceOff.size()),
                          "Python processes whose call stacks could not be read at recorded calls "
                          "(--python-backtrace): " + text);
    }
    // --pytorch: where PyTorch's annotations were switched on, and where they could not be.
    for (const int64_t state : {1, 2}) {
        int64_t count = 0;
        std::string text;
        for (const auto& [pid, st] : m_pytorch) {
            if (st.first != state) continue;
            if (++count <= 3)
                text += (count > 1 ? "; " : "") + std::string("pid ") + std::to_string(pid) + ": " +
                        st.second;
        }
        if (count > 3) text += "; ...";
        if (count && state == 1)
            m_b.addDiagnostic("pytorch.enabled", count,
                              "processes where PyTorch's annotations were switched on (--pytorch): " +
                                  text);
        if (count && state == 2)
            m_b.addDiagnostic("pytorch.failed", count,
                              "processes that imported torch but where --pytorch could not switch "
                              "its annotations on: " + text);
    }
}

}  // namespace sl::capture
