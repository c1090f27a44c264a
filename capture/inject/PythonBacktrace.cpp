#include "capture/inject/PythonBacktrace.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <string>
#include <string_view>

#include "capture/inject/InjectCommon.h"
#include "capture/inject/LazyTable.h"
#include "capture/inject/PythonFrames.h"
#include "capture/inject/PythonLayout.h"

namespace sl::inject::pybt {
namespace {

using GetThreadState = void* (*)();
using Addr2Line = int (*)(void* code, int addr);

struct Interpreter {
    const PythonLayout* layout = nullptr;
    GetThreadState threadState = nullptr;  // PyGILState_GetThisThreadState: a TLS read
    Addr2Line addr2line = nullptr;         // PyCode_Addr2Line: reads the code's line table
    const void* codeType = nullptr;        // &PyCode_Type
};
Interpreter g_py;
std::atomic<bool> g_ready{false};
// Why backtraces are off in this process image (set once by the check), and the stream
// generation that has said so: a forked child's stream says it again.
std::atomic<const std::string*> g_offWhy{nullptr};
std::atomic<uint32_t> g_offSaidInGen{0};

constexpr uint32_t kMaxDepth = 256;

template <class T>
inline T at(const void* base, size_t offset) {
    T v;
    std::memcpy(&v, static_cast<const char*>(base) + offset, sizeof v);
    return v;
}

// A str object's text, when it can be had without the C API: compact ASCII (almost every
// identifier and path), or a compact string whose UTF-8 copy Python already made.
std::string_view textOf(const void* str) {
    const PythonLayout& l = *g_py.layout;
    if (!str) return {};
    const uint32_t state = at<uint32_t>(str, l.strState);
    if (!(state & l.stateCompact)) return {};
    if (state & l.stateAscii)
        return {static_cast<const char*>(str) + l.asciiHeader,
                static_cast<size_t>(at<int64_t>(str, l.strLength))};
    const char* utf8 = at<const char*>(str, l.compactUtf8);
    return utf8 ? std::string_view(utf8, static_cast<size_t>(at<int64_t>(str, l.compactUtf8Length)))
                : std::string_view{};
}

// (code, instruction) -> frame id, lock-free. A code object freed and another made at its
// address is told apart by its names (compared on every hit).
struct CacheSlot {
    std::atomic<uint64_t> key{0};    // code >> 3 << 20 | instruction offset; 0: empty
    std::atomic<uint64_t> names{0};  // qualname ^ filename pointers of that code object
    std::atomic<uint32_t> id{0};     // 0: being defined
};
constexpr uint32_t kCacheSlots = 1u << 16;
// Mapped at the first backtrace (LazyTable.h): no cost, not even address space, to a process
// that takes none.
constinit LazyTable<CacheSlot, kCacheSlots> g_cache;

uint32_t frameIdOf(const void* code, int64_t addr) {
    const PythonLayout& l = *g_py.layout;
    const void* qualname = at<const void*>(code, l.codeQualname);
    const void* filename = at<const void*>(code, l.codeFilename);
    const uint64_t names = reinterpret_cast<uintptr_t>(qualname) ^ reinterpret_cast<uintptr_t>(filename);
    const bool cacheable = addr >= 0 && addr < (1 << 20);
    const uint64_t key = (uint64_t{reinterpret_cast<uintptr_t>(code)} >> 3 << 20) | uint64_t(addr);
    uint32_t slot = static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ULL) >> 48);
    CacheSlot* claimed = nullptr;
    CacheSlot* cache = cacheable ? g_cache.get() : nullptr;
    for (int probe = 0; cache && probe < 16; ++probe, slot = (slot + 1) & (kCacheSlots - 1)) {
        CacheSlot& s = cache[slot];
        uint64_t k = s.key.load(std::memory_order_acquire);
        if (k == 0 && s.key.compare_exchange_strong(k, key, std::memory_order_acq_rel)) {
            claimed = &s;
            break;
        }
        if (k == key) {
            const uint32_t id = s.id.load(std::memory_order_acquire);
            if (id && s.names.load(std::memory_order_relaxed) == names) return id;
            break;  // being defined by another thread, or another code object now: define anew
        }
    }
    const int line = addr >= 0 ? g_py.addr2line(const_cast<void*>(code), static_cast<int>(addr)) : 0;
    const uint32_t id = pyframes::define(textOf(qualname), textOf(filename), line);
    if (claimed) {
        claimed->names.store(names, std::memory_order_relaxed);
        claimed->id.store(id, std::memory_order_release);
    }
    return id;
}

