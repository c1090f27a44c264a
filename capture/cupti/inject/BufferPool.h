#pragma once
// CUPTI activity buffers: handed to CUPTI on request, returned after their records are
// converted, reused. The pool never holds more than `limitBytes` in flight; when the limit is
// reached CUPTI gets no buffer and counts the records it drops (cuptiActivityGetNumDroppedRecords),
// which the converter reports. Thread-safe (CUPTI requests buffers from any thread).
//
// Size: CUDA 13's CUPTI keeps one buffer per thread that calls CUDA (per-thread activity
// buffers), each held until it is full or flushed. 2 MiB buffers let the default 256 MiB pool
// serve 128 such threads (8 MiB ones ran out at about 30) while each still holds ~10,000 records.
//
// Zeroing: CUPTI wants zeroed buffers and, unless told they are
// (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER), clears each one itself on the application's
// thread that asked for it. Here new buffers are fresh anonymous pages (zero, and committed only
// as CUPTI writes them) and a returned buffer has only its written part cleared, on the thread
// that returns it (CUPTI's).
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

namespace sl::cuda {

class BufferPool {
public:
    static constexpr size_t kBufferBytes = 2u << 20;

    explicit BufferPool(size_t limitBytes)
        : m_limit(limitBytes / kBufferBytes ? limitBytes / kBufferBytes : 1) {}
    ~BufferPool() {
        for (uint8_t* b : m_free) munmap(b, kBufferBytes);
    }

    // False when CUPTI clears buffers itself (it refused the attribute): then returned buffers
    // are not cleared here.
    void setZeroing(bool on) { m_zeroing = on; }

    // Null when the limit is reached or memory is short. Page-aligned (CUPTI needs 8 bytes).
    uint8_t* take() {
        std::lock_guard lock(m_mutex);
        if (!m_free.empty()) {
            uint8_t* b = m_free.back();
            m_free.pop_back();
            ++m_inUse;
            return b;
        }
        if (m_allocated >= m_limit) {
            ++m_refused;
            return nullptr;
        }
        void* p = mmap(nullptr, kBufferBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (p == MAP_FAILED) return nullptr;
        ++m_allocated;
        ++m_inUse;
        return static_cast<uint8_t*>(p);
    }
    // `written`: how many bytes CUPTI filled (its validSize); only those are cleared.
    void give(uint8_t* b, size_t written) {
        if (!b) return;
        if (m_zeroing) std::memset(b, 0, written < kBufferBytes ? written : kBufferBytes);
        std::lock_guard lock(m_mutex);
        m_free.push_back(b);
        --m_inUse;
    }
    size_t allocated() const {
        std::lock_guard lock(m_mutex);
        return m_allocated;
    }
    size_t refused() const {
        std::lock_guard lock(m_mutex);
        return m_refused;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<uint8_t*> m_free;
    size_t m_limit;
    size_t m_allocated = 0;
    size_t m_inUse = 0;
    size_t m_refused = 0;
    bool m_zeroing = true;
};

}  // namespace sl::cuda
