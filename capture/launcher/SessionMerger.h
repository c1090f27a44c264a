#pragma once
// Turns the raw stream files of a capture session (capture/common/RawFormat.h) into report
// content through a ReportBuilder: events on their tracks, processes, threads, NVTX domains and
// categories, GPUs/contexts/streams (CUPTI module), and diagnostics for everything that was
// lost (dropped records, lost blocks, damaged streams, processes killed before flushing).
// Single-threaded; one merger per report. Facts only the launcher knows (how the root and
// orphaned processes ended) are added with processExited() before finish().
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "capture/common/RawReader.h"
#include "model/core/ReportBuilder.h"

namespace sl::capture {

struct MergeWindow {
    int64_t start = INT64_MIN;  // events starting outside [start, end] are left out
    int64_t end = INT64_MAX;
    bool contains(int64_t t) const { return t >= start && t <= end; }
};

struct MergeStats {
    uint64_t streams = 0;
    uint64_t bytes = 0;
    uint64_t records = 0;
    uint64_t events = 0;
    uint64_t mpiEvents = 0;  // -t mpi: none means the program made no MPI call
    uint64_t cudaLibEvents[3] = {};  // -t cublas, cudnn, nccl: the calls of each library
    uint64_t openMpEvents = 0;
};

class SessionMerger {
public:
    explicit SessionMerger(ReportBuilder& builder, MergeWindow window = {});

