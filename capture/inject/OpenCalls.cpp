#include "capture/inject/OpenCalls.h"

#include <atomic>
#include <string_view>
#include <cstdio>

#include "capture/common/Clock.h"
#include "capture/inject/InjectCommon.h"
#include "model/core/EventColumns.h"

namespace sl::inject {
namespace {

struct Slot {
    std::atomic<bool> used{false};
    std::atomic<int64_t> tid{0};
    std::atomic<int64_t> start{0};  // 0: in no call
    std::atomic<capture::CachedString*> name{nullptr};
    std::atomic<const char*> text{nullptr};
    // Another module's call the thread is in (an MPI call), apart from the OS runtime call.
    std::atomic<int64_t> moduleStart{0};  // 0: in none
    std::atomic<const capture::ModuleOpenCallKind*> moduleKind{nullptr};
    std::atomic<void*> moduleContext{nullptr};
};
constexpr int kSlots = 4096;
Slot g_slots[kSlots];
std::atomic<int> g_hint{0};
std::atomic<int> g_end{0};  // one past the highest slot ever taken: the scans stop there
// 0: none taken yet, -1: the table was full, else the slot's index + 1.
thread_local int t_slot SL_CAPTURE_TLS = 0;

int slotOfThisThread() {
    if (t_slot != 0) return t_slot;
    const int from = g_hint.load(std::memory_order_relaxed);
    for (int k = 0; k < kSlots; ++k) {
        const int i = (from + k) % kSlots;
        bool free = false;
        if (g_slots[i].used.load(std::memory_order_relaxed) ||
            !g_slots[i].used.compare_exchange_strong(free, true))
            continue;
        g_slots[i].start.store(0, std::memory_order_relaxed);
        g_slots[i].moduleStart.store(0, std::memory_order_relaxed);
        g_slots[i].tid.store(currentTid(), std::memory_order_relaxed);
        g_hint.store(i + 1, std::memory_order_relaxed);
        for (int end = g_end.load(std::memory_order_relaxed);
             end < i + 1 && !g_end.compare_exchange_weak(end, i + 1);) {
        }
        return t_slot = i + 1;
    }
    return t_slot = -1;
}

// Records slot `s`'s open call, if any and long enough, with its count (osrt.calls_unfinished,
// a thread's diagnostic: the merge leaves a thread of the capture's own, such as CUPTI's, out of
// both); true when it did.
// Records slot `s`'s open call of another module, if any (its kind says what).
void recordOpenModuleCall(Slot& s, int64_t now) {
    const int64_t start = s.moduleStart.load(std::memory_order_acquire);
    const capture::ModuleOpenCallKind* kind = s.moduleKind.load(std::memory_order_relaxed);
    if (start == 0 || !kind) return;
    s.moduleStart.store(0, std::memory_order_relaxed);  // once
    const int64_t tid = s.tid.load(std::memory_order_relaxed);
    if (!kind->finish(s.moduleContext.load(std::memory_order_relaxed), tid, start, now)) return;
    const int64_t ints[2] = {1, tid};
    std::string_view strs[2] = {kind->diagnosticKey, kind->diagnosticText};
    ProcessWriter::emitMeta(capture::MetaKind::Diagnostic, ints, 2, strs, 2);
}

bool recordOpen(Slot& s, int64_t now, const char* when) {
    recordOpenModuleCall(s, now);
    const int64_t start = s.start.load(std::memory_order_acquire);
    capture::CachedString* name = s.name.load(std::memory_order_relaxed);
    const char* text = s.text.load(std::memory_order_relaxed);
    if (start == 0 || !name || !text || now - start < g_config.osrtThresholdNs) return false;
    s.start.store(0, std::memory_order_relaxed);  // once
    const int64_t tid = s.tid.load(std::memory_order_relaxed);
    OsRuntimeCall call;  // never returned: no result
    call.result = -1;
    call.errnum = 0;
    const auto cols = columnsOf(call);
    if (!ProcessWriter::emitEvent(EventKind::OsRuntime, tid, start, now, name->get(text),
                                  cols.data(), static_cast<int>(cols.size())))
        return false;
    char reason[200];
    std::snprintf(reason, sizeof reason,
                  "OS runtime calls still blocked when their %s ended (a call is recorded as it "
                  "returns): shown ending then, result -1",
                  when);
    const int64_t ints[2] = {1, tid};
    std::string_view strs[2] = {"osrt.calls_unfinished", reason};
    ProcessWriter::emitMeta(capture::MetaKind::Diagnostic, ints, 2, strs, 2);
    return true;
}

}  // namespace

OpenCall openCallBegin(capture::CachedString& name, const char* text, int64_t start) {
    OpenCall call{slotOfThisThread(), 0, nullptr, nullptr};
    if (call.slot <= 0) return call;
    Slot& s = g_slots[call.slot - 1];
    call.prevStart = s.start.load(std::memory_order_relaxed);
    if (__builtin_expect(call.prevStart != 0, 0)) {  // inside another call (a signal handler's)
        call.prevName = s.name.load(std::memory_order_relaxed);
        call.prevText = s.text.load(std::memory_order_relaxed);
    }
    s.name.store(&name, std::memory_order_relaxed);
    s.text.store(text, std::memory_order_relaxed);
    s.start.store(start, std::memory_order_release);
    return call;
}

void openCallEnd(const OpenCall& call) {
    if (call.slot <= 0) return;
    Slot& s = g_slots[call.slot - 1];
    if (__builtin_expect(call.prevStart != 0, 0)) {
        s.name.store(call.prevName, std::memory_order_relaxed);
        s.text.store(call.prevText, std::memory_order_relaxed);
    }
    s.start.store(call.prevStart, std::memory_order_release);
}

ModuleOpenCall openModuleCallBegin(const capture::ModuleOpenCallKind& kind, void* context, int64_t start) {
    ModuleOpenCall call{slotOfThisThread(), 0, nullptr, nullptr};
    if (call.slot <= 0) return call;
    Slot& s = g_slots[call.slot - 1];
    call.prevStart = s.moduleStart.load(std::memory_order_relaxed);
    if (__builtin_expect(call.prevStart != 0, 0)) {  // inside another (a handler's)
        call.prevKind = s.moduleKind.load(std::memory_order_relaxed);
        call.prevContext = s.moduleContext.load(std::memory_order_relaxed);
    }
    s.moduleKind.store(&kind, std::memory_order_relaxed);
    s.moduleContext.store(context, std::memory_order_relaxed);
    s.moduleStart.store(start, std::memory_order_release);
    return call;
}

void openModuleCallEnd(const ModuleOpenCall& call) {
    if (call.slot <= 0) return;
    Slot& s = g_slots[call.slot - 1];
    if (__builtin_expect(call.prevStart != 0, 0)) {
        s.moduleKind.store(call.prevKind, std::memory_order_relaxed);
        s.moduleContext.store(call.prevContext, std::memory_order_relaxed);
    }
    s.moduleStart.store(call.prevStart, std::memory_order_release);
}

void recordOpenCalls(int64_t now, bool everyThread) {
    if (!ProcessWriter::active() || ProcessWriter::inVforkChild()) return;
    ProcessWriter::ToolScope scope;
    if (everyThread) {
        const int end = g_end.load(std::memory_order_acquire);
        for (int i = 0; i < end; ++i)
            if (g_slots[i].used.load(std::memory_order_acquire)) recordOpen(g_slots[i], now, "process");
    } else if (t_slot > 0) {
        recordOpen(g_slots[t_slot - 1], now, "thread");
    }
}

void releaseOpenCallSlot() {
    if (t_slot <= 0) return;
    Slot& s = g_slots[t_slot - 1];
    s.start.store(0, std::memory_order_relaxed);
    s.moduleStart.store(0, std::memory_order_relaxed);
    s.used.store(false, std::memory_order_release);
    t_slot = 0;
}

void openCallsAfterFork() {
    const int end = g_end.load(std::memory_order_relaxed);
    for (int i = 0; i < end; ++i) {
        // Only slots in use are written, up to the highest ever taken: touching the whole table
        // would fault its 72 pages into every forked child.
        if (i == t_slot - 1 || !g_slots[i].used.load(std::memory_order_relaxed)) continue;
        g_slots[i].start.store(0, std::memory_order_relaxed);
        g_slots[i].moduleStart.store(0, std::memory_order_relaxed);
        g_slots[i].used.store(false, std::memory_order_relaxed);
    }
    if (t_slot > 0) g_slots[t_slot - 1].tid.store(currentTid(), std::memory_order_relaxed);
}

}  // namespace sl::inject
