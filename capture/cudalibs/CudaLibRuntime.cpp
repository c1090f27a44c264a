// The run-time half of a CUDA library's module (CudaLibRuntime.h): finding the library's
// functions, the dlsym hook, the handle and communicator tables.
//
// How calls reach the wrappers. The module is preloaded (LD_PRELOAD, after
// libsightline-inject.so), so its definitions come first in every symbol lookup of the global
// scope: a program linked with the library, a library that needs it (libtorch_cuda's DT_NEEDED
// libcublas), and a library opened with dlopen, RTLD_GLOBAL or RTLD_LOCAL (an object's own
// lookups start with the global scope, preloads included). What that does not cover is a
// program that opens the library itself and asks the handle for a function,
// dlsym(handle, "cublasSgemm_v2"): the answer is the library's own definition. So the module
// also defines dlsym: for a name of its library asked of a real handle (not RTLD_DEFAULT or
// RTLD_NEXT) by code outside the library, it returns its wrapper, whose real function is the
// one the handle gave. The library's own lookups (cuDNN 9's libcudnn.so finds its
// sub-libraries' functions with dlsym) get the real answer, or a wrapper would call itself.
//
// RTLD_NEXT depends on who calls dlsym (glibc looks at the return address), so every other
// lookup leaves through a tail call to the next dlsym, which then sees the program's return
// address, not ours (CudaLibsCapture.DlopenedLibrariesAreRecordedToo checks it). Each library's
// module defines dlsym; the program binds to the first, and each hook passes what is not its
// library's to the next.
#include "capture/cudalibs/CudaLibRuntime.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>

namespace sl::cudalibs {

const capture::ModuleEventApi* api() { return capture::moduleEventApi(); }
capture::LiteralNameIds g_names;
constinit thread_local int t_depth = 0;

namespace {

using DlsymFn = void* (*)(void*, const char*);

// The hook runs before a sanitizer runtime has started (AddressSanitizer finds the functions it
// intercepts with dlsym(RTLD_NEXT) while it initialises, before its shadow memory exists), so
// the path every dlsym takes is not instrumented and uses no guarded statics or out-of-line
// atomics: plain pointers read and written with the compiler's builtins (two threads may both
// look them up; they store the same value).
#define SL_DLSYM_PATH __attribute__((no_sanitize("address", "undefined")))

DlsymFn g_glibcDlsym = nullptr, g_nextDlsym = nullptr;

// glibc's dlsym. dlvsym is not interposed, and a versioned lookup skips the unversioned
// definitions of this module and the other Sightline library modules.
SL_DLSYM_PATH DlsymFn glibcDlsym() {
    DlsymFn f = __atomic_load_n(&g_glibcDlsym, __ATOMIC_ACQUIRE);
    if (f) return f;
    void* p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!p) p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    f = reinterpret_cast<DlsymFn>(p);
    __atomic_store_n(&g_glibcDlsym, f, __ATOMIC_RELEASE);
    return f;
}

// Where a lookup that is not this module's goes: the next dlsym after this module, which is
// the next Sightline library module's hook (the program binds to the first one preloaded, so
// the hooks form a chain) or glibc's.
SL_DLSYM_PATH DlsymFn nextDlsym() {
    DlsymFn f = __atomic_load_n(&g_nextDlsym, __ATOMIC_ACQUIRE);
    if (f) return f;
    DlsymFn glibc = glibcDlsym();
    void* p = glibc ? glibc(RTLD_NEXT, "dlsym") : nullptr;
    f = p ? reinterpret_cast<DlsymFn>(p) : glibc;
    __atomic_store_n(&g_nextDlsym, f, __ATOMIC_RELEASE);
    return f;
}

// The library's functions' name prefix (cuBLASLt's cublasLt* included in cublas).
SL_DLSYM_PATH const char* namePrefix() {
    switch (kModuleKind) {
        case EventKind::Cublas: return "cublas";
        case EventKind::Cudnn: return "cudnn";
        default: return "nccl";
    }
}
// By hand: strncmp is intercepted by sanitizers, and this runs before they start.
SL_DLSYM_PATH bool hasPrefix(const char* s, const char* prefix) {
    for (; *prefix; ++s, ++prefix)
        if (*s != *prefix) return false;
    return true;
}
const char* baseName(const char* path) {
    const char* slash = std::strrchr(path, '/');
    return slash ? slash + 1 : path;
}

// A library of the module, when it is not in the global scope (opened with RTLD_LOCAL): found
// among the loaded objects by its file name prefix. The cuBLAS module has two: cuBLASLt's
// functions are defined in libcublasLt.so (which libcublas.so needs, but a program may open
// alone), the others in libcublas.so ("libcublas.so" is not a prefix of "libcublasLt.so").
// (Constant-initialised: nothing here waits for the module's static constructors.)
struct LoadedLibrary {
    const char* soPrefix;
    std::atomic<void*> handle;
};
LoadedLibrary g_cublas{"libcublas.so", nullptr}, g_cublasLt{"libcublasLt.so", nullptr},
    g_cudnn{"libcudnn.so", nullptr}, g_nccl{"libnccl.so", nullptr};

LoadedLibrary& libraryDefining(const char* name) {
    switch (kModuleKind) {
        case EventKind::Cublas: return hasPrefix(name, "cublasLt") ? g_cublasLt : g_cublas;
        case EventKind::Cudnn: return g_cudnn;
        default: return g_nccl;
    }
}

struct Search {
    const char* soPrefix;
    void* handle;
};
int findLoaded(dl_phdr_info* info, size_t, void* out) {
    auto* search = static_cast<Search*>(out);
    if (!info->dlpi_name || !*info->dlpi_name) return 0;
    if (!hasPrefix(baseName(info->dlpi_name), search->soPrefix)) return 0;
    void* h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) return 0;
    search->handle = h;  // kept open: it is loaded anyway
    return 1;
}

