// openmp_sum (-t openmp).
#include "model/analysis/DenseGroups.h"
#include "model/analysis/StatsReports.h"

namespace sl::analysis {

// Per OpenMP event name ("parallel", "loop", "implicit barrier (parallel)", ...), laid out as
// osrt_sum, with nsys's "Count": the events of every thread together. Nested constructs each
// count their whole time (a parallel region's time includes its loops and barriers).
Table runOpenMpSum(const Report& r, const StatsOptions& o) {
    Table t("openmp_sum", "OpenMP Summary");
    if (r.eventCount(EventKind::OpenMp) == 0)
        return Table::skip(t.name, t.title, "does not contain OpenMP event data.");
    DenseGroups byId = durationsByName(r, EventKind::OpenMp, o);
    if (o.cancelled()) return cancelledTable(t);
    std::vector<SummaryGroup> g = mergedByName(byId, [&](uint32_t id) { return r.str(id); });
    fillSummary(t, {"Count", {"Name"}}, g, o.cancel);
    return o.cancelled() ? cancelledTable(t) : t;
}

}  // namespace sl::analysis
