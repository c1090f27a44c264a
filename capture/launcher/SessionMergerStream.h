#pragma once
// The merge state of one stream file (private to SessionMerger*.cpp).
#include <map>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "capture/launcher/SessionMerger.h"
#include "capture/launcher/StartEndIndex.h"

namespace sl::capture {

// Stream-local ids are given in order from 1: an id this far past those seen is damage, and
// must not size a table (a damaged id of 2^32 would take 64 GiB).
constexpr uint32_t kMaxStringIdGap = 1 << 16;

struct SessionMerger::StreamCtx {
    int64_t pid = 0;
    std::vector<std::string_view> text;  // stream-local string id -> text
    std::vector<uint32_t> ids;  // stream-local string id -> report id (UINT32_MAX: not yet)
    std::unordered_map<int64_t, uint32_t> launches;  // stream-local launch id -> report launch id
    std::map<std::pair<int64_t, uint32_t>, std::vector<OpenPush>> stacks;  // (tid, domain)
    std::unordered_map<std::string_view, uint32_t> inlineIds;  // NVTX texts seen in this stream
    std::map<std::pair<int64_t, uint32_t>, size_t>
        rangeCounts;  // pushes and starts per (thread, domain)
    std::map<std::pair<int64_t, uint32_t>, size_t> markCounts;  // marks per (thread, domain)
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
    bool sawSeal = false;  // ended by ExitHow::Sealed: the stream is complete, the process ran on
    bool salvaged = false;  // Meta Recovered (ArenaSalvage): its arena was read back
    bool stillRunning = false;  // ... while its process ran on after the capture (a snapshot)
    int64_t recoveredBlocks = 0, recoveredBytes = 0;
    int64_t endTime = kUnknownTime;
    int64_t badStringIds = 0;  // string records with an id far past the others (damage)
    // --python-sampling: stream frame id -> report frame id (UINT32_MAX: not defined), and
    // samples whose frames were not defined or whose record was damaged.
    std::vector<uint32_t> pyFrames;
    int64_t pySamplesUnresolved = 0;
    // Python samples and backtraces, resolved once the whole stream's frames are known:
    // threads share the frame ids, so one thread's record may name a frame that another
    // thread's block defines later (a forked child's first thread to need them defines again
    // the frames it inherited). A sample is kind CpuSample.
    struct PendingPython {
        EventBacktrace b;
        std::vector<uint32_t> ids;  // the frames, or none and:
        uint32_t streamStack = 0;   // a PythonStack of the stream
    };
    std::vector<PendingPython> pyPending;
    // PythonStack definitions: stream stack id -> frame ids, and (once resolved) report stack.
    std::vector<std::vector<uint32_t>> pyStackDefs;
    std::vector<uint32_t> pyStackReport;
    // Native backtraces (NativeBacktrace records: module id << 48 | file offset, leaf first)
    // and the module paths they name (id -> path, "" when not defined), resolved with the
    // stream's Python backtraces (resolveNative).
    struct PendingNative {
        EventBacktrace b;
        std::vector<uint64_t> frames;
    };
    std::vector<PendingNative> nativePending;
    std::vector<std::string> nativeModules;
    int64_t nativeUnresolved = 0;
    // Start/end ranges, paired while the stream is read (an image numbers its ranges itself,
    // so a range starts and ends in one stream): the start is already a row of its track (end
    // = start until paired), found by id in `startEnds`. An end read before its start (another
    // thread's blocks come later) waits in `earlyEnds`.
    StartEndIndex startEnds;
    uint64_t minStartId = UINT64_MAX, maxStartId = 0, startCount = 0;
    struct RangeEnd {
        uint64_t id;
        int64_t time, tid;
    };
    std::vector<RangeEnd> earlyEnds;
};

}  // namespace sl::capture
