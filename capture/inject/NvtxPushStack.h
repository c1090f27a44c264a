#pragma once
// The per-thread, per-domain record of which NVTX pushes were stored (NvtxInjection.cpp): the
// pop of a stored push is always stored, the pop of a push that was dropped or made while the
// capture switch was off is skipped, so nesting stays right and every range is whole or counted.
// Used on the calling thread only (the stacks live in thread-local storage).
#include <cstdint>

namespace sl::inject {

// One domain's stack. Levels 256 and deeper keep their bits run-length encoded: the bit changes
// rarely there (at a capture window's edge, or while records are dropped), so the depths where it
// flips are kept (up to kDeepFlips; past that a deep pop may be stored without its push or the
// other way round, and the merge counts it).
constexpr int kDeepFlips = 6;
struct PushStack {
    uint32_t domain;
    int32_t depth;
    uint64_t bits[4];              // levels 0-255
    int32_t deepFlip[kDeepFlips];  // depths >= 257 whose bit differs from the level below
    uint8_t deepFlips;
    bool deepFirst;  // the bit of level 256
};

inline void setBit(PushStack& s, bool stored) {
    if (__builtin_expect(s.depth < 256, 1)) {
        uint64_t m = 1ull << (s.depth & 63);
        if (stored)
            s.bits[s.depth >> 6] |= m;
        else
            s.bits[s.depth >> 6] &= ~m;
    } else if (s.depth == 256) {
        s.deepFirst = stored;
        s.deepFlips = 0;
    } else if (stored != (s.deepFirst ^ (s.deepFlips & 1)) && s.deepFlips < kDeepFlips) {
        s.deepFlip[s.deepFlips++] = s.depth;
    }
    ++s.depth;
}

// Pops one level; returns whether its push was stored.
inline bool popBit(PushStack& s) {
    --s.depth;
    if (__builtin_expect(s.depth < 256, 1)) return (s.bits[s.depth >> 6] >> (s.depth & 63)) & 1;
    bool stored = s.deepFirst ^ (s.deepFlips & 1);
    if (s.deepFlips > 0 && s.deepFlip[s.deepFlips - 1] == s.depth) --s.deepFlips;
    return stored;
}

}  // namespace sl::inject
