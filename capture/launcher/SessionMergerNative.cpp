// SessionMerger: native backtraces (NativeBacktrace and NativeModule records, RawFormat.h):
// --osrt-backtrace-threshold's stacks of OS runtime calls, symbolized here with the ELF files
// the process had loaded (FrameSymbolizer), after the process is gone.
//
// A call that also has a Python stack (--python-backtrace=osrt) gets one stack, spliced as the
// CPU samples are (PythonStacks::splice): the native frames from the call up to the first
// frame in the Python interpreter, then the Python frames. The interpreter's own frames say
// nothing the Python frames do not, and one stack per event is what every viewer and exporter
// already shows.
#include <cstring>
#include <map>

#include "capture/launcher/FrameSymbolizer.h"
#include "capture/launcher/PythonStacks.h"
#include "capture/launcher/SessionMerger.h"
#include "capture/launcher/SessionMergerStream.h"

namespace sl::capture {

namespace {
constexpr unsigned kOffsetBits = 48;
constexpr uint64_t kOffsetMask = (uint64_t{1} << kOffsetBits) - 1;
}  // namespace

void SessionMerger::onNativeMeta(StreamCtx& s, const MetaView& m) {
    if (m.kind == MetaKind::NativeModule) {
        // Ids are given in order from 1: one far past those seen is damage.
        const int64_t id = m.i(0);
        if (id <= 0 || id > int64_t(s.nativeModules.size()) + kMaxStringIdGap || m.s(0).empty()) {
            ++s.nativeUnresolved;
            return;
        }
        if (size_t(id) >= s.nativeModules.size()) s.nativeModules.resize(size_t(id) + 1);
        s.nativeModules[size_t(id)] = std::string(m.s(0));
        return;
    }
    StreamCtx::PendingNative p;
    p.b.pid = s.pid;
    p.b.tid = m.i(0);
    p.b.start = m.i(1);
    p.b.kind = static_cast<EventKind>(m.i(3));
    const int64_t count = m.i(2);
    const std::string_view blob = m.s(0);
    if ((p.b.kind != EventKind::OsRuntime && p.b.kind != EventKind::CudaApi) || count <= 0 ||
        size_t(count) * 8 != blob.size()) {
        ++s.nativeUnresolved;  // damaged
        return;
    }
    // A CUDA API call's holds its correlation id, not a time: its call, if outside the
    // window, is not in the report anyway.
    if (!m_window.contains(p.b.start) && p.b.kind != EventKind::CudaApi) return;
    p.frames.resize(size_t(count));
    std::memcpy(p.frames.data(), blob.data(), blob.size());
    s.nativePending.push_back(std::move(p));
}

void SessionMerger::resolveNative(StreamCtx& s, size_t pyFrom) {
    if (s.nativePending.empty()) {
        if (s.nativeUnresolved)
            m_b.addDiagnostic("native_backtrace.unresolved", s.nativeUnresolved,
                              "native backtrace records that were damaged, left out", s.pid);
        return;
    }
    if (!m_nativeSymbols) m_nativeSymbols = std::make_shared<FrameSymbolizer>();
    Report& r = m_b.report();
    // The Python stacks resolvePython gave this stream's OS runtime calls, by event.
    std::map<std::tuple<EventKind, int64_t, int64_t, int64_t>, size_t> python;
    for (size_t i = pyFrom; i < r.backtraces.size(); ++i) python[r.backtraces[i].key()] = i;
    const uint32_t unknown = m_b.intern("[unknown]");
    std::vector<uint32_t> frames;
    std::vector<bool> interpreter;
    for (auto& p : s.nativePending) {
        frames.clear();
        interpreter.clear();
        bool undefined = false;
        for (const uint64_t f : p.frames) {
            const size_t module = size_t(f >> kOffsetBits);
            StackFrame sf;
            sf.offset = f & kOffsetMask;
            if (module == 0) {
                sf.module = unknown;  // not in a loaded ELF module (JIT code): the address
                interpreter.push_back(false);
            } else if (module >= s.nativeModules.size() || s.nativeModules[module].empty()) {
                undefined = true;
                break;
            } else {
                const std::string& path = s.nativeModules[module];
                sf.module = m_b.intern(path);
                sf.function = m_b.intern(m_nativeSymbols->function(path, sf.offset));
                interpreter.push_back(PythonStacks::isInterpreterModule(path));
            }
            frames.push_back(m_b.frameId(sf));
        }
        if (undefined) {
            ++s.nativeUnresolved;
            continue;
        }
        if (p.b.kind == EventKind::CudaApi) {
            m_b.addBacktraceByCorrelation(p.b.pid, static_cast<uint32_t>(p.b.start),
                                          m_b.stackId(frames));
            continue;
        }
        if (auto it = python.find(p.b.key()); it != python.end()) {
            EventBacktrace& b = r.backtraces[it->second];
            const std::vector<uint32_t> py = r.callStacks[b.stack].frames;
            b.stack = m_b.stackId(PythonStacks::splice(
                frames, py, [&](size_t i) { return bool(interpreter[i]); }));
            continue;
        }
        p.b.stack = m_b.stackId(frames);
        r.backtraces.push_back(p.b);
    }
    if (s.nativeUnresolved)
        m_b.addDiagnostic("native_backtrace.unresolved", s.nativeUnresolved,
                          "native backtraces that named a module their stream never defined, or "
                          "were damaged (a cut stream), left out",
                          s.pid);
    s.nativePending.clear();
    s.nativePending.shrink_to_fit();
}

}  // namespace sl::capture
