#pragma once
// The NVTX handlers of NvtxInjection.cpp, for callers inside this module that are not the NVTX
// export table (PythonTraceApi.cpp): the same records, the same capture-range gating.
#include <nvtx3/nvToolsExt.h>

namespace sl::inject::nvtx {

nvtxDomainHandle_t domainCreate(const char* name);
nvtxStringHandle_t registerString(nvtxDomainHandle_t d, const char* text);
void nameCategory(nvtxDomainHandle_t d, uint32_t category, const char* name);
int pushRange(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a);
int popRange(nvtxDomainHandle_t d);

}  // namespace sl::inject::nvtx
