#include "capture/inject/PythonFrames.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <string>

#include "capture/inject/InjectCommon.h"
#include "capture/inject/LazyTable.h"

namespace sl::inject::pyframes {
namespace {

struct Frame {
    int64_t line;
    std::string function, file;
};
constexpr uint32_t kMaxFrames = 1u << 20;
// The tables are mapped zero-filled at first use (LazyTable.h): allocated with `new` at load
// they cost every process 12 MB of zeroing and ~3,000 page faults at start-up, Python or not
// (1.5 ms per process: a make -j2 profile took 1.7x as long); as arrays in .bss, 14 MiB of its
// address-space limit.
constinit LazyTable<std::atomic<Frame*>, kMaxFrames> g_frames;
std::atomic<uint32_t> g_count{0};
std::atomic<uint32_t> g_definedInGen{0};  // the stream generation that has every definition

void emit(uint32_t id, const Frame& f) {
    int64_t ints[2] = {id, f.line};
    std::string_view strs[2] = {f.function, f.file};
    ProcessWriter::emitMeta(capture::MetaKind::PythonFrame, ints, 2, strs, 2);
}

// Stacks: an open-addressing table keyed by the stack's hash, each slot's frames a heap copy
// written before its id is published (readers compare the frames on every hit).
struct Stack {
    uint32_t id;
    uint32_t count;
    uint32_t frames[1];  // count of them
};
struct StackSlot {
    std::atomic<uint64_t> hash{0};  // 0: empty
    std::atomic<Stack*> stack{nullptr};
};
constexpr uint32_t kStackSlots = 1u << 18;
constinit LazyTable<StackSlot, kStackSlots> g_stackSlots;  // as g_frames
std::atomic<uint32_t> g_stackCount{0};

void emitStack(const Stack& s) {
    int64_t ints[2] = {s.id, s.count};
    std::string_view ids(reinterpret_cast<const char*>(s.frames), size_t{s.count} * 4);
    ProcessWriter::emitMeta(capture::MetaKind::PythonStack, ints, 2, &ids, 1);
}

}  // namespace

void defineAgainIfNewStream() {
    const uint32_t gen = ProcessWriter::generation();
    uint32_t seen = g_definedInGen.load(std::memory_order_relaxed);
    if (__builtin_expect(seen == gen, 1)) return;
    if (!g_definedInGen.compare_exchange_strong(seen, gen)) return;
    const uint32_t n = std::min(g_count.load(std::memory_order_acquire), kMaxFrames);
    if (const auto* frames = g_frames.ifMade())
        for (uint32_t i = 0; i < n; ++i)
            if (const Frame* f = frames[i].load(std::memory_order_acquire)) emit(i + 1, *f);
    const StackSlot* slots = g_stackSlots.ifMade();
    if (!slots || g_stackCount.load(std::memory_order_acquire) == 0) return;
    for (uint32_t i = 0; i < kStackSlots; ++i)
        if (const Stack* s = slots[i].stack.load(std::memory_order_acquire)) emitStack(*s);
}

uint32_t stackOf(const uint32_t* frames, uint32_t count) {
    uint64_t hash = 1469598103934665603ULL;
    for (uint32_t k = 0; k < count; ++k) hash = (hash ^ frames[k]) * 1099511628211ULL;
    hash = (hash ^ count) | 1;  // never 0 (empty)
    StackSlot* slots = g_stackSlots.get();
    if (!slots) return 0;  // no room for the table: the stack is named frame by frame
    uint32_t slot = static_cast<uint32_t>(hash >> 40) & (kStackSlots - 1);
    for (int probe = 0; probe < 32; ++probe, slot = (slot + 1) & (kStackSlots - 1)) {
        StackSlot& s = slots[slot];
        uint64_t h = s.hash.load(std::memory_order_acquire);
        if (h == hash) {
            const Stack* st = s.stack.load(std::memory_order_acquire);
            if (!st) return 0;  // being defined by another thread
            if (st->count == count && std::memcmp(st->frames, frames, size_t{count} * 4) == 0)
                return st->id;
            continue;  // another stack with the same hash
        }
        if (h != 0 || !s.hash.compare_exchange_strong(h, hash, std::memory_order_acq_rel)) {
            if (h == hash) return 0;  // claimed for this stack just now
            continue;
        }
        const uint32_t id = g_stackCount.fetch_add(1, std::memory_order_acq_rel) + 1;
        auto* st = static_cast<Stack*>(std::malloc(sizeof(Stack) + sizeof(uint32_t) * count));
        if (!st) return 0;  // the slot stays claimed and empty: that stack is named frame by frame
        st->id = id;
        st->count = count;
        std::memcpy(st->frames, frames, size_t{count} * 4);
        defineAgainIfNewStream();
        emitStack(*st);
        s.stack.store(st, std::memory_order_release);
        return id;
    }
    return 0;  // the table is crowded here
}

uint32_t define(std::string_view function, std::string_view file, int64_t line) {
    defineAgainIfNewStream();
    auto* frames = g_frames.get();
    if (!frames) return 0;  // no room for the table: unnamed, as past kMaxFrames
    const uint32_t i = g_count.fetch_add(1, std::memory_order_acq_rel);
    if (i >= kMaxFrames) return 0;
    auto* f = new Frame{line, std::string(function), std::string(file)};
    frames[i].store(f, std::memory_order_release);
    emit(i + 1, *f);
    return i + 1;
}

}  // namespace sl::inject::pyframes
