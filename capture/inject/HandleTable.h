#pragma once
// NVTX handles we give out (nvtxStringHandle_t, nvtxDomainHandle_t) are 1-based indices into a
// table, not pointers: a handle we never gave (a made-up or uninitialized value, which NVTX
// without a tool ignores) then finds nothing instead of crashing the program (a made-up
// registered-string handle was dereferenced: SIGSEGV). Chunks are made as handles are given and
// never freed (NVTX never releases them); lookups take no lock.
#include <atomic>
#include <cstdint>

namespace sl::inject {

template <class T>
class HandleTable {
public:
    static constexpr uint64_t kChunk = 1024, kChunks = 4096;  // up to 4 M handles
    // The handle of `item` (which the table keeps), 0 when the table is full.
    uint64_t add(T* item) {
        const uint64_t i = m_next.fetch_add(1, std::memory_order_relaxed);
        if (i >= kChunk * kChunks) return 0;
        std::atomic<T*>* chunk = m_chunks[i / kChunk].load(std::memory_order_acquire);
        if (!chunk) {
            auto* fresh = new std::atomic<T*>[kChunk]();
            if (m_chunks[i / kChunk].compare_exchange_strong(chunk, fresh,
                                                             std::memory_order_acq_rel))
                chunk = fresh;
            else
                delete[] fresh;  // another thread made it: `chunk` is that one now
        }
        chunk[i % kChunk].store(item, std::memory_order_release);
        return i + 1;
    }
    // What `handle` names, or nullptr for a handle the table never gave.
    T* find(uint64_t handle) const {
        if (handle == 0 || handle > kChunk * kChunks) return nullptr;
        const auto* chunk = m_chunks[(handle - 1) / kChunk].load(std::memory_order_acquire);
        return chunk ? chunk[(handle - 1) % kChunk].load(std::memory_order_acquire) : nullptr;
    }

private:
    std::atomic<uint64_t> m_next{0};
    std::atomic<std::atomic<T*>*> m_chunks[kChunks] = {};
};

}  // namespace sl::inject
