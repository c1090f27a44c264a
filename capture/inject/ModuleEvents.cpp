// The preloaded module's side of ModuleEventApi (capture/common/ModuleEventApi.h): other
// modules' events go into the calling thread's buffer of this module's stream.
#include <cstring>
#include <string_view>

#include "capture/common/CaptureGate.h"
#include "capture/common/ModuleEventApi.h"
#include "capture/inject/InjectCommon.h"
#include "capture/inject/OpenCalls.h"

namespace sl::inject {
namespace {

bool recording() { return ProcessWriter::active() && capture::CaptureGate::isOn(); }

uint32_t generation() { return ProcessWriter::generation(); }

uint32_t defineString(const char* text, uint32_t length) {
    ProcessWriter::ToolScope scope;
    return ProcessWriter::defineString(std::string_view(text, length));
}

bool emitThreadEvent(uint8_t kind, int64_t start, int64_t end, uint32_t name,
                     const int64_t* columns, int columnCount) {
    ProcessWriter::ToolScope scope;
    return ProcessWriter::emitEvent(static_cast<EventKind>(kind), currentTid(), start, end, name,
                                    columns, columnCount);
}

bool emitEventOfThread(int64_t tid, uint8_t kind, int64_t start, int64_t end, uint32_t name,
                       const int64_t* columns, int columnCount) {
    ProcessWriter::ToolScope scope;
    return ProcessWriter::emitEvent(static_cast<EventKind>(kind), tid, start, end, name, columns,
                                    columnCount);
}

bool emitMeta(uint32_t metaKind, const int64_t* ints, int intCount, const char* text,
              uint32_t textLength) {
    ProcessWriter::ToolScope scope;
    std::string_view s(text ? text : "", text ? textLength : 0);
    return ProcessWriter::emitMeta(static_cast<capture::MetaKind>(metaKind), ints, intCount, &s,
                                   text ? 1 : 0);
}

// The caller keeps the mark (ModuleOpenCallMark), which holds what openModuleCallBegin returns.
static_assert(sizeof(ModuleOpenCall) <= sizeof(capture::ModuleOpenCallMark));
static_assert(alignof(ModuleOpenCall) <= alignof(capture::ModuleOpenCallMark));

void moduleCallBegin(capture::ModuleOpenCallMark* mark, const capture::ModuleOpenCallKind* kind,
                     void* context, int64_t start) {
    const ModuleOpenCall call = openModuleCallBegin(*kind, context, start);
    std::memcpy(mark->bytes, &call, sizeof call);
}

void moduleCallEnd(const capture::ModuleOpenCallMark* mark) {
    ModuleOpenCall call;
    std::memcpy(&call, mark->bytes, sizeof call);
    openModuleCallEnd(call);
}

constexpr capture::ModuleEventApi kApi = {capture::kModuleEventApiVersion,
                                          0,
                                          recording,
                                          generation,
                                          defineString,
                                          emitThreadEvent,
                                          emitMeta,
                                          emitEventOfThread,
                                          currentTid,
                                          moduleCallBegin,
                                          moduleCallEnd};

}  // namespace
}  // namespace sl::inject

SL_EXPORT const sl::capture::ModuleEventApi* sightline_module_event_api() {
    return &sl::inject::kApi;
}
