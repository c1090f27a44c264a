#include "capture/cupti/CuptiApiNames.h"

#include <algorithm>
#include <array>
#include <vector>

namespace sl::cuda {
namespace {

struct CbidName {
    uint32_t cbid;
    std::string_view name;
};

// Generated: {cbid, "name"} sorted by cbid.
constexpr CbidName kRuntime[] = {
#include "CuptiRuntimeCbidNames.inc"
};
constexpr CbidName kDriver[] = {
#include "CuptiDriverCbidNames.inc"
};

template <size_t N>
std::string_view find(const CbidName (&table)[N], uint32_t cbid) {
    auto it = std::lower_bound(std::begin(table), std::end(table), cbid,
                               [](const CbidName& e, uint32_t id) { return e.cbid < id; });
    return it != std::end(table) && it->cbid == cbid ? it->name : std::string_view{};
}

}  // namespace

std::string_view apiName(ApiKind api, uint32_t cbid) {
    return api == ApiKind::Runtime ? find(kRuntime, cbid) : find(kDriver, cbid);
}

size_t apiNameCount(ApiKind api) {
    return api == ApiKind::Runtime ? std::size(kRuntime) : std::size(kDriver);
}

bool isEventRecordApi(ApiKind api, uint32_t cbid) {
    std::string_view n = apiName(api, cbid);
    return n.starts_with("cudaEventRecord") || n.starts_with("cuEventRecord");
}

}  // namespace sl::cuda
