// The C entry points of `--python-functions-trace` (capture/python/sightline_pytrace.py calls
// them through ctypes): each traced function is defined once, as a domain, a registered name,
// a color and a category, and each call is then one push and one pop of that prebuilt NVTX
// range: a call costs the ctypes call and a push, no string handling.
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "capture/inject/InjectCommon.h"
#include "capture/inject/NvtxApi.h"

namespace sl::inject {
namespace {

struct TracedFunction {
    nvtxDomainHandle_t domain;
    nvtxEventAttributes_t attrs;
};

// Ids are indexes + 1 into a table that only grows (read without a lock by push and pop).
constexpr uint32_t kMaxFunctions = 1u << 16;
std::atomic<TracedFunction*>* g_functions = new std::atomic<TracedFunction*>[kMaxFunctions]();
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
    if (id == 0 || id > kMaxFunctions) return nullptr;
    return g_functions[id - 1].load(std::memory_order_acquire);
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
    if (index >= kMaxFunctions) return 0;
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
    g_functions[index].store(f, std::memory_order_release);
    g_count.store(index + 1, std::memory_order_relaxed);
    return index + 1;
}

SL_EXPORT void sightline_pytrace_push(uint32_t id) {
    if (const auto* f = sl::inject::lookup(id)) sl::inject::nvtx::pushRange(f->domain, &f->attrs);
}

SL_EXPORT void sightline_pytrace_pop(uint32_t id) {
    if (const auto* f = sl::inject::lookup(id)) sl::inject::nvtx::popRange(f->domain);
}
