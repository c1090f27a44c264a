// The C entry points of the Python hook (capture/python/sightline_pytrace.py calls them through
// ctypes).
// --python-functions-trace: each traced function is defined once, as a domain, a registered
// name, a color and a category, and each call is then one push and one pop of that prebuilt
// NVTX range: a call costs the ctypes call and a push, no string handling.
// --python-sampling: each distinct frame (function, file, line) is defined once (a PythonFrame
// record), and a sample is the thread, the time and the frame ids (a PythonSample record). A
// forked child (a new stream) defines the frames it inherited again before its first sample.
#include <nvtx3/nvToolsExt.h>
#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "capture/inject/InjectCommon.h"
#include "capture/inject/LazyTable.h"
#include "capture/inject/NvtxApi.h"
#include "capture/inject/PythonFrames.h"

namespace sl::inject {
namespace {

struct TracedFunction {
    nvtxDomainHandle_t domain;
    nvtxEventAttributes_t attrs;
};

// Ids are indexes + 1 into a table that only grows (read without a lock by push and pop).
constexpr uint32_t kMaxFunctions = 1u << 16;
constinit LazyTable<std::atomic<TracedFunction*>, kMaxFunctions> g_functions;  // PythonFrames.cpp says why
std::atomic<uint32_t> g_count{0};
std::mutex g_defineMutex;

nvtxDomainHandle_t domainNamed(const std::string& name) {
    // Under g_defineMutex. The default domain is the null handle.
    static auto& domains = *new std::unordered_map<std::string, nvtxDomainHandle_t>();
    if (name.empty()) return nullptr;
    auto [it, fresh] = domains.try_emplace(name, nullptr);
    if (fresh) it->second = nvtx::domainCreate(name.c_str());
    return it->second;
}

inline const TracedFunction* lookup(uint32_t id) {
    const auto* functions = g_functions.ifMade();
    if (id == 0 || id > kMaxFunctions || !functions) return nullptr;
    return functions[id - 1].load(std::memory_order_acquire);
}

}  // namespace
}  // namespace sl::inject

// Defines a traced function: its NVTX domain ("" the default), range name, ARGB color (0: none)
// and category (0: none; categoryName names it in the domain when not empty). Returns the id
// to push and pop, or 0 when this process records nothing (no session, or the table is full).
SL_EXPORT uint32_t sightline_pytrace_define(const char* domain, const char* name, uint32_t color,
                                            uint32_t category, const char* categoryName) {
    using namespace sl::inject;
    if (!ProcessWriter::active() || !name) return 0;
    std::lock_guard lock(g_defineMutex);
    const uint32_t index = g_count.load(std::memory_order_relaxed);
    auto* functions = g_functions.get();
    if (index >= kMaxFunctions || !functions) return 0;
    auto* f = new TracedFunction();
    f->domain = domainNamed(domain ? domain : "");
    std::memset(&f->attrs, 0, sizeof f->attrs);
    f->attrs.version = NVTX_VERSION;
    f->attrs.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    f->attrs.category = category;
    f->attrs.colorType = color ? NVTX_COLOR_ARGB : NVTX_COLOR_UNKNOWN;
    f->attrs.color = color;
    f->attrs.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    f->attrs.message.registered = nvtx::registerString(f->domain, name);
    if (category && categoryName && *categoryName)
        nvtx::nameCategory(f->domain, category, categoryName);
    functions[index].store(f, std::memory_order_release);
    g_count.store(index + 1, std::memory_order_relaxed);
    return index + 1;
}

SL_EXPORT void sightline_pytrace_push(uint32_t id) {
    if (const auto* f = sl::inject::lookup(id)) sl::inject::nvtx::pushRange(f->domain, &f->attrs);
}

SL_EXPORT void sightline_pytrace_pop(uint32_t id) {
    if (const auto* f = sl::inject::lookup(id)) sl::inject::nvtx::popRange(f->domain);
}

// Defines a Python frame; returns its id (from 1), or 0 when this process records nothing or
// the table is full (the hook then leaves such frames out).
SL_EXPORT uint32_t sightline_pyframe_define(const char* function, const char* file, int64_t line) {
    using namespace sl::inject;
    if (!ProcessWriter::active()) return 0;
    ProcessWriter::ToolScope scope;
    return pyframes::define(function ? function : "", file ? file : "", line);
}

// A Python call stack of thread `tid` (the OS thread id), `count` frame ids leaf first, taken
// now.
SL_EXPORT void sightline_pysample(int64_t tid, const uint32_t* frames, uint32_t count) {
    using namespace sl::inject;
    if (!ProcessWriter::active() || !frames) return;
    ProcessWriter::ToolScope scope;
    pyframes::defineAgainIfNewStream();
    constexpr uint32_t kMaxDepth = 512;  // deeper stacks keep their innermost frames
    count = std::min(count, kMaxDepth);
    int64_t ints[3] = {tid, sl::capture::nowNs(), count};
    std::string_view ids(reinterpret_cast<const char*>(frames), size_t{count} * 4);
    ProcessWriter::emitMeta(sl::capture::MetaKind::PythonSample, ints, 3, &ids, 1);
}

// The calling thread is the hook's own (the Python sampler): named as the capture's, so the
// merge leaves it and its CPU samples out of the program's rows, as it does the writer thread.
SL_EXPORT void sightline_pytool_thread() {
    using namespace sl::inject;
    if (!ProcessWriter::active()) return;
    ProcessWriter::ToolScope scope;
    prctl(PR_SET_NAME, "sightline-py", 0, 0, 0);  // in top and gdb: ours
    int64_t ints[3] = {ProcessWriter::threadId(), sl::capture::nowNs(), 2};
    std::string_view name = "sightline-py";
    ProcessWriter::emitMeta(sl::capture::MetaKind::ThreadName, ints, 3, &name, 1);
}

// --pytorch: the hook switched PyTorch's annotations on in this process (state 1, `text`: the
// torch version and the modes) or could not (state 2, `text`: why).
SL_EXPORT void sightline_pytorch_state(int32_t state, const char* text) {
    using namespace sl::inject;
    if (!ProcessWriter::active()) return;
    ProcessWriter::ToolScope scope;
    int64_t ints[2] = {sl::capture::nowNs(), state};
    std::string_view what = text ? text : "";
    ProcessWriter::emitMeta(sl::capture::MetaKind::PyTorchState, ints, 2, &what, 1);
}

// A range of traced function `id` (its domain, color and category) named `text` for this call
// (--pytorch=functions-trace-shapes: the shapes of the call's tensors); popped with
// sightline_pytrace_pop(id).
SL_EXPORT void sightline_pytrace_push_text(uint32_t id, const char* text) {
    const auto* f = sl::inject::lookup(id);
    if (!f) return;
    if (!text) {
        sl::inject::nvtx::pushRange(f->domain, &f->attrs);
        return;
    }
    nvtxEventAttributes_t attrs = f->attrs;
    attrs.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attrs.message.ascii = text;
    sl::inject::nvtx::pushRange(f->domain, &attrs);
}
