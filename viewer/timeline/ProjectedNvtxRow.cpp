#include "viewer/timeline/ProjectedNvtxRow.h"

#include <map>
#include <tuple>

#include "viewer/timeline/TrackRow.h"

#ifdef SIGHTLINE_HAVE_ANALYSIS
#include <algorithm>

#include "model/analysis/CorrelationIndex.h"
#include "model/analysis/NvtxGpuProjection.h"
#include "model/analysis/NvtxRangeTree.h"
#endif

namespace sl::viewer {

namespace {

// Holds the projected track; a base listed before TrackRow so it is built first.
struct TrackHolder {
    explicit TrackHolder(std::unique_ptr<Track> t) : held(std::move(t)) {}
    std::unique_ptr<Track> held;
};

class OwningTrackRow : private TrackHolder, public TrackRow {
public:
    OwningTrackRow(const Report& r, std::string title, std::unique_ptr<Track> t)
        : TrackHolder(std::move(t)), TrackRow(r, std::move(title), {held.get()}, false) {}
};

}  // namespace

struct ProjectedNvtx::Impl {
    const Report* report = nullptr;
    // One track per (device, pid, tid): ranges of different threads overlap in time, and
    // packing them into one row would interleave their nesting.
    std::map<std::tuple<int32_t, int64_t, int64_t>, std::unique_ptr<Track>> tracks;
};

ProjectedNvtx::ProjectedNvtx([[maybe_unused]] const Report& report,
                             [[maybe_unused]] const std::atomic<bool>* cancel)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->report = &report;
#ifdef SIGHTLINE_HAVE_ANALYSIS
    using namespace sl::analysis;
    // Checked between the three indexes, each about a third of the time at 10 M events.
    auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
    if (!applies(report) || cancelled()) return;
    const CorrelationIndex corr(report);
    if (cancelled()) return;
    const NvtxRangeTree tree(report);
    if (cancelled()) return;
    const NvtxGpuProjection proj(report, corr, tree);
    if (cancelled()) return;
    std::vector<int64_t> extra;  // a range's other columns, reused
    for (const ProjectedRange& pr : proj.ranges()) {
        const auto& node = tree.nodes()[pr.node];
        const Track& nvtx = report.tracks[node.ref.track];
        // The device of a range: that of the first GPU operation launched inside it, which
        // the projection found on its way (no search of the thread's API calls per range).
        const int32_t device = pr.device;
        if (device < 0) continue;
        auto& t = m_impl->tracks[{device, node.pid, node.tid}];
        if (!t) {
            t = std::make_unique<Track>(
                TrackKey::forProcessDevice(EventKind::NvtxRange, node.pid, device));
            t->key.tid = node.tid;
        }
        extra.resize(nvtx.cols.size());
        for (size_t c = 0; c < extra.size(); ++c)
            extra[c] = nvtx.intAt(static_cast<int>(c), node.ref.index);
        t->append(pr.projStart, pr.projEnd, nvtx.nameAt(node.ref.index), extra.data());
    }
    for (auto& [d, t] : m_impl->tracks) {
        t->finalize();
        // The row needs times, names and colors only: drop the other columns (about 22 of
        // 46 bytes per range). Tooltips read them only where present.
        for (size_t c = 0; c < t->cols.size(); ++c)
            if (c != cols::Nvtx::Color) {
                t->cols[c].clear();
                t->cols[c].shrinkToFit();
            }
    }
#endif
}

ProjectedNvtx::~ProjectedNvtx() = default;

bool ProjectedNvtx::applies([[maybe_unused]] const Report& report) {
#ifdef SIGHTLINE_HAVE_ANALYSIS
    return !report.tracksOfKind(EventKind::NvtxRange).empty() &&
           !report.tracksOfKind(EventKind::CudaApi).empty();
#else
    return false;
#endif
}

std::vector<std::unique_ptr<Row>> ProjectedNvtx::takeRows(int32_t device) {
    std::vector<std::unique_ptr<Track>> mine;
    for (auto& [key, t] : m_impl->tracks)
        if (std::get<0>(key) == device && t) mine.push_back(std::move(t));
    std::vector<std::unique_ptr<Row>> rows;
    for (auto& t : mine) {
        std::string title = "NVTX (projected)";
        if (mine.size() > 1) title += ": " + m_impl->report->threadTitle(t->key.pid, t->key.tid);
        rows.push_back(std::make_unique<OwningTrackRow>(*m_impl->report, title, std::move(t)));
    }
    return rows;
}

}  // namespace sl::viewer
