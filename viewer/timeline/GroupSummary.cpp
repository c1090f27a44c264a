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

// The rows a summary reads (CPU activity where the group has it; else every row of events with
// a duration: instants such as CPU samples and marks have no busy time to weigh), at most
// kGroupSummaryMaxTracks.
std::vector<const Track*> summaryTracks(const Row& group, bool& cpu) {
    std::unordered_set<const Track*> seen;
    std::vector<const Track*> tracks;
    collectTracks(group, seen, tracks);
    cpu = std::any_of(tracks.begin(), tracks.end(),
                      [](const Track* t) { return t->key.kind == EventKind::ThreadState; });
    std::erase_if(tracks, [cpu](const Track* t) {
        return cpu ? t->key.kind != EventKind::ThreadState : t->end.empty();
    });
    if (tracks.size() > kGroupSummaryMaxTracks) {
        std::partial_sort(tracks.begin(), tracks.begin() + kGroupSummaryMaxTracks, tracks.end(),
                          [](const Track* a, const Track* b) { return a->size() > b->size(); });
        tracks.resize(kGroupSummaryMaxTracks);
    }
    return tracks;
}

// How busy `group`'s rows are in each of `columns` equal parts of [t0, t1): 0-1 each (empty
// when it has no event rows); `cpu` when it is its threads' CPU time.
struct GroupActivity {
    std::vector<double> busy;
    bool cpu = false;
};

GroupActivity groupActivity(const Row& group, int64_t t0, int64_t t1, uint32_t columns) {
    GroupActivity a;
    const std::vector<const Track*> tracks = summaryTracks(group, a.cpu);
    if (tracks.empty() || columns == 0 || t1 <= t0) return a;
    a.busy.assign(columns, 0.0);
    const double bucketNs = static_cast<double>(t1 - t0) / columns;
    std::vector<LodBucket> buckets;
    for (const Track* t : tracks) {
        queryBuckets(*t, 0, t0, t1, columns, buckets, false);
        for (uint32_t b = 0; b < columns && b < buckets.size(); ++b) {
            const double f = std::min(1.0, static_cast<double>(buckets[b].busyNs) / bucketNs);
            a.busy[b] = a.cpu ? std::min(1.0, a.busy[b] + f) : std::max(a.busy[b], f);
        }
    }
    return a;
}

}  // namespace

void buildGroupSummary(const Row& group, const RowContext& ctx, DrawList& out) {
    if (ctx.width < 1) return;
    // One bucket per pixel column of the event area.
    const auto n = static_cast<uint32_t>(std::ceil(ctx.width));
    const GroupActivity a =
        groupActivity(group, ctx.t0, ctx.t0 + static_cast<int64_t>(n * ctx.nsPerPixel), n);
    if (a.busy.empty()) return;
    const TimelineTheme& theme = TimelineTheme::current();
    constexpr float kInset = 3;
    out.beginStrip(ctx.x, ctx.y + kInset, Row::kGroupHeight - 2 * kInset);
    for (double busy : a.busy) {
        // Eighths: finer steps are not visible. A column with any activity shows.
        const double f = std::ceil(busy * 8) / 8;
        out.addColumn(f > 0 ? blendOver(theme.summary, 0.3 + 0.7 * f, theme.groupBg) : 0);
    }
    out.endStrip();
}

std::optional<HitInfo> groupSummaryHit(const Row& group, const RowContext& ctx, float x) {
    const int64_t t0 = ctx.timeAt(std::floor(x)), t1 = ctx.timeAt(std::floor(x) + 1);
    const GroupActivity a = groupActivity(group, t0, t1, 1);
    if (a.busy.empty() || a.busy[0] <= 0) return std::nullopt;
    HitInfo hit;
    hit.name = group.title();
    hit.start = t0;
    hit.end = t1;
    hit.y0 = ctx.y;
    hit.y1 = ctx.y + Row::kGroupHeight;
    hit.fields.emplace_back(a.cpu ? "CPU busy" : "Busy",
                            std::to_string(static_cast<int>(std::lround(a.busy[0] * 100))) +
                                "% of this pixel's time");
    hit.fields.emplace_back("Events", std::to_string(group.count()));
    return hit;
}

}  // namespace sl::viewer
