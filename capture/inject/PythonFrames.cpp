#include "capture/inject/PythonFrames.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "capture/inject/InjectCommon.h"

namespace sl::inject::pyframes {
namespace {

struct Frame {
    int64_t line;
    std::string function, file;
};
constexpr uint32_t kMaxFrames = 1u << 20;
std::atomic<Frame*>* g_frames = new std::atomic<Frame*>[kMaxFrames]();
std::atomic<uint32_t> g_count{0};
std::atomic<uint32_t> g_definedInGen{0};  // the stream generation that has every definition

void emit(uint32_t id, const Frame& f) {
    int64_t ints[2] = {id, f.line};
    std::string_view strs[2] = {f.function, f.file};
    ProcessWriter::emitMeta(capture::MetaKind::PythonFrame, ints, 2, strs, 2);
}

}  // namespace

void defineAgainIfNewStream() {
    const uint32_t gen = ProcessWriter::generation();
    uint32_t seen = g_definedInGen.load(std::memory_order_relaxed);
    if (__builtin_expect(seen == gen, 1)) return;
    if (!g_definedInGen.compare_exchange_strong(seen, gen)) return;
    const uint32_t n = std::min(g_count.load(std::memory_order_acquire), kMaxFrames);
    for (uint32_t i = 0; i < n; ++i)
        if (const Frame* f = g_frames[i].load(std::memory_order_acquire)) emit(i + 1, *f);
}

uint32_t define(std::string_view function, std::string_view file, int64_t line) {
    defineAgainIfNewStream();
    const uint32_t i = g_count.fetch_add(1, std::memory_order_acq_rel);
    if (i >= kMaxFrames) return 0;
    auto* f = new Frame{line, std::string(function), std::string(file)};
    g_frames[i].store(f, std::memory_order_release);
    emit(i + 1, *f);
    return i + 1;
}

}  // namespace sl::inject::pyframes
