#pragma once
// CUPTI activity buffers: handed to CUPTI on request, returned after their records are
// converted, reused. The pool never holds more than `limitBytes` in flight; when the limit is
// reached CUPTI gets no buffer and counts the records it drops (cuptiActivityGetNumDroppedRecords),
// which the converter reports. Thread-safe (CUPTI requests buffers from any thread).
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace sl::cuda {

class BufferPool {
public:
    static constexpr size_t kBufferBytes = 8u << 20;

    explicit BufferPool(size_t limitBytes)
        : m_limit(limitBytes / kBufferBytes ? limitBytes / kBufferBytes : 1) {}
    ~BufferPool() {
        for (uint8_t* b : m_free) std::free(b);
    }

    // Null when the limit is reached or memory is short.
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
        // CUPTI requires 8-byte alignment.
        auto* b = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
        if (!b) return nullptr;
        ++m_allocated;
        ++m_inUse;
        return b;
    }
    void give(uint8_t* b) {
        if (!b) return;
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
};

}  // namespace sl::cuda
