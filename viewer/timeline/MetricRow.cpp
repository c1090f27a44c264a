#include "viewer/timeline/MetricRow.h"
#include "viewer/timeline/TimelineTheme.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "model/core/LodQuery.h"
#include "model/util/Format.h"
#include "viewer/timeline/Palette.h"

namespace sl::viewer {

namespace {

std::string formatValue(double v, const std::string& unit) {
    if (unit == "bytes") return formatBytes(static_cast<uint64_t>(std::max(0.0, v)));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g%s%s", v, unit.empty() ? "" : " ", unit.c_str());
    return buf;
}

std::string unitOf(const Report& r, const Track& t) {
    const MetricSeries* ms = r.findSeries(t.key.series);
    return ms ? ms->unit : std::string();
}

}  // namespace

void GraphRow::build(const RowContext& ctx, DrawList& out) const {
    const auto n = static_cast<uint32_t>(std::max(1.0f, std::ceil(ctx.width)));
    thread_local std::vector<GraphColumn> cols;
    columns(ctx, n, cols);
    const float top = ctx.y + 3, bottom = ctx.y + kHeight - 2;
    const double scale = m_scaleMax > 0 ? m_scaleMax : 1;
    auto yOf = [&](double v) {
        return bottom - static_cast<float>(std::clamp(v / scale, 0.0, 1.0)) * (bottom - top);
    };
    const uint32_t area = withAlpha(m_color, 0.45);
    DrawPolyline line;
    line.argb = m_color;
    for (uint32_t i = 0; i < n; ++i) {
        const GraphColumn& c = cols[i];
        if (!c.has) {
            if (line.xy.size() >= 4) out.polylines.push_back(line);
            line.xy.clear();
            continue;
        }
        const float x = ctx.x + static_cast<float>(i);
        const float y = std::round(yOf(c.max));
        if (y < bottom) {
            DrawBox b{x, y, 1, bottom - y, area};
            DrawBox* prev = out.boxes.empty() ? nullptr : &out.boxes.back();
            if (prev && prev->argb == area && prev->y == b.y && prev->h == b.h &&
                prev->x + prev->w == x)
                prev->w += 1;
            else
                out.boxes.push_back(b);
        }
        line.xy.push_back(x + 0.5f);
        line.xy.push_back(yOf(c.line));
    }
    if (line.xy.size() >= 4) out.polylines.push_back(line);
    out.labels.push_back({ctx.x + ctx.width - 130, ctx.y, 126, 14, TimelineTheme::current().metricText,
                          "max " + formatValue(m_scaleMax, m_unit)});
}

std::optional<HitInfo> GraphRow::hitTest(const RowContext& ctx, float x, float) const {
    bool known = false;
    const int64_t t = ctx.timeAt(x);
    const double v = valueAt(t, &known);
    if (!known) return std::nullopt;
    HitInfo hit;
    hit.name = title();
    hit.start = hit.end = t;
    hit.fields.emplace_back("Value", formatValue(v, m_unit));
    return hit;
}

MetricRow::MetricRow(const Report& report, const Track& track, std::string title)
    : GraphRow(std::move(title), track.size(), unitOf(report, track),
               Palette::kindColor(EventKind::Metric)),
      m_track(track) {
    const MetricSeries* ms = report.findSeries(track.key.series);
    if (!track.empty()) m_scaleMax = track.lod.maxValue(track, 0, track.size());
    if (ms && ms->unit == "%") m_scaleMax = std::max(m_scaleMax, 100.0);
}

void MetricRow::columns(const RowContext& ctx, uint32_t n, std::vector<GraphColumn>& out) const {
    thread_local std::vector<MetricBucket> buckets;
    const int64_t t1 = ctx.t0 + static_cast<int64_t>(n * ctx.nsPerPixel);
    queryMetricBuckets(m_track, ctx.t0, t1, n, buckets);
    out.assign(n, {});
    if (m_track.empty()) return;
    for (uint32_t i = 0; i < n && i < buckets.size(); ++i) {
        const MetricBucket& b = buckets[i];
        const int64_t bEnd = ctx.t0 + static_cast<int64_t>((i + 1) * ctx.nsPerPixel);
        if (bEnd <= m_track.start.front() ||
            ctx.t0 + static_cast<int64_t>(i * ctx.nsPerPixel) > m_track.tMax)
            continue;
        out[i] = {true, b.count ? b.max : b.last, b.count ? b.mean : b.last};
    }
}

double MetricRow::valueAt(int64_t t, bool* known) const {
    const auto it = std::upper_bound(m_track.start.begin(), m_track.start.end(), t);
    *known = it != m_track.start.begin() && t <= m_track.tMax;
    if (!*known) return 0;
    return m_track.cols[cols::Metric::Value].doubleAt(
        static_cast<size_t>(it - m_track.start.begin()) - 1);
}

MemoryUsageRow::MemoryUsageRow(const Track& track, std::string title)
    : GraphRow(std::move(title), track.size(), "bytes", Palette::kindColor(EventKind::CudaMemory)) {
    // Frees may not carry a size: remember each allocation's size by address.
    std::vector<size_t> order(track.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return track.start[a] < track.start[b]; });
    std::unordered_map<int64_t, double> live;
    double used = 0;
    for (size_t i : order) {
        const int64_t addr = track.intAt(cols::CudaMemory::Address, i);
        const auto bytes =
            static_cast<double>(static_cast<uint64_t>(track.intAt(cols::CudaMemory::Bytes, i)));
        if (track.intAt(cols::CudaMemory::Op, i) == static_cast<int64_t>(MemoryOp::Alloc)) {
            // GPU memory only, as nsys's row: pinned and pageable host allocations
            // (cudaHostAlloc) are in the track but not on the device.
            const auto kind = static_cast<MemoryKind>(track.intAt(cols::CudaMemory::MemKind, i));
            if (kind == MemoryKind::Pinned || kind == MemoryKind::Pageable) continue;
            live[addr] = bytes;
            used += bytes;
        } else if (auto it = live.find(addr); it != live.end()) {
            used -= it->second;
            live.erase(it);
        }
        m_times.push_back(track.start[i]);
        m_usage.push_back(used);
        m_scaleMax = std::max(m_scaleMax, used);
    }
}

void MemoryUsageRow::columns(const RowContext& ctx, uint32_t n,
                             std::vector<GraphColumn>& out) const {
    out.assign(n, {});
    if (m_times.empty()) return;
    for (uint32_t i = 0; i < n; ++i) {
        const int64_t b0 = ctx.t0 + static_cast<int64_t>(i * ctx.nsPerPixel);
        const int64_t b1 = ctx.t0 + static_cast<int64_t>((i + 1) * ctx.nsPerPixel);
        const size_t j = static_cast<size_t>(std::lower_bound(m_times.begin(), m_times.end(), b1) -
                                             m_times.begin());
        if (j == 0) continue;
        const size_t k = static_cast<size_t>(std::lower_bound(m_times.begin(), m_times.end(), b0) -
                                             m_times.begin());
        // The usage at the column's end, and the peak of the (few) changes inside it.
        double peak = m_usage[j - 1];
        for (size_t x = k; x < j && x < k + 64; ++x) peak = std::max(peak, m_usage[x]);
        out[i] = {true, peak, m_usage[j - 1]};
    }
}

double MemoryUsageRow::valueAt(int64_t t, bool* known) const {
    const auto it = std::upper_bound(m_times.begin(), m_times.end(), t);
    *known = it != m_times.begin();
    return *known ? m_usage[static_cast<size_t>(it - m_times.begin()) - 1] : 0;
}

}  // namespace sl::viewer
