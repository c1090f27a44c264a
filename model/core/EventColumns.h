#pragma once
// Which field of each event struct (Events.h) goes into which schema column (Schema.cpp), the
// one definition that the ReportBuilder and capture's packing (the CUPTI module's raw stream)
// share: adding a field to a kind is a line in Schema.cpp and a line here.
//
//   columnsOf(e)        the kind's columns, in schema order, as the integers Track::append and
//                       EventRecord take (enums as their value, doubles as their IEEE bits)
//   fromColumns(c, e)   the inverse
//
// Kernel's `launch` column holds an id into a dictionary of launch configurations (the
// report's kernelLaunches, a stream's launch records): columnsOf(kernel, launchIdOf) and
// fromColumns(c, kernel, launchOf) take the dictionary's two directions as callables.
// Header-only, no dependency beyond Events.h, so the injection modules use it as they are.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "model/core/Events.h"

namespace sl {

// EventColumns<E>::kind and EventColumns<E>::visit(e, v), which calls v(column name, field) for
// each column in schema order. E may be const. Specialized below for every event struct (one
// per kind; cuBLAS and cuDNN share one template).
template <class E>
struct EventColumns;

template <>
struct EventColumns<OsRuntimeCall> {
    static constexpr EventKind kind = EventKind::OsRuntime;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("result", e.result);
        v("errno", e.errnum);
    }
};

template <>
struct EventColumns<CudaApiCall> {
    static constexpr EventKind kind = EventKind::CudaApi;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("correlation", e.correlation);
        v("cbid", e.cbid);
        v("api", e.api);
        v("result", e.result);
    }
};

template <>
struct EventColumns<KernelExec> {
    static constexpr EventKind kind = EventKind::Kernel;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("correlation", e.correlation);
        v("launch", e.launch);  // through the launch dictionary
    }
};

template <>
struct EventColumns<MemcpyOp> {
    static constexpr EventKind kind = EventKind::Memcpy;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("correlation", e.correlation);
        v("bytes", e.bytes);
        v("copy_kind", e.copyKind);
        v("src_kind", e.srcKind);
        v("dst_kind", e.dstKind);
        v("src_device", e.srcDevice);
        v("dst_device", e.dstDevice);
        v("flags", e.flags);
    }
};

template <>
struct EventColumns<MemsetOp> {
    static constexpr EventKind kind = EventKind::Memset;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("correlation", e.correlation);
        v("bytes", e.bytes);
        v("value", e.value);
        v("mem_kind", e.memKind);
    }
};

template <>
struct EventColumns<SyncOp> {
    static constexpr EventKind kind = EventKind::Sync;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("correlation", e.correlation);
        v("sync_type", e.type);
        v("event", e.event);
    }
};

template <>
struct EventColumns<GraphExec> {
    static constexpr EventKind kind = EventKind::GraphTrace;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("correlation", e.correlation);
        v("graph_id", e.graphId);
    }
};

template <>
struct EventColumns<NvtxRangeEvent> {
    static constexpr EventKind kind = EventKind::NvtxRange;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("category", e.category);
        v("color", e.color);
        v("payload_type", e.payloadType);
        v("payload", e.payload);
        v("range_type", e.rangeType);
        v("end_tid", e.endTid);
    }
};

template <>
struct EventColumns<NvtxMarkEvent> {
    static constexpr EventKind kind = EventKind::NvtxMark;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("category", e.category);
        v("color", e.color);
        v("payload_type", e.payloadType);
        v("payload", e.payload);
    }
};

template <>
struct EventColumns<MetricSample> {
    static constexpr EventKind kind = EventKind::Metric;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("value", e.value);
    }
};

template <>
struct EventColumns<CudaMemoryEvent> {
    static constexpr EventKind kind = EventKind::CudaMemory;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("address", e.address);
        v("bytes", e.bytes);
        v("mem_kind", e.memKind);
        v("op", e.op);
        v("correlation", e.correlation);
    }
};

template <>
struct EventColumns<ThreadRunning> {
    static constexpr EventKind kind = EventKind::ThreadState;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("state", e.state);
        v("cpu", e.cpu);
    }
};

template <>
struct EventColumns<CuptiOverheadEvent> {
    static constexpr EventKind kind = EventKind::CuptiOverhead;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("overhead_kind", e.kind);
    }
};

