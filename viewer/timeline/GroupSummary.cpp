#include "viewer/timeline/GroupSummary.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>
#include <vector>

#include "model/core/LodQuery.h"
#include "viewer/timeline/Palette.h"
#include "viewer/timeline/TimelineTheme.h"
#include "viewer/timeline/TrackRow.h"

namespace sl::viewer {
namespace {

// The event tracks under `group` (each once: summary rows repeat their children's).
void collectTracks(const Row& group, std::unordered_set<const Track*>& seen,
                   std::vector<const Track*>& out) {
    for (const auto& child : group.children()) {
        if (const auto* tr = dynamic_cast<const TrackRow*>(child.get())) {
            for (const Track* t : tr->tracks())
                if (t->size() > 0 && seen.insert(t).second) out.push_back(t);
        } else {
            collectTracks(*child, seen, out);
        }
    }
}

}  // namespace

void buildGroupSummary(const Row& group, const RowContext& ctx, DrawList& out) {
    std::unordered_set<const Track*> seen;
    std::vector<const Track*> tracks;
    collectTracks(group, seen, tracks);
    // CPU activity where the group has it; else every row but CPU samples (instants: no busy
    // time to weigh).
    const bool cpu = std::any_of(tracks.begin(), tracks.end(), [](const Track* t) {
        return t->key.kind == EventKind::ThreadState;
    });
    std::erase_if(tracks, [cpu](const Track* t) {
        return cpu ? t->key.kind != EventKind::ThreadState : t->key.kind == EventKind::CpuSample;
    });
    if (tracks.empty() || ctx.width < 1) return;
    if (tracks.size() > kGroupSummaryMaxTracks) {
        std::partial_sort(tracks.begin(), tracks.begin() + kGroupSummaryMaxTracks, tracks.end(),
                          [](const Track* a, const Track* b) { return a->size() > b->size(); });
        tracks.resize(kGroupSummaryMaxTracks);
    }
    // One bucket per pixel column of the event area.
    const auto n = static_cast<uint32_t>(std::ceil(ctx.width));
    const int64_t b0 = ctx.t0;
    const int64_t b1 = ctx.t0 + static_cast<int64_t>(n * ctx.nsPerPixel);
    const double bucketNs = static_cast<double>(b1 - b0) / n;
    if (bucketNs <= 0) return;
    std::vector<double> busy(n, 0.0);
    std::vector<LodBucket> buckets;
    for (const Track* t : tracks) {
        queryBuckets(*t, 0, b0, b1, n, buckets, false);
        for (uint32_t b = 0; b < n && b < buckets.size(); ++b) {
            const double f = std::min(1.0, static_cast<double>(buckets[b].busyNs) / bucketNs);
            busy[b] = cpu ? std::min(1.0, busy[b] + f) : std::max(busy[b], f);
        }
    }
    const TimelineTheme& theme = TimelineTheme::current();
    const float inset = 3;
    out.beginStrip(ctx.x, ctx.y + inset, Row::kGroupHeight - 2 * inset);
    for (uint32_t b = 0; b < n; ++b) {
        // Eighths: finer steps are not visible. A column with any activity shows.
        const double f = std::ceil(busy[b] * 8) / 8;
        out.addColumn(f > 0 ? blendOver(theme.summary, 0.3 + 0.7 * f, theme.groupBg) : 0);
    }
    out.endStrip();
}

}  // namespace sl::viewer
