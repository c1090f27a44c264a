#pragma once
// MPI calls (-t mpi) in the nsys export schema: MPI_RANKS (the rank of each thread's process)
// and one table per call class, as nsys splits them: MPI_P2P_EVENTS, MPI_COLLECTIVES_EVENTS,
// MPI_START_WAIT_EVENTS, MPI_OTHER_EVENTS (function names as StringIds ids in textId).
#include "model/export/NsysTables.h"

namespace sl::exporter {

// `origin` is the report's time origin (timestamps are written relative to it).
Status emitMpiTables(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats, int64_t origin);

}  // namespace sl::exporter