template <>
struct EventColumns<CpuSampleEvent> {
    static constexpr EventKind kind = EventKind::CpuSample;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("stack", e.stack);
        v("cpu", e.cpu);
    }
};

template <>
struct EventColumns<MpiCall> {
    static constexpr EventKind kind = EventKind::Mpi;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("class", e.callClass);
        v("comm", e.comm);
        v("peer", e.peer);
        v("tag", e.tag);
        v("root", e.root);
        v("bytes", e.bytes);
        v("recv_bytes", e.recvBytes);
        v("request", e.request);
    }
};

template <>
struct EventColumns<OpenMpConstruct> {
    static constexpr EventKind kind = EventKind::OpenMp;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("event", e.event);
        v("kind", e.kind);
        v("parallel_id", e.parallelId);
        v("task_id", e.taskId);
        v("count", e.count);
        v("index", e.index);
        v("code_ptr", e.codePtr);
    }
};

template <EventKind K>
struct EventColumns<CudaLibCallOf<K>> {
    static constexpr EventKind kind = K;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("handle", e.handle);
        v("stream", e.stream);
        v("status", e.status);
    }
};

template <>
struct EventColumns<NcclCall> {
    static constexpr EventKind kind = EventKind::Nccl;
    template <class E, class V>
    static constexpr void visit(E& e, V&& v) {
        v("comm", e.comm);
        v("stream", e.stream);
        v("status", e.status);
        v("count", e.count);
        v("bytes", e.bytes);
        v("datatype", e.dataType);
        v("redop", e.redOp);
        v("peer", e.peer);
        v("rank", e.rank);
        v("ranks", e.ranks);
    }
};

// The number of columns of E (the visit's calls).
template <class E>
inline constexpr size_t kColumnCount = [] {
    E e{};
    size_t n = 0;
    EventColumns<E>::visit(e, [&n](std::string_view, auto&) { ++n; });
    return n;
}();

// What columnsOf/fromColumns get for kinds without a dictionary column. Calling it (a kernel
// packed without its launch dictionary) does not compile.
struct NoLaunchDictionary {
    uint32_t operator()(const KernelLaunchInfo&) const = delete;
    KernelLaunchInfo operator()(uint32_t) const = delete;
};

namespace detail {

template <class T>
constexpr int64_t toColumn(T v) {
    if constexpr (std::is_enum_v<T>)
        return static_cast<int64_t>(static_cast<std::underlying_type_t<T>>(v));
    else if constexpr (std::is_floating_point_v<T>)
        return std::bit_cast<int64_t>(static_cast<double>(v));
    else
        return static_cast<int64_t>(v);
}

template <class T>
constexpr T fromColumn(int64_t c) {
    if constexpr (std::is_enum_v<T>)
        return static_cast<T>(static_cast<std::underlying_type_t<T>>(c));
    else if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(std::bit_cast<double>(c));
    else
        return static_cast<T>(c);
}

}  // namespace detail

// e's columns in schema order. `launchIdOf(const KernelLaunchInfo&) -> uint32_t` for kernels.
template <class E, class LaunchIdOf = NoLaunchDictionary>
std::array<int64_t, kColumnCount<E>> columnsOf(const E& e, LaunchIdOf&& launchIdOf = {}) {
    std::array<int64_t, kColumnCount<E>> out{};
    size_t k = 0;
    EventColumns<E>::visit(e, [&](std::string_view, const auto& field) {
        using T = std::decay_t<decltype(field)>;
        if constexpr (std::is_same_v<T, KernelLaunchInfo>)
            out[k++] = launchIdOf(field);
        else
            out[k++] = detail::toColumn(field);
    });
    return out;
}

// Fills e's column fields from `columns` (kColumnCount<E> values in schema order).
// `launchOf(uint32_t) -> KernelLaunchInfo` for kernels.
template <class E, class LaunchOf = NoLaunchDictionary>
void fromColumns(const int64_t* columns, E& e, LaunchOf&& launchOf = {}) {
    size_t k = 0;
    EventColumns<E>::visit(e, [&](std::string_view, auto& field) {
        using T = std::decay_t<decltype(field)>;
        if constexpr (std::is_same_v<T, KernelLaunchInfo>)
            field = launchOf(static_cast<uint32_t>(columns[k++]));
        else
            field = detail::fromColumn<T>(columns[k++]);
    });
}

}  // namespace sl
