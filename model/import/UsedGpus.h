#pragma once
// What both importers add once every GPU event is placed: the CUDA contexts the events used,
// and a row for each GPU they name that the trace did not describe (named "GPU n"; negative
// device ids name no GPU), the GPUs then sorted by device id.
#include <cstdint>
#include <set>
#include <tuple>

#include "model/core/Report.h"

namespace sl::import {

using UsedContexts = std::set<std::tuple<int64_t, int32_t, uint32_t>>;  // (pid, device, context)

void addUsedContextsAndGpus(Report& r, const UsedContexts& contexts);

}  // namespace sl::import
