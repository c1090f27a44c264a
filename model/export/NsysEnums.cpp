#include "model/export/NsysEnums.h"

#include <span>
#include <utility>

#include "model/export/TableScope.h"

namespace sl::exporter {
namespace {

constexpr ColumnDef kEnumCols[] = {{"id", "INTEGER NOT NULL PRIMARY KEY"}, {"name", "TEXT"}, {"label", "TEXT"}};

constexpr EnumRow kMemcpyOper[] = {
    {0, "CUDA_MEMCPY_OPER_UNKNOWN", "Unknown"},       {1, "CUDA_MEMCPY_OPER_HTOD", "Host-to-Device"},
    {2, "CUDA_MEMCPY_OPER_DTOH", "Device-to-Host"},   {3, "CUDA_MEMCPY_OPER_HTOA", "Host-to-Array"},
    {4, "CUDA_MEMCPY_OPER_ATOH", "Array-to-Host"},    {5, "CUDA_MEMCPY_OPER_ATOA", "Array-to-Array"},
    {6, "CUDA_MEMCPY_OPER_ATOD", "Array-to-Device"},  {7, "CUDA_MEMCPY_OPER_DTOA", "Device-to-Array"},
    {8, "CUDA_MEMCPY_OPER_DTOD", "Device-to-Device"}, {9, "CUDA_MEMCPY_OPER_HTOH", "Host-to-Host"},
    {10, "CUDA_MEMCPY_OPER_PTOP", "Peer-to-Peer"},    {11, "CUDA_MEMCPY_OPER_UVM_HTOD", "Unified Host-to-Device"},
    {12, "CUDA_MEMCPY_OPER_UVM_DTOH", "Unified Device-to-Host"},
    {13, "CUDA_MEMCPY_OPER_UVM_DTOD", "Unified Device-to-Device"},
};
constexpr EnumRow kMemKind[] = {
    {0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"},
    {1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"},
    {2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"},
    {3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"},
    {4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"},
    {5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
    {6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"},
    {7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"},
};
constexpr EnumRow kSyncType[] = {
    {0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown"},
    {1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event sync"},
    {2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream wait event"},
    {3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync"},
    {4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context sync"},
};
constexpr EnumRow kLaunchType[] = {
    {0, "CUDA_KERNEL_LAUNCH_TYPE_REGULAR", "Regular"},
    {1, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE", "Cooperative single device"},
    {2, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE", "Cooperative multi device"},
    {3, "CUDA_KERNEL_LAUNCH_TYPE_CBP_SINGLE_DEVICE", "CBP single device"},
};
constexpr EnumRow kEventClass[] = {
    {0, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "CUDA runtime"},
    {1, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "CUDA driver"},
    {28, "TRACE_PROCESS_EVENT_CUDNN", "cuDNN"},
    {29, "TRACE_PROCESS_EVENT_CUBLAS", "cuBLAS"},
    {67, "TRACE_PROCESS_EVENT_CUDABACKTRACE", "CUDA backtrace"},
    {78, "TRACE_PROCESS_EVENT_OPENMP", "OpenMP"},
};
// Scripts look these up by name (e.g. WHERE name = 'NvtxPushPopRange'), so the names are nsys's.
constexpr EnumRow kEventType[] = {
    {33, "NvtxCategory", "NVTX Category"},
    {34, "NvtxMark", "NVTX Mark"},
    {39, "NvtxThread", "NVTX Thread"},
    {59, "NvtxPushPopRange", "NVTX PushPop Range"},
    {60, "NvtxStartEndRange", "NVTX StartEnd Range"},
    {75, "NvtxDomainCreate", "NVTX Domain Create"},
    {76, "NvtxDomainDestroy", "NVTX Domain Destroy"},
};
constexpr EnumRow kMemOperType[] = {{0, "MEMORY_OPERATION_TYPE_ALLOCATION", "Allocation"},
                                    {1, "MEMORY_OPERATION_TYPE_DEALLOCATION", "Deallocation"}};

}  // namespace

Status emitNsysEnum(RowSink& sink, ExportStats& stats, std::string_view name, std::span<const EnumRow> rows) {
    TableScope t(sink, stats, name, kEnumCols);
    if (t.open())
        for (const auto& e : rows) {
            Cell c[] = {Cell::of(e.id), Cell::text(e.name), Cell::text(e.label)};
            t.row(c);
        }
    return t.finish();
}

Status emitNsysEnumTables(RowSink& sink, ExportStats& stats) {
    const std::pair<std::string_view, std::span<const EnumRow>> all[] = {
        {"ENUM_CUDA_MEMCPY_OPER", kMemcpyOper}, {"ENUM_CUDA_MEM_KIND", kMemKind},
        {"ENUM_CUPTI_SYNC_TYPE", kSyncType},     {"ENUM_CUDA_KERNEL_LAUNCH_TYPE", kLaunchType},
        {"ENUM_NSYS_EVENT_CLASS", kEventClass},  {"ENUM_NSYS_EVENT_TYPE", kEventType},
        {"ENUM_CUDA_DEV_MEM_EVENT_OPER", kMemOperType}};
    for (const auto& [name, rows] : all)
        if (Status s = emitNsysEnum(sink, stats, name, rows); !s) return s;
    return {};
}

}  // namespace sl::exporter