const WrappedFunction* findWrapped(const char* name) {
    size_t lo = 0, hi = g_wrappedCount;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = std::strcmp(g_wrapped[mid].name, name);
        if (c == 0) return &g_wrapped[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return nullptr;
}

// Code of the traced library itself (or its sibling objects, libcudnn_ops.so ...).
bool calledFromLibrary(const void* ret) {
    Dl_info info{};
    if (!dladdr(ret, &info) || !info.dli_fname) return false;
    const char* base = baseName(info.dli_fname);
    return hasPrefix(base, "libcublas") || hasPrefix(base, "libcudnn") || hasPrefix(base, "libnccl");
}

__attribute__((noinline)) void* lookupInHandle(void* handle, const char* name, const void* ret) {
    void* f = glibcDlsym()(handle, name);
    if (!f || calledFromLibrary(ret)) return f;
    const WrappedFunction* w = findWrapped(name);
    // A handle whose lookup reaches the global scope (dlopen(NULL), a library that needs the
    // traced one) finds the wrapper itself: it must not become its own real function.
    if (!w || f == w->wrapper) return f;
    void* expected = nullptr;
    w->real->compare_exchange_strong(expected, f, std::memory_order_relaxed);
    return w->wrapper;
}

// Open-addressing tables keyed by a handle's bits; lock-free, never shrinking (a destroyed
// handle's entry is reset, and a new handle at the same address reuses it). Full: lookups miss.
template <class V, size_t N>
class HandleTable {
public:
    V* find(int64_t key, bool insert) {
        if (key == 0) return nullptr;
        size_t h = (static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> 54;
        for (size_t probe = 0; probe < N; ++probe, h = (h + 1) % N) {
            int64_t k = m_keys[h].load(std::memory_order_acquire);
            if (k == key) return &m_values[h];
            if (k == 0) {
                if (!insert) return nullptr;
                int64_t expected = 0;
                if (m_keys[h].compare_exchange_strong(expected, key) || expected == key)
                    return &m_values[h];
            }
        }
        return nullptr;
    }

private:
    std::atomic<int64_t> m_keys[N]{};
    V m_values[N]{};
};

struct StreamSlot { std::atomic<int64_t> stream{0}; };
HandleTable<StreamSlot, 1024> g_streams;
struct CommSlot { std::atomic<int64_t> packed{0}; };  // 1 << 63 | ranks << 32 | rank
HandleTable<CommSlot, 1024> g_comms;

std::atomic<void*> g_userRank{nullptr}, g_count{nullptr};

}  // namespace

void* findReal(const char* name) {
    void* f = glibcDlsym()(RTLD_NEXT, name);
    if (f) return f;
    LoadedLibrary& lib = libraryDefining(name);
    void* h = lib.handle.load(std::memory_order_acquire);
    if (!h) {
        Search search{lib.soPrefix, nullptr};
        dl_iterate_phdr(findLoaded, &search);
        if (!search.handle) return nullptr;
        h = search.handle;
        lib.handle.store(h, std::memory_order_release);
    }
    return glibcDlsym()(h, name);
}

int64_t streamOfHandle(int64_t handle) {
    StreamSlot* s = g_streams.find(handle, false);
    return s ? s->stream.load(std::memory_order_relaxed) : 0;
}
void rememberStreamBits(int64_t handle, int64_t stream) {
    if (StreamSlot* s = g_streams.find(handle, stream != 0))
        s->stream.store(stream, std::memory_order_relaxed);
}

CommInfo commInfo(int64_t comm) {
    CommSlot* s = g_comms.find(comm, true);
    if (s) {
        int64_t p = s->packed.load(std::memory_order_relaxed);
        if (p < 0) return {static_cast<int32_t>(p & 0xffffffff), static_cast<int32_t>((p >> 32) & 0x7fffffff)};
    }
    using Fn = int (*)(void*, int*);  // ncclResult_t (*)(ncclComm_t, int*)
    auto userRank = resolve<Fn>(g_userRank, "ncclCommUserRank");
    auto count = resolve<Fn>(g_count, "ncclCommCount");
    CommInfo i;
    int rank = -1, ranks = -1;
    void* c = reinterpret_cast<void*>(static_cast<uintptr_t>(comm));
    if (!userRank || !count || userRank(c, &rank) != 0 || count(c, &ranks) != 0 || ranks < 0)
        return i;
    i.rank = rank;
    i.ranks = ranks;
    if (s)
        s->packed.store(static_cast<int64_t>((1ull << 63) | (static_cast<uint64_t>(ranks) << 32) |
                                             static_cast<uint32_t>(rank)),
                        std::memory_order_relaxed);
    return i;
}

int64_t ncclTypeSize(int64_t t) {
    // ncclDataType_t: Int8 Uint8 Int32 Uint32 Int64 Uint64 Float16 Float32 Float64 Bfloat16
    // Float8e4m3 Float8e5m2 (nccl.h, 2.19+).
    static constexpr int8_t kSizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
    return t >= 0 && t < static_cast<int64_t>(sizeof kSizes) ? kSizes[t] : 0;
}

}  // namespace sl::cudalibs

// Only names of this module's library asked of a real handle go to the lookup; everything else
// is a tail call, so the real dlsym sees the caller's return address (RTLD_NEXT).
SL_EXPORT SL_DLSYM_PATH void* dlsym(void* handle, const char* name) {
    using namespace sl::cudalibs;
    if (handle != RTLD_NEXT && handle != RTLD_DEFAULT && name && hasPrefix(name, namePrefix()))
        return lookupInHandle(handle, name, __builtin_return_address(0));
    return nextDlsym()(handle, name);
}
