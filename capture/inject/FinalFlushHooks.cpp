// The registry of FinalFlushHook (capture/common/FinalFlushHook.h): other modules' hooks, run
// before this module's own final flush at _exit, exec and a fatal signal.
#include <atomic>

#include "capture/common/FinalFlushHook.h"
#include "capture/inject/InjectCommon.h"

namespace sl::inject {
namespace {

constexpr int kMaxHooks = 8;
std::atomic<capture::FinalFlushHook> g_hooks[kMaxHooks];

}  // namespace

// Lock-free: may run in a signal handler, while another thread registers.
void runFinalFlushHooks(capture::ExitHow how) {
    if (ProcessWriter::sealed()) return;  // ran at the seal; no call may be made after it
    for (auto& slot : g_hooks)
        if (auto hook = slot.load(std::memory_order_acquire)) hook(static_cast<int>(how));
}

}  // namespace sl::inject

SL_EXPORT int sightline_register_final_flush(sl::capture::FinalFlushHook hook) {
    for (auto& slot : sl::inject::g_hooks) {
        sl::capture::FinalFlushHook empty = nullptr;
        if (slot.load() == hook) return 0;
        if (slot.compare_exchange_strong(empty, hook)) return 0;
    }
    return -1;
}
