#pragma once
// The client side of ModuleEventApi.h, for modules that record through the preloaded module
// (libsightline-mpi-*.so, libsightline-ompt.so): finding the table, and stream-local string ids
// of the literal names they record, cached per fork generation. Header-only, hidden in each
// module.
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "capture/common/ModuleEventApi.h"

namespace sl::capture {

// The preloaded module's table, or nullptr when the program runs without it.
inline const ModuleEventApi* moduleEventApi() {
    static const ModuleEventApi* a = []() -> const ModuleEventApi* {
        auto fn = reinterpret_cast<ModuleEventApiFn>(dlsym(RTLD_DEFAULT, kModuleEventApiSymbol));
        const ModuleEventApi* got = fn ? fn() : nullptr;
        return got && got->version >= 1 ? got : nullptr;
    }();
    return a;
}

// String ids of names given as string literals (or other strings that live as long as the
// process): an open-addressing table keyed by the text's address, lock-free, each entry
// re-defined when the fork generation changed. A full table still works (defines every time).
class LiteralNameIds {
public:
    uint32_t get(const ModuleEventApi* a, const char* name) {
        const uint32_t gen = a->generation();
        size_t h = (reinterpret_cast<uintptr_t>(name) >> 3) & (kSlots - 1);
        for (size_t probe = 0; probe < kSlots; ++probe, h = (h + 1) & (kSlots - 1)) {
            Slot& s = m_slots[h];
            const char* k = s.key.load(std::memory_order_acquire);
            if (k == nullptr) {
                const char* expected = nullptr;
                if (!s.key.compare_exchange_strong(expected, name) && expected != name) continue;
            } else if (k != name) {
                continue;
            }
            uint64_t v = s.value.load(std::memory_order_relaxed);
            if (v != 0 && static_cast<uint32_t>(v >> 32) == gen) return static_cast<uint32_t>(v);
            uint32_t id = define(a, name);
            if (id) s.value.store((static_cast<uint64_t>(gen) << 32) | id, std::memory_order_relaxed);
            return id;
        }
        return define(a, name);
    }

private:
    static constexpr size_t kSlots = 256;
    struct Slot {
        std::atomic<const char*> key{nullptr};
        std::atomic<uint64_t> value{0};  // generation << 32 | id
    };
    static uint32_t define(const ModuleEventApi* a, const char* name) {
        return a->defineString(name, static_cast<uint32_t>(std::strlen(name)));
    }
    Slot m_slots[kSlots];
};

}  // namespace sl::capture
