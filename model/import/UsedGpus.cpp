#include "model/import/UsedGpus.h"

#include <algorithm>
#include <string>

namespace sl::import {

void addUsedContextsAndGpus(Report& r, const UsedContexts& contexts) {
    for (const auto& [pid, device, context] : contexts) {
        r.contexts.push_back(CudaContext{pid, device, context, {}});
        if (device < 0 || r.findGpu(device)) continue;
        Gpu g;
        g.deviceId = device;
        g.name = "GPU " + std::to_string(device);
        r.gpus.push_back(g);
    }
    std::sort(r.gpus.begin(), r.gpus.end(), [](const Gpu& a, const Gpu& b) { return a.deviceId < b.deviceId; });
}

}  // namespace sl::import