    // The stream files of a session directory, sorted by name (*.slraw); with `arenaDir`, also
    // those there (streams written at a process's end beside its arena), all sorted by file name;
    // with `copiesDir`, a stream there replaces the one of the same name (an import's salvage).
    static std::vector<std::string> listStreams(const std::string& dir,
                                                const std::string& arenaDir = {},
                                                const std::string& copiesDir = {});
    // The pid in a stream's name (<module>-<pid>-<n>.slraw, as ProcessWriter names it); 0 if none.
    static int64_t streamPid(const std::string& path);
    // Reads one stream into the builder. A damaged tail is a diagnostic, not an error.
    Status addStream(const std::string& path);
    // `reaper`: the process that reaped it; 0 for the launcher.
    void processExited(int64_t pid, int64_t time, int exitCode, int signal, int64_t reaper = 0);
    // The kernel saw `parent` create `pid` (perf fork records): its real parent even when no
    // traced process recorded the creation. A process nothing else shows (forked by a process
    // that does not run our module: --trace-fork-before-exec=false, a static or setuid
    // program's children) gets its row from these records, when its parent has one: call in
    // time order.
    void processForked(int64_t pid, int64_t parent, int64_t time);
    // The kernel saw `pid` exec an image named `name` (perf comm records): names a process whose
    // last image our module did not announce (static, setuid, fexecve, a raw execve) and its
    // main thread (whichever thread exec'd, it is the main one after).
    void processExecd(int64_t pid, const std::string& name, int64_t time);
    // The kernel saw thread `tid` of `pid` exit at `time` (perf exit records): its end, and the
    // process's end when it is earlier than what the reaping said.
    void threadExited(int64_t pid, int64_t tid, int64_t time);
    // The program the launcher (`launcherPid`) started at `started`: named from its command line
    // when it recorded nothing itself (a statically linked or setuid program).
    void rootProcess(int64_t pid, const std::vector<std::string>& command, int64_t launcherPid,
                     int64_t started);
    // Where orphans would have gone without the profiler (AssemblyInput::orphanReaper): named
    // as the adopter of those the launcher reaped as the tree's subreaper.
    void setOrphanReaper(int64_t pid) { m_orphanReaper = pid; }
    // The process could not write all of its stream (a full disk, said by its own diagnostic):
    // its missing end is not reported as an abrupt end.
    void streamWriteFailed(int64_t pid) { proc(pid).writeFailed = true; }
    // Pairs start/end ranges, closes ranges left open, fills processes, threads and diagnostics.
    void finish(int64_t sessionEnd);
    const MergeStats& stats() const { return m_stats; }
    // --python-sampling with native CPU sampling: Python samples go to `into`, to be joined
    // with the native samples (PythonStacks.h), instead of becoming samples of their own.
    void keepPythonSamples(class PythonStacks* into) { m_pyStacks = into; }
    // An import of a kept session (the profiler was killed or its report failed): a process
    // with no recorded end that no longer runs ended at its last event, its status unknown
    // (the profiler that would have reaped it is gone); before, the report said "running".
    void endGoneProcesses() { m_endGone = true; }
    // --pytorch: processes whose hook said it switched PyTorch's annotations on or failed to.
    size_t pytorchProcesses() const { return m_pytorch.size(); }

private:
    struct OpenPush {
        int64_t start;
        uint32_t message, category, color;
        uint8_t payloadType;
        uint64_t payload;
    };
    // A start/end range whose end never came: it ends with its process (known in finish()).
    struct OpenRange {
        uint32_t track, row;
        int64_t pid;
    };
    struct ProcInfo {
        Process p;
        bool announced = false;  // a stream of its own said ProcessStart
        bool writeFailed = false;
        int64_t lostBlocks = 0;  // sequence gaps in its streams' blocks
        int64_t namespacePid = 0;  // its pid in its own PID namespace, when that differs
        bool pidUnresolved = false;  // its pid is only its namespace's (ProcessStart, PidQuery.h)
        int64_t imageTime = kUnknownTime;  // start of the image that names it (the last exec)
        int64_t commandLineBytes = 0;  // that image's whole command line, when it was cut
        // Who its parent was, by the evidence: the process that recorded creating it, the
        // parent each of its images saw (first and last), the process that reaped it (-1: the
        // launcher). They differ when it was orphaned and adopted.
        int64_t creator = 0;
        int64_t firstParent = 0, firstParentTime = kUnknownTime;
        int64_t lastParent = 0, lastParentTime = kUnknownTime;
        int64_t reaper = 0;
        // Made by vfork: until it execs it runs its parent's code in its parent's memory, so a
        // vfork child that exits without an exec records nothing and is not "untraced".
        bool vforked = false;
        // A fork() child that runs our module before any exec (--trace-fork-before-exec=true):
        // it opens its stream at its first record, so a child killed before it recorded
        // anything has none, and is not "untraced" either.
        bool tracedFork = false;
        int64_t kernelExit = kUnknownTime;  // its last thread's exit, as the kernel saw it
        int64_t mainThreadExit = kUnknownTime;  // its main thread's, as the kernel saw it
        bool kernelOnly = false;  // known only from the kernel's records (processForked)
        uint8_t untraced = 0;  // Untraceable: its last image could not load our module
        bool unseenImage = false;  // its last image was exec'd past our exec interposers
        bool endedCleanly = false;
        int64_t lastStreamEnd = kUnknownTime;
        int64_t lastEventTime = kUnknownTime;
        int streams = 0, incompleteStreams = 0;
        // Record blocks read from its streams (not the final out-of-sequence one): 0 with a
        // stream means none of them could be written.
        int64_t blocks = 0;
    };
    struct StreamCtx;

    bool firstPass(StreamCtx& s, const RawBlock& b);
    void secondPass(StreamCtx& s, const RawBlock& b);
    void onMeta(StreamCtx& s, int64_t tid, const MetaView& m);
    uint32_t pythonStack(StreamCtx& s, std::vector<uint32_t> frames);
    void resolvePython(StreamCtx& s);
    // Native backtraces of the stream (SessionMergerNative.cpp): `pyFrom` is the first of the
    // report's backtraces that resolvePython added for it (a Python stack of the same event is
    // spliced in).
    void resolveNative(StreamCtx& s, size_t pyFrom);
    void onNativeMeta(StreamCtx& s, const MetaView& m);
    // Real parents of processes orphaned while they ran, and who adopted them (Report::reparents).
    void findOrphans();
    void nameThread(int64_t pid, int64_t tid, std::string_view name, int64_t time, bool fromNvtx);
    void onEvent(StreamCtx& s, const uint8_t* rec);
    uint32_t sequentialMessage(StreamCtx& s, const RecordHeader& h, const NvtxFields& f);
    struct NvtxWorker;
    Track* workerTrack(NvtxWorker& w, const TrackKey& key);
    void pairNvtx(const StreamCtx& s, const std::vector<const RawBlock*>& blocks, NvtxWorker& w,
                  int64_t end);
    void pairNvtxParallel(const StreamCtx& s, const std::vector<const RawBlock*>& order,
                          int64_t end, uint64_t bytes);
    bool endRange(StreamCtx& s, uint64_t id, int64_t time, int64_t tid);
    void pairStartEnd(StreamCtx& s);
    ProcInfo& proc(int64_t pid);
    size_t ownTrack(const TrackKey& key);  // its index in m_own
    // Appends a range to its track; returns its (track, row).
    std::pair<uint32_t, uint32_t> addRange(const NvtxRangeEvent& e);
    Thread& thread(int64_t pid, int64_t tid);
    void noteTime(int64_t pid, int64_t t);
    void dropDiagnostic(int64_t pid, int64_t tid, int64_t kind, int64_t count);

