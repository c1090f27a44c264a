#pragma once
// The ENUM_* tables of the nsys export schema (id, name, label), with nsys's ids and labels:
// memcpy kinds, memory kinds, synchronization types, kernel launch types, CUDA API event
// classes, NVTX event types and memory operation types.
#include "model/export/NsysTables.h"

namespace sl::exporter {

Status emitNsysEnumTables(RowSink& sink, ExportStats& stats);

}  // namespace sl::exporter
