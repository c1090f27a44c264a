#pragma once
// cuBLAS, cuDNN and NCCL calls (-t cublas,cudnn,nccl) in the nsys export schema: nsys's
// CUBLAS_EVENTS and CUDNN_EVENTS (start, end, eventClass 29 / 28, globalTid, nameId), with
// Sightline's handle, stream and status columns after nsys's, and NCCL_EVENTS, Sightline's own
// table (nsys shows NCCL through the NVTX ranges NCCL itself emits; it has no table of NCCL
// calls with their arguments).
#include "model/export/NsysTables.h"

namespace sl::exporter {

// `origin` is the report's time origin (timestamps are written relative to it).
Status emitCudaLibTables(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats,
                         int64_t origin);

}  // namespace sl::exporter