    ReportBuilder& m_b;
    std::vector<Track> m_own;  // NVTX tracks, handed to the report in finish()
    std::unordered_map<TrackKey, size_t, TrackKeyHash> m_ownIndex;
    TrackKey m_lastOwnKey;
    size_t m_lastOwn = SIZE_MAX;
    MergeWindow m_window;
    MergeStats m_stats;
    class PythonStacks* m_pyStacks = nullptr;
    std::shared_ptr<class FrameSymbolizer> m_nativeSymbols;  // made at the first native stack
    std::map<int64_t, ProcInfo> m_procs;
    std::map<std::pair<int64_t, int64_t>, Thread> m_threads;
    std::map<std::pair<int64_t, int64_t>, std::pair<bool, int64_t>> m_nameSource;  // (nvtx?, time)
    std::map<std::pair<int64_t, uint32_t>, std::string> m_domains;
    std::map<std::tuple<int64_t, uint32_t, uint32_t>, std::string> m_categories;
    std::vector<OpenRange> m_openRanges;
    std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> m_dropsByThread;
    std::map<std::pair<int64_t, int64_t>, int64_t> m_drops;  // (pid, kind) -> count
    int64_t m_orphanPops = 0, m_unterminated = 0, m_unmatchedEnds = 0;
    int64_t m_unresolvedNames = 0;
    // capture.no_buffer_file of each process (pid, reason): one cause (a file-size or memory
    // limit) gave one line per process of a build; said once, with the count and the first.
    std::vector<std::pair<int64_t, std::string>> m_noBufferFile;
    // Diagnostics a process recorded for one of its threads (osrt.calls_unfinished): summed per
    // process and name in finish(), leaving out the capture's own threads.
    struct ThreadDiagnostic {
        int64_t pid, tid, count;
        std::string name, reason;
    };
    std::vector<ThreadDiagnostic> m_threadDiagnostics;
    bool m_endGone = false;
    int64_t m_rootPid = 0;
    int64_t m_launcherPid = 0;
    int64_t m_orphanReaper = 0;
    std::map<int64_t, std::pair<int64_t, std::string>> m_pytorch;  // pid -> (state, what)
    std::map<int64_t, std::string> m_pyBacktraceOff;  // pid -> why backtraces could not be read
    std::set<std::pair<int64_t, int64_t>> m_toolThreads;  // (pid, tid) of our writer threads
    struct ResourceNameRec {
        int64_t pid, kind, handle, time;
        std::string name;
    };
    std::vector<ResourceNameRec> m_resourceNames;
    // (pid, ResourceKind, handle) -> (device, context, stream) from the CUDA module
    std::map<std::tuple<int64_t, int64_t, int64_t>, std::tuple<int64_t, int64_t, int64_t>>
        m_resourceHandles;
    std::vector<std::string> m_damage;
    struct IncompleteStream {  // a stream without ProcessEnd
        int64_t pid;
        std::string file;
        bool salvaged;
        int64_t recoveredBlocks, recoveredBytes;
    };
    std::vector<IncompleteStream> m_incomplete;
};

}  // namespace sl::capture
