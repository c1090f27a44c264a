#pragma once
// The ENUM_* tables of the nsys export schema (id, name, label), with nsys's ids and labels:
// memcpy kinds, memory kinds, synchronization types, kernel launch types, CUDA API event
// classes, NVTX event types and memory operation types.
#include <span>

#include "model/export/NsysTables.h"

namespace sl::exporter {

struct EnumRow {
    int64_t id;
    const char* name;
    const char* label;
};

Status emitNsysEnumTables(RowSink& sink, ExportStats& stats);
// One ENUM_* table (id, name, label): for the enumerations written only with their events
// (ENUM_OPENMP_*, NsysOpenMpTables.cpp).
Status emitNsysEnum(RowSink& sink, ExportStats& stats, std::string_view name, std::span<const EnumRow> rows);

}  // namespace sl::exporter
