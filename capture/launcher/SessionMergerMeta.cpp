// SessionMerger: metadata records (processes, threads, names, domains, CUDA entities).
#include "capture/launcher/SessionMerger.h"
#include "capture/launcher/PythonStacks.h"
#include "capture/launcher/SessionMergerStream.h"

#include <algorithm>
#include <cstring>

namespace sl::capture {

// nvtxNameOsThread wins over OS names (as in nsys); among names of one source the latest wins
// (a rename, an exec). Records come grouped by the thread that wrote them, so compare times.
void SessionMerger::nameThread(int64_t pid, int64_t tid, std::string_view name, int64_t time,
                               bool fromNvtx) {
    if (name.empty()) return;
    Thread& t = thread(pid, tid);
    auto [it, fresh] = m_nameSource.try_emplace({pid, tid}, std::make_pair(false, INT64_MIN));
    auto& [bestNvtx, bestTime] = it->second;
    if (!fresh && bestNvtx && !fromNvtx) return;
    if (!fresh && bestNvtx == fromNvtx && time < bestTime) return;
    t.name = std::string(name);
    bestNvtx = fromNvtx;
    bestTime = time;
}

// The report stack of stream-local Python frame ids (leaf first), or UINT32_MAX when one
// names a frame its stream never defined (a damaged or cut stream).
uint32_t SessionMerger::pythonStack(StreamCtx& s, std::vector<uint32_t> frames) {
    for (uint32_t& f : frames) {
        if (f >= s.pyFrames.size() || s.pyFrames[f] == UINT32_MAX) return UINT32_MAX;
        f = s.pyFrames[f];
    }
    return m_b.stackId(std::move(frames));
}

void SessionMerger::resolvePython(StreamCtx& s) {
    s.pyStackReport.assign(s.pyStackDefs.size(), UINT32_MAX - 1);  // MAX - 1: not resolved yet
    for (auto& p : s.pyPending) {
        uint32_t stack;
        if (p.streamStack) {
            if (p.streamStack >= s.pyStackDefs.size() || s.pyStackDefs[p.streamStack].empty()) {
                stack = UINT32_MAX;
            } else {
                uint32_t& memo = s.pyStackReport[p.streamStack];
                if (memo == UINT32_MAX - 1) memo = pythonStack(s, s.pyStackDefs[p.streamStack]);
                stack = memo;
            }
        } else {
            stack = pythonStack(s, std::move(p.ids));
        }
        if (stack == UINT32_MAX) {
            ++s.pySamplesUnresolved;
            continue;
        }
        if (p.b.kind == EventKind::CudaApi) {
            m_b.addBacktraceByCorrelation(p.b.pid, static_cast<uint32_t>(p.b.start), stack);
            continue;
        }
        if (p.b.kind != EventKind::CpuSample) {
            p.b.stack = stack;
            m_b.report().backtraces.push_back(p.b);
            continue;
        }
        CpuSampleEvent e;
        e.pid = p.b.pid;
        e.tid = p.b.tid;
        e.time = p.b.start;
        e.name = m_b.report().stackFrames[m_b.report().callStacks[stack].frames[0]].function;
        e.stack = stack;
        if (m_pyStacks)
            m_pyStacks->add(e.pid, e.tid, e.time, e.stack);  // joined with native samples
        else
            m_b.add(e);
    }
    s.pyPending.clear();
    s.pyPending.shrink_to_fit();
}

void SessionMerger::onMeta(StreamCtx& s, int64_t blockTid, const MetaView& m) {
    const int64_t pid = s.pid;
    switch (m.kind) {
        case MetaKind::ProcessStart: {
            ProcInfo& p = proc(pid);
            int64_t t = m.i(2);
            if (!p.announced || p.imageTime == kUnknownTime || t >= p.imageTime) {
                // The latest image (after exec) names the process, whatever order its streams
                // are read in.
                p.imageTime = t;
                p.untraced = 0;
                p.p.name = std::string(m.s(0));
                p.p.commandLine = std::string(m.s(1));
                p.commandLineBytes = m.i(6);
            }
            if (p.firstParentTime == kUnknownTime || t < p.firstParentTime)
                p.firstParent = m.i(1), p.firstParentTime = t;
            if (p.lastParentTime == kUnknownTime || t >= p.lastParentTime)
                p.lastParent = m.i(1), p.lastParentTime = t;
            if (!p.creator) p.p.parentPid = p.firstParent;
            if (p.p.start == kUnknownTime || t < p.p.start) p.p.start = t;
            p.announced = true;
            if (m.i(4) != 0 && m.i(4) != pid) p.namespacePid = m.i(4);
            if (m.i(5) != 0) p.pidUnresolved = true;
            break;
        }
        case MetaKind::ProcessEnd: {
            ProcInfo& p = proc(pid);
            // An exec or a seal (seccomp) ends the stream, not the process.
            if (m.i(3) == static_cast<int64_t>(ExitHow::Exec) ||
                m.i(3) == static_cast<int64_t>(ExitHow::Sealed))
                break;
            // Several modules (inject, cupti) each end their stream: the latest time wins, and
            // an exit code or signal is taken from whichever stream knows it.
            if (!p.reaper) {  // the reaper's status wins
                if (p.p.end == kUnknownTime || m.i(0) > p.p.end) p.p.end = m.i(0);
                if (m.i(2) != 0) p.p.exitSignal = static_cast<int32_t>(m.i(2));
                if (m.i(1) >= 0) p.p.exitCode = static_cast<int32_t>(m.i(1));
            }
            if (p.lastStreamEnd == kUnknownTime || m.i(0) > p.lastStreamEnd)
                p.lastStreamEnd = m.i(0);
            break;
        }
        case MetaKind::MpiRank: {
            ProcInfo& p = proc(pid);
            p.p.mpiRank = static_cast<int32_t>(m.i(0));
            p.p.mpiWorldSize = static_cast<int32_t>(m.i(1));
            break;
        }
        case MetaKind::ChildCreated: {
            ProcInfo& c = proc(m.i(0));
            c.creator = pid;  // the real parent, whoever adopts it later
            c.vforked = static_cast<ChildVia>(m.i(2)) == ChildVia::Vfork;
            c.tracedFork = m.i(3) != 0;
            c.p.parentPid = pid;
            if (c.p.start == kUnknownTime || m.i(1) < c.p.start) c.p.start = m.i(1);
            if (!c.announced && c.p.name.empty()) {
                const ProcInfo& parent = proc(pid);
                c.p.name = parent.p.name;
                c.p.commandLine = parent.p.commandLine;
            }
            break;
        }
        case MetaKind::ChildReaped:
            processExited(m.i(0), m.i(1), static_cast<int>(m.i(2)), static_cast<int>(m.i(3)), pid);
            break;
        case MetaKind::ThreadStart: {
            Thread& t = thread(pid, m.i(0));
            // The main thread starts again with each exec: its first start stays.
            if (t.start == kUnknownTime || m.i(1) < t.start) t.start = m.i(1);
            nameThread(pid, m.i(0), m.s(0), m.i(1), false);
            break;
        }
        case MetaKind::ThreadEnd:
            thread(pid, m.i(0)).end = m.i(1);
            break;
        case MetaKind::ThreadName: {
            // nvtxNameOsThread wins over OS names (as in nsys); among names of one source the
            // latest wins. Records come grouped by the thread that wrote them, so compare times.
            if (m.i(2) == 2) {  // the capture's own writer thread: not the program's
                m_toolThreads.insert({pid, m.i(0)});
                break;
            }
            nameThread(pid, m.i(0), m.s(0), m.i(1), m.i(2) == 1);
            break;
        }
        case MetaKind::DomainCreate:
            m_domains[{pid, static_cast<uint32_t>(m.i(0))}] = std::string(m.s(0));
            break;
        case MetaKind::Category:
            m_categories[{pid, static_cast<uint32_t>(m.i(0)), static_cast<uint32_t>(m.i(1))}] =
                std::string(m.s(0));
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
        case MetaKind::Diagnostic:
            if (m.s(0) == "capture.no_buffer_file")
                m_noBufferFile.emplace_back(pid, std::string(m.s(1)));
            else if (m.intCount > 1)  // a thread's: counted once the capture's threads are known
                m_threadDiagnostics.push_back(
                    {pid, m.i(1), m.i(0), std::string(m.s(0)), std::string(m.s(1))});
            else
                m_b.addDiagnostic(m.s(0), m.i(0), m.s(1), pid);
            break;
        case MetaKind::UntracedImage: {
            ProcInfo& p = proc(m.i(0));
            const int64_t t = m.i(1);
            if (p.imageTime != kUnknownTime && t < p.imageTime) break;  // an exec that failed
            p.imageTime = t;
            p.untraced = static_cast<uint8_t>(m.i(2));
            std::string_view path = m.s(0);
            p.p.name = std::string(path.substr(path.find_last_of('/') + 1));
            p.p.commandLine = std::string(m.s(1));
            break;
        }
        case MetaKind::PythonFrame: {
            // Ids are given in order from 1 (the hook's table): one far past those seen is
            // damage and must not size the table.
            const int64_t id = m.i(0);
            if (id <= 0 || id > int64_t(s.pyFrames.size()) + kMaxStringIdGap) break;
            if (size_t(id) >= s.pyFrames.size()) s.pyFrames.resize(size_t(id) + 1, UINT32_MAX);
            // A Python frame: the function, its source file as the module, the line as the
            // offset (Report::frameText shows "function (file.py:line)").
            StackFrame f;
            f.function = m_b.intern(m.s(0));
            f.module = m_b.intern(m.s(1));
            f.offset = static_cast<uint64_t>(std::max<int64_t>(m.i(1), 0));
            s.pyFrames[size_t(id)] = m_b.frameId(f);
            break;
        }
        case MetaKind::PythonSample:
        case MetaKind::PythonBacktrace: {
            // Sample: {tid, time, frameCount} {frame ids}. Backtrace: {tid, time, frameCount,
            // kind} {frame ids}, the stack of that thread's event of `kind` starting at `time`.
            // Resolved when the whole stream has been read (resolvePython).
            StreamCtx::PendingPython p;
            p.b.pid = pid;
            p.b.tid = m.i(0);
            p.b.start = m.i(1);
            p.b.kind = m.kind == MetaKind::PythonSample ? EventKind::CpuSample
                                                        : static_cast<EventKind>(m.i(3));
            const std::string_view ids = m.s(0);
            const int64_t count = m.i(2);
            const bool kindOk = p.b.kind == EventKind::CpuSample || p.b.kind == EventKind::OsRuntime ||
                                p.b.kind == EventKind::NvtxRange || p.b.kind == EventKind::NvtxMark ||
                                p.b.kind == EventKind::CudaApi;
            // A backtrace naming a stack: {tid, time, 0, kind, stackId}.
            const bool named = m.kind == MetaKind::PythonBacktrace && count == 0 && m.i(4) > 0 &&
                               m.i(4) <= int64_t(s.pyStackDefs.size()) + kMaxStringIdGap;
            if (!kindOk || (!named && (count <= 0 || size_t(count) * 4 != ids.size()))) {
                ++s.pySamplesUnresolved;  // damaged
                break;
            }
            // Samples joined with native ones are kept whatever their time (PythonStacks). A
            // CUDA API call's backtrace holds its correlation id, not a time
            // (PythonBacktraceHook.h): its call, if outside the window, is not in the report.
            if (!m_window.contains(p.b.start) && !(m_pyStacks && p.b.kind == EventKind::CpuSample) &&
                p.b.kind != EventKind::CudaApi)
                break;
            if (named) {
                p.streamStack = static_cast<uint32_t>(m.i(4));
            } else {
                p.ids.resize(static_cast<size_t>(count));
                std::memcpy(p.ids.data(), ids.data(), ids.size());
            }
            s.pyPending.push_back(std::move(p));
            break;
        }
        case MetaKind::PythonStack: {
            // Ids are given in order from 1: one far past those seen is damage.
            const int64_t id = m.i(0), count = m.i(1);
            const std::string_view ids = m.s(0);
            if (id <= 0 || id > int64_t(s.pyStackDefs.size()) + kMaxStringIdGap || count <= 0 ||
                size_t(count) * 4 != ids.size()) {
                ++s.pySamplesUnresolved;
                break;
            }
            if (size_t(id) >= s.pyStackDefs.size()) s.pyStackDefs.resize(size_t(id) + 1);
            auto& def = s.pyStackDefs[size_t(id)];
            def.resize(static_cast<size_t>(count));
            std::memcpy(def.data(), ids.data(), ids.size());
            break;
        }
        case MetaKind::PythonBacktraceState:
            m_pyBacktraceOff[pid] = std::string(m.s(0));
            break;
        case MetaKind::NativeBacktrace:
        case MetaKind::NativeModule:
            onNativeMeta(s, m);
            break;
        case MetaKind::PyTorchState:
            m_pytorch[pid] = {m.i(1), std::string(m.s(0))};
            break;
        default:
            break;  // Drops are counted in the second pass; unknown kinds are skipped
    }
    (void)blockTid;
}

}  // namespace sl::capture
