#pragma once
// A zero-filled table of N elements mapped on first use. The Python tables (frames, stacks,
// the backtrace cache, traced functions: 14 MiB) were zero arrays in .bss, which costs no
// memory until touched but counts 14 MiB against every traced process's address-space limit
// (`ulimit -v`, RLIMIT_AS), Python or not: a program under a 64 MiB limit could allocate 17 MiB
// less under the profiler. Now only a process that records Python frames maps them.
// Async-signal-safe (raw mmap); T must be valid when all its bytes are zero (atomics of
// pointers and integers).
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>

namespace sl::inject {

template <class T, size_t N>
class LazyTable {
public:
    static constexpr size_t size() { return N; }
    // The table, mapped now if it is not yet; nullptr when it cannot be (no address space).
    T* get() {
        if (T* p = m_table.load(std::memory_order_acquire)) return p;
        return make();
    }
    // The table if some thread mapped it, else nullptr (nothing to read).
    T* ifMade() const { return m_table.load(std::memory_order_acquire); }

private:
    T* make() {
        const long m = syscall(SYS_mmap, nullptr, sizeof(T) * N, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == -1) return nullptr;
        T* mine = reinterpret_cast<T*>(m);
        T* expected = nullptr;
        if (m_table.compare_exchange_strong(expected, mine, std::memory_order_acq_rel)) return mine;
        syscall(SYS_munmap, mine, sizeof(T) * N);  // another thread mapped it first
        return expected;
    }
    std::atomic<T*> m_table{nullptr};
};

}  // namespace sl::inject
