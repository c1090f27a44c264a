#pragma once
// One cuBLAS, cuDNN or NCCL call's columns (EventKind::Cublas, Cudnn, Nccl) read into a
// struct, with the names the stats reports, the exports and the event details share.
#include <cstdint>
#include <string_view>

#include "model/core/Track.h"

namespace sl::analysis {

inline bool isCudaLibKind(EventKind k) {
    return k == EventKind::Cublas || k == EventKind::Cudnn || k == EventKind::Nccl;
}
// "cuBLAS", "cuDNN", "NCCL": the rows' and reports' name of the library.
inline std::string_view cudaLibLabel(EventKind k) {
    return k == EventKind::Cublas ? "cuBLAS" : k == EventKind::Cudnn ? "cuDNN" : "NCCL";
}

struct CudaLibCall {
    uint64_t handle = 0;  // cuBLAS/cuDNN handle, or the NCCL communicator; 0: none
    uint64_t stream = 0;  // 0: the default stream (or none known)
    int32_t status = 0;   // the call's return value (0: success in all three libraries)
    int64_t count = -1, bytes = 0;       // NCCL: elements and bytes; -1: none
    int32_t datatype = -1, redop = -1;   // NCCL: ncclDataType_t, ncclRedOp_t; -1: none
    int32_t peer = -1, rank = -1, ranks = -1;  // NCCL: root or peer, the rank and size
};

inline CudaLibCall cudaLibCallAt(const Track& t, size_t i) {
    CudaLibCall c;
    if (t.key.kind == EventKind::Nccl) {
        c.handle = static_cast<uint64_t>(t.intAt(cols::Nccl::Comm, i));
        c.stream = static_cast<uint64_t>(t.intAt(cols::Nccl::Stream, i));
        c.status = static_cast<int32_t>(t.intAt(cols::Nccl::Status, i));
        c.count = t.intAt(cols::Nccl::Count, i);
        c.bytes = t.intAt(cols::Nccl::Bytes, i);
        c.datatype = static_cast<int32_t>(t.intAt(cols::Nccl::DataType, i));
        c.redop = static_cast<int32_t>(t.intAt(cols::Nccl::RedOp, i));
        c.peer = static_cast<int32_t>(t.intAt(cols::Nccl::Peer, i));
        c.rank = static_cast<int32_t>(t.intAt(cols::Nccl::Rank, i));
        c.ranks = static_cast<int32_t>(t.intAt(cols::Nccl::Ranks, i));
    } else {
        c.handle = static_cast<uint64_t>(t.intAt(cols::CudaLib::Handle, i));
        c.stream = static_cast<uint64_t>(t.intAt(cols::CudaLib::Stream, i));
        c.status = static_cast<int32_t>(t.intAt(cols::CudaLib::Status, i));
    }
    return c;
}

// ncclDataType_t and ncclRedOp_t names as nccl.h spells them ("" for none or unknown).
inline std::string_view ncclDataTypeName(int32_t t) {
    static constexpr std::string_view kNames[] = {"ncclInt8",    "ncclUint8",     "ncclInt32",
                                                  "ncclUint32",  "ncclInt64",     "ncclUint64",
                                                  "ncclFloat16", "ncclFloat32",   "ncclFloat64",
                                                  "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};
    return t >= 0 && t < static_cast<int32_t>(std::size(kNames)) ? kNames[t] : std::string_view();
}
inline std::string_view ncclRedOpName(int32_t op) {
    static constexpr std::string_view kNames[] = {"ncclSum", "ncclProd", "ncclMax", "ncclMin", "ncclAvg"};
    return op >= 0 && op < static_cast<int32_t>(std::size(kNames)) ? kNames[op] : std::string_view();
}

}  // namespace sl::analysis
