#pragma once
// What every fuzz target shares: the input as a file (the readers take paths), and the memory
// cap of issue #24: while one input is read, the heap may hold at most
// kMemoryBase + kMemoryPerByte x the input's size (a hostile file must not make a reader
// allocate what its content does not back). Measured with the sanitizer allocator's hooks;
// a breach aborts with the figures, as a crash would.
#include <unistd.h>

// The allocator hooks exist under ASan; their header comes with clang (GCC's ASan build, which
// replays the corpora, may lack it: no cap there, the fuzz build checks it).
#if defined(__SANITIZE_ADDRESS__)
#define SL_FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SL_FUZZ_ASAN 1
#endif
#endif
#if defined(SL_FUZZ_ASAN) && __has_include(<sanitizer/allocator_interface.h>)
#define SL_FUZZ_HOOKS 1
#include <sanitizer/allocator_interface.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace sl::fuzz {

constexpr int64_t kMemoryBase = 256ll << 20;
constexpr int64_t kMemoryPerByte = 64;

inline std::atomic<int64_t> g_live{0};
inline std::atomic<int64_t> g_peak{0};
inline std::atomic<bool> g_hooked{false};

// The files inputFile() made, removed when the process exits normally (a fuzzer's time is up;
// after a crash they stay, next to the crashing input).
struct InputFiles {
    std::vector<std::string> paths;
    ~InputFiles() {
        for (const auto& p : paths) std::remove(p.c_str());
    }
};
inline InputFiles g_inputFiles;

// The input written to a file of this process on tmpfs (the same name every time: one input at
// a time per process).
inline std::string inputFile(const uint8_t* data, size_t size, const char* suffix) {
    static const std::string dir = [] {
        const char* shm = "/dev/shm";
        return std::string(access(shm, W_OK) == 0 ? shm : "/tmp");
    }();
    const std::string path =
        dir + "/sl-fuzz-" + std::to_string(getpid()) + suffix;
    if (std::find(g_inputFiles.paths.begin(), g_inputFiles.paths.end(), path) ==
        g_inputFiles.paths.end())
        g_inputFiles.paths.push_back(path);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) std::abort();
    if (size && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
    return path;
}

// Tracks the heap's peak while one input is read (with ASan's allocator hooks; without a
// sanitizer, in the regular build's corpus replay, it checks nothing).
#ifndef SL_FUZZ_HOOKS
class MemoryCap {
public:
    explicit MemoryCap(size_t) {}
};
#else
class MemoryCap {
public:
    explicit MemoryCap(size_t inputBytes) : m_limit(kMemoryBase + kMemoryPerByte * static_cast<int64_t>(inputBytes)) {
        if (!g_hooked.exchange(true)) __sanitizer_install_malloc_and_free_hooks(onMalloc, onFree);
        m_start = g_live.load();
        g_peak.store(m_start);
    }
    ~MemoryCap() {
        const int64_t used = g_peak.load() - m_start;
        if (used > m_limit) {
            std::fprintf(stderr, "memory cap: %lld bytes at the peak for this input, limit %lld\n",
                         static_cast<long long>(used), static_cast<long long>(m_limit));
            std::abort();
        }
    }

private:
    static void onMalloc(const volatile void*, size_t n) {
        const int64_t v = g_live.fetch_add(static_cast<int64_t>(n)) + static_cast<int64_t>(n);
        int64_t p = g_peak.load(std::memory_order_relaxed);
        while (v > p && !g_peak.compare_exchange_weak(p, v)) {
        }
    }
    static void onFree(const volatile void* ptr) {
        if (ptr) g_live.fetch_sub(static_cast<int64_t>(__sanitizer_get_allocated_size(const_cast<const void*>(ptr))));
    }
    int64_t m_limit;
    int64_t m_start = 0;
};
#endif

}  // namespace sl::fuzz