// Calls onFrame(code, instruction offset in bytes) for each frame of the calling thread's
// Python stack that Python itself would show, leaf first; stops when it returns false.
template <class OnFrame>
void visit(OnFrame onFrame) {
    const PythonLayout& l = *g_py.layout;
    const void* tstate = g_py.threadState();
    if (!tstate) return;  // this thread never ran Python
    const void* frame = nullptr;
    if (l.cframeOffset == kNone) {
        frame = at<const void*>(tstate, l.currentFrameOffset);
    } else if (const void* cframe = at<const void*>(tstate, l.cframeOffset)) {
        frame = at<const void*>(cframe, l.currentFrameOffset);
    }
    for (uint32_t seen = 0; frame && seen < 4 * kMaxDepth;
         ++seen, frame = at<const void*>(frame, l.framePrevious)) {
        const void* code = at<const void*>(frame, l.frameCode);
        if (!code || at<const void*>(code, 8) != g_py.codeType) return;  // ob_type: not ours to read
        const int owner = at<char>(frame, l.frameOwner);
        if (owner == l.ownedByCStack) continue;  // an entry shim, not the program's code
        const char* start = static_cast<const char*>(code) + l.codeAdaptive;
        const char* instr = at<const char*>(frame, l.frameInstr);
        const int firstTraceable = at<int>(code, l.codeFirstTraceable);
        if (owner != l.ownedByGenerator && instr < start + 2 * firstTraceable)
            continue;  // not started yet (incomplete): Python leaves it out too
        if (!onFrame(code, instr - start)) return;
    }
}

// The frame ids of the calling thread's Python stack, leaf first.
uint32_t walk(uint32_t* ids, uint32_t max) {
    uint32_t n = 0;
    visit([&](const void* code, int64_t addr) {
        if (const uint32_t id = frameIdOf(code, addr)) ids[n++] = id;
        return n < max;
    });
    return n;
}

void sayState(int64_t state, std::string_view text) {
    int64_t ints[2] = {capture::nowNs(), state};
    ProcessWriter::emitMeta(capture::MetaKind::PythonBacktraceState, ints, 2, &text, 1);
}

template <class F>
F symbol(const char* name) {
    return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

// Resolves the interpreter and reads the caller's stack with its layout; "" when it matches
// `expected` ("qualname|file|line" per frame, leaf first, one per line; a line of "-" is not
// compared), otherwise why not.
std::string check(std::string_view expected) {
    const auto* version = symbol<const unsigned long*>("Py_Version");  // 3.11+
    if (!version) return "not CPython 3.11 or later (no Py_Version)";
    const uint32_t major = (*version >> 24) & 0xFF, minor = (*version >> 16) & 0xFF;
    const std::string name = "CPython " + std::to_string(major) + "." + std::to_string(minor);
    g_py.layout = major == 3 ? pythonLayoutFor(minor) : nullptr;
    if (!g_py.layout) return name + " (backtraces are read on 3.11 to 3.13)";
    g_py.threadState = symbol<GetThreadState>("PyGILState_GetThisThreadState");
    g_py.addr2line = symbol<Addr2Line>("PyCode_Addr2Line");
    g_py.codeType = symbol<const void*>("PyCode_Type");
    if (!g_py.threadState || !g_py.addr2line || !g_py.codeType)
        return name + " without PyGILState_GetThisThreadState, PyCode_Addr2Line or PyCode_Type";
    std::string seen;
    size_t pos = 0, frames = 0;
    bool same = true;
    visit([&](const void* code, int64_t addr) {
        const size_t eol = expected.find('\n', pos);
        const std::string_view want =
            expected.substr(pos, eol == std::string_view::npos ? eol : eol - pos);
        pos = eol == std::string_view::npos ? expected.size() : eol + 1;
        const PythonLayout& l = *g_py.layout;
        std::string got = std::string(textOf(at<const void*>(code, l.codeQualname))) + "|" +
                          std::string(textOf(at<const void*>(code, l.codeFilename))) + "|";
        const bool compareLine = !want.ends_with("|-");
        got += compareLine ? std::to_string(g_py.addr2line(const_cast<void*>(code), int(addr))) : "-";
        seen += (seen.empty() ? "" : ", ") + got;
        same = same && got == want;
        ++frames;
        return same && pos < expected.size();
    });
    if (same && frames >= 2 && pos >= expected.size()) return {};
    return name + ": the interpreter's frames do not read as expected (a debug or patched build?): "
                  "read " + (seen.empty() ? std::string("no frames") : seen);
}

}  // namespace

