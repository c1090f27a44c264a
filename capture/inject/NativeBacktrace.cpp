#include "capture/inject/NativeBacktrace.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string_view>

#include "capture/inject/InjectCommon.h"

namespace sl::inject::nbt {
namespace {

constexpr uint32_t kMaxDepth = 256;
// Frames of our own (the interposer, recordOsrt, this file) above the program's: at most this
// many are unwound besides the requested depth.
constexpr uint32_t kOwnFrames = 8;
// CUDA API calls: the CUDA module's callback and CUPTI's frames above the call, at most.
constexpr uint32_t kCallbackFrames = 16;
constexpr uint32_t kMaxModules = 512;
constexpr uint32_t kMaxSegments = 6;
constexpr unsigned kOffsetBits = 48;

struct Segment {
    uintptr_t start, end;  // run-time addresses of a PT_LOAD segment
    uint64_t fileOffset;   // the file offset of `start`
};
struct Module {
    uintptr_t lo = 0, hi = 0;  // the span of its executable segments
    uint32_t segments = 0;
    Segment seg[kMaxSegments] = {};
    uint32_t id = 0;                           // from 1, never reused in this process
    std::atomic<uint32_t> definedInGen{~0u};   // the stream generation that has its NativeModule
    char path[512] = {};
};

// The table of loaded modules. Rebuilt (under the spin lock) when the loader's counters say a
// module came or went; ids are kept for a module still loaded at the same base with the same path.
// constinit: the module's constructor fills it before this file's dynamic initializers would run.
constinit Module g_mods[kMaxModules];
uint32_t g_modCount = 0;
uint32_t g_nextId = 1;
unsigned long long g_adds = ~0ull, g_subs = ~0ull;
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;
uintptr_t g_selfLo = 0, g_selfHi = 0;  // our own executable code
char g_exe[512] = {};                  // the main program's path ("" in dl_iterate_phdr)

struct Lock {
    Lock() {
        while (g_lock.test_and_set(std::memory_order_acquire)) {}
    }
    ~Lock() { g_lock.clear(std::memory_order_release); }
};

int readCounters(dl_phdr_info* info, size_t size, void* data) {
    auto* out = static_cast<unsigned long long*>(data);
    if (size < offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) return 1;
    out[0] = info->dlpi_adds;
    out[1] = info->dlpi_subs;
    return 1;  // the counters are the same in every entry: one is enough
}

struct Rebuild {
    Module* old;  // the previous table (ids of modules still there are kept)
    uint32_t oldCount;
    Module* out;
    uint32_t count;
};

int addModule(dl_phdr_info* info, size_t, void* data) {
    auto& r = *static_cast<Rebuild*>(data);
    if (r.count >= kMaxModules) return 1;
    Module& m = r.out[r.count];
    m.segments = 0;
    m.lo = UINTPTR_MAX;
    m.hi = 0;
    for (int i = 0; i < info->dlpi_phnum && m.segments < kMaxSegments; ++i) {
        const ElfW(Phdr)& p = info->dlpi_phdr[i];
        if (p.p_type != PT_LOAD || !(p.p_flags & PF_X)) continue;
        const uintptr_t start = info->dlpi_addr + p.p_vaddr;
        m.seg[m.segments++] = {start, start + p.p_memsz, p.p_offset};
        m.lo = std::min(m.lo, start);
        m.hi = std::max<uintptr_t>(m.hi, start + p.p_memsz);
    }
    if (!m.segments) return 0;
    const char* name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : g_exe;
    // The vDSO has no file: FrameSymbolizer reads "[vdso]" from its own process.
    if (std::string_view(name).find("vdso") != std::string_view::npos && name[0] != '/')
        name = "[vdso]";
    std::strncpy(m.path, name, sizeof m.path - 1);
    m.path[sizeof m.path - 1] = 0;
    m.id = 0;
    for (uint32_t i = 0; i < r.oldCount; ++i)
        if (r.old[i].lo == m.lo && std::strcmp(r.old[i].path, m.path) == 0) {
            m.id = r.old[i].id;
            m.definedInGen.store(r.old[i].definedInGen.load(std::memory_order_relaxed),
                                 std::memory_order_relaxed);
            break;
        }
    if (!m.id) {
        m.id = g_nextId < (1u << (64 - kOffsetBits)) ? g_nextId++ : 0;
        m.definedInGen.store(~0u, std::memory_order_relaxed);
    }
    ++r.count;
    return 0;
}

// Under the lock: the table again when the loader's counters changed since it was built.
void refreshLocked() {
    unsigned long long counters[2] = {0, 0};
    dl_iterate_phdr(readCounters, counters);
    if (counters[0] == g_adds && counters[1] == g_subs) return;
    static constinit Module scratch[kMaxModules];  // the old table while the new one is made
    for (uint32_t i = 0; i < g_modCount; ++i) {
        scratch[i].lo = g_mods[i].lo;
        scratch[i].id = g_mods[i].id;
        scratch[i].definedInGen.store(g_mods[i].definedInGen.load(std::memory_order_relaxed));
        std::memcpy(scratch[i].path, g_mods[i].path, sizeof scratch[i].path);
    }
    Rebuild r{scratch, g_modCount, g_mods, 0};
    dl_iterate_phdr(addModule, &r);
    g_modCount = r.count;
    g_adds = counters[0];
    g_subs = counters[1];
}

const Module* moduleOf(uintptr_t pc) {
    for (uint32_t i = 0; i < g_modCount; ++i)
        if (pc >= g_mods[i].lo && pc < g_mods[i].hi) return &g_mods[i];
    return nullptr;
}

// Says which file a module id is in this stream, once per stream generation (a forked child's
// stream says it again).
void define(const Module& m) {
    const uint32_t gen = ProcessWriter::generation();
    auto& said = const_cast<std::atomic<uint32_t>&>(m.definedInGen);
    if (said.load(std::memory_order_relaxed) == gen) return;
    said.store(gen, std::memory_order_relaxed);
    int64_t ints[2] = {m.id, static_cast<int64_t>(m.lo)};
    std::string_view path(m.path);
    ProcessWriter::emitMeta(capture::MetaKind::NativeModule, ints, 2, &path, 1);
}

}  // namespace

std::atomic<bool> g_initDone{false};

void init() {
    if (g_initDone.exchange(true)) return;
    ProcessWriter::ToolScope scope;
    void* warm[4];
    backtrace(warm, 4);  // loads libgcc_s now, not inside the first slow call
    const ssize_t n = readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
    g_exe[n > 0 ? n : 0] = 0;
    Dl_info self{};
    if (dladdr(reinterpret_cast<void*>(&init), &self)) {
        Lock lock;
        refreshLocked();
        if (const Module* m = moduleOf(reinterpret_cast<uintptr_t>(&init))) {
            g_selfLo = m->lo;
            g_selfHi = m->hi;
        }
    }
}

void afterForkChild() {
    g_lock.clear(std::memory_order_relaxed);
    g_modCount = 0;
    g_adds = g_subs = ~0ull;
}

void recordFor(int64_t time, EventKind kind, uint32_t depth) {
    ProcessWriter::ToolScope scope;
    depth = std::min(depth, kMaxDepth);
    void* pcs[kMaxDepth + kOwnFrames + kCallbackFrames];
    const int n = backtrace(pcs, static_cast<int>(depth + kOwnFrames +
                                                  (kind == EventKind::CudaApi ? kCallbackFrames : 0)));
    // Our own frames are not the program's: the interposer and this file above it, and the
    // wrapper of main below it (ProcessInterpose.cpp) are left out.
    int kept = 0;
    for (int i = 0; i < n; ++i) {
        const auto pc = reinterpret_cast<uintptr_t>(pcs[i]);
        if (pc < g_selfLo || pc >= g_selfHi) pcs[kept++] = pcs[i];
    }
    uint64_t frames[kMaxDepth];
    uint32_t count = 0;
    {
        Lock lock;
        refreshLocked();
        // A CUDA API call's stack is taken in CUPTI's callback: the CUDA module's and CUPTI's
        // frames above the program's call are left out too.
        int first = 0;
        if (kind == EventKind::CudaApi)
            while (first < kept) {
                const Module* m = moduleOf(reinterpret_cast<uintptr_t>(pcs[first]) - 1);
                if (!m || (!std::strstr(m->path, "libsightline") && !std::strstr(m->path, "libcupti")))
                    break;
                ++first;
            }
        for (int k = first; k < kept && count < depth; ++k) {
            // A return address: the call is the instruction before it (what the symbolizer
            // must look up, for a call that is the last instruction of its function).
            const uintptr_t pc = reinterpret_cast<uintptr_t>(pcs[k]) - 1;
            const Module* m = moduleOf(pc);
            // Our library wrappers (<modules>/sightline/libsightline-nccl.so, -cublas, ...) sit
            // between a library's frames and the program's caller: they are the profiler's, not
            // the program's. (Only in our modules' folder: a program's own libsightline-*.so
            // elsewhere stays.)
            if (m && std::strstr(m->path, "/sightline/libsightline-")) continue;
            uint64_t& frame = frames[count++];
            frame = pc & ((uint64_t{1} << kOffsetBits) - 1);  // module 0: the address
            if (!m || !m->id) continue;
            for (uint32_t s = 0; s < m->segments; ++s)
                if (pc >= m->seg[s].start && pc < m->seg[s].end) {
                    frame = (uint64_t{m->id} << kOffsetBits) |
                            (m->seg[s].fileOffset + (pc - m->seg[s].start));
                    break;
                }
            define(*m);
        }
    }
    if (!count) return;
    int64_t ints[4] = {currentTid(), time, count, static_cast<int64_t>(kind)};
    std::string_view blob(reinterpret_cast<const char*>(frames), size_t{count} * 8);
    ProcessWriter::emitMeta(capture::MetaKind::NativeBacktrace, ints, 4, &blob, 1);
}

}  // namespace sl::inject::nbt

// --cudabacktrace (NativeBacktraceHook.h): the CUDA module's callback at the exit of a slow CUDA
// API call. The record's time field holds the call's correlation id (kind CudaApi).
SL_EXPORT void sightline_native_backtrace_cuda(uint32_t correlationId, uint32_t depth) {
    using namespace sl::inject;
    if (!ProcessWriter::active()) return;
    nbt::init();
    nbt::recordFor(static_cast<int64_t>(correlationId), sl::EventKind::CudaApi, depth);
}
