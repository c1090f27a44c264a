#pragma once
// Names of CUDA runtime and driver API calls from CUPTI callback ids. The tables are generated
// at configure time from this toolkit's cupti_runtime_cbid.h and cupti_driver_cbid.h (see
// GenerateCbidNames.cmake), so no CUPTI call is needed to name an API record. Runtime names
// lose their "_vNNNN" version suffix ("cudaMalloc"); driver names keep theirs ("cuCtxCreate_v2").
#include <cstdint>
#include <string_view>

#include "model/core/Schema.h"

namespace sl::cuda {

// Empty for an id this toolkit does not know.
std::string_view apiName(ApiKind api, uint32_t cbid);
// Number of named ids per API (for tests).
size_t apiNameCount(ApiKind api);
// cudaEventRecord*, cuEventRecord*: calls whose CUDA event records take the call's time.
bool isEventRecordApi(ApiKind api, uint32_t cbid);

}  // namespace sl::cuda