bool ready() {
    return g_ready.load(std::memory_order_relaxed);
}

void recordFor(int64_t time, EventKind kind) {
    if (!ready()) {
        const std::string* why = g_offWhy.load(std::memory_order_acquire);
        if (!why) return;
        const uint32_t gen = ProcessWriter::generation();
        uint32_t said = g_offSaidInGen.load(std::memory_order_relaxed);
        if (said != gen && g_offSaidInGen.compare_exchange_strong(said, gen)) {
            ProcessWriter::ToolScope scope;
            sayState(2, *why);
        }
        return;
    }
    ProcessWriter::ToolScope scope;
    uint32_t ids[kMaxDepth];
    const uint32_t n = walk(ids, kMaxDepth);
    if (!n) return;
    pyframes::defineAgainIfNewStream();
    // The same place again (the common case): the stack's id, one small record; else the frames.
    if (const uint32_t stack = pyframes::stackOf(ids, n)) {
        int64_t ints[5] = {currentTid(), time, 0, static_cast<int64_t>(kind), stack};
        ProcessWriter::emitMeta(capture::MetaKind::PythonBacktrace, ints, 5, nullptr, 0);
        return;
    }
    int64_t ints[4] = {currentTid(), time, n, static_cast<int64_t>(kind)};
    std::string_view blob(reinterpret_cast<const char*>(ids), size_t{n} * 4);
    ProcessWriter::emitMeta(capture::MetaKind::PythonBacktrace, ints, 4, &blob, 1);
}

}  // namespace sl::inject::pybt

// --python-backtrace=cuda (PythonBacktraceHook.h): the CUDA module's callback at an API call's
// entry. The record's time field holds the call's correlation id (kind CudaApi).
SL_EXPORT void sightline_python_backtrace_cuda(uint32_t correlationId) {
    sl::inject::pybt::recordFor(static_cast<int64_t>(correlationId), sl::EventKind::CudaApi);
}

// Called by the start-up hook (--python-backtrace) from a known stack: resolves the
// interpreter's functions, picks its layout and reads the hook's own stack with it, which must
// match `expected` (what Python itself says the stack is: pybt::check). Returns 1 when
// backtraces are on; otherwise 0, and a PythonBacktraceState record says why.
SL_EXPORT int sightline_pybt_enable(const char* expected) {
    using namespace sl::inject;
    if (!ProcessWriter::active()) return 0;
    ProcessWriter::ToolScope scope;
    const std::string why = pybt::check(expected ? expected : "");
    if (!why.empty()) {
        pybt::sayState(2, why);
        pybt::g_offSaidInGen.store(ProcessWriter::generation());
        pybt::g_offWhy.store(new std::string(why), std::memory_order_release);
        return 0;
    }
    pybt::g_ready.store(true, std::memory_order_release);
    return 1;
}
