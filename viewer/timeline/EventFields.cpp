#include "viewer/timeline/EventFields.h"

#include "model/analysis/EventQueryDetails.h"
#include "model/util/Format.h"

namespace sl::viewer {

std::string eventLabel(const Report& r, const Track& t, size_t i) {
    switch (t.key.kind) {
        case EventKind::Memcpy:
            return std::string(
                       copyKindName(static_cast<CopyKind>(t.intAt(cols::Memcpy::CopyKind, i)))) +
                   " " + formatBytes(static_cast<uint64_t>(t.intAt(cols::Memcpy::Bytes, i)));
        case EventKind::Memset:
            return "Memset " + formatBytes(static_cast<uint64_t>(t.intAt(cols::Memset::Bytes, i)));
        case EventKind::Sync:
            return std::string(
                syncTypeName(static_cast<SyncType>(t.intAt(cols::Sync::SyncType, i))));
        case EventKind::ThreadState:
            return "Running";
        case EventKind::CudaMemory:
            return std::string(t.intAt(cols::CudaMemory::Op, i) == 0 ? "Alloc " : "Free ") +
                   formatBytes(static_cast<uint64_t>(t.intAt(cols::CudaMemory::Bytes, i)));
        case EventKind::CpuSample:
            return analysis::eventName(r, t, i);  // an unresolved leaf: where it is
        default:
            break;
    }
    return std::string(r.str(t.nameAt(i)));
}

}  // namespace sl::viewer
