#pragma once
// Which schema column holds a kind's correlation id, size, or grouping code. Shared by the
// events index, the selection statistics and the event details so they agree on labels.
#include "model/core/Track.h"

namespace sl::analysis {

inline int correlationColumn(EventKind kind) {
    switch (kind) {
        case EventKind::CudaApi: return cols::CudaApi::Correlation;
        case EventKind::Kernel: return cols::Kernel::Correlation;
        case EventKind::Memcpy: return cols::Memcpy::Correlation;
        case EventKind::Memset: return cols::Memset::Correlation;
        case EventKind::Sync: return cols::Sync::Correlation;
        case EventKind::CudaMemory: return cols::CudaMemory::Correlation;
        case EventKind::GraphTrace: return cols::GraphTrace::Correlation;
        default: return -1;
    }
}

inline int bytesColumn(EventKind kind) {
    switch (kind) {
        case EventKind::Memcpy: return cols::Memcpy::Bytes;
        case EventKind::Memset: return cols::Memset::Bytes;
        case EventKind::CudaMemory: return cols::CudaMemory::Bytes;
        default: return -1;
    }
}

// The column whose value groups a nameless kind's events (copy kind, sync type...), or -1.
inline int groupColumn(EventKind kind) {
    switch (kind) {
        case EventKind::Memcpy: return cols::Memcpy::CopyKind;
        case EventKind::Sync: return cols::Sync::SyncType;
        case EventKind::CudaMemory: return cols::CudaMemory::Op;
        case EventKind::CuptiOverhead: return cols::CuptiOverhead::OverheadKind;
        default: return -1;
    }
}

// A nameless event's group code in [0, 256).
inline uint32_t groupKeyOf(const Track& t, size_t i) {
    const int c = groupColumn(t.key.kind);
    return c < 0 ? 0 : static_cast<uint32_t>(t.intAt(c, i)) & 0xff;
}

}  // namespace sl::analysis
