#pragma once
// Metric rows drawn as graphs: a sampled metric series (GPU utilization, CPU, memory), and
// the CUDA memory usage of a process on a device derived from its alloc/free events. Both
// draw one column per pixel (the max in the pixel as an area, the mean as a line), so the
// cost is O(pixels x log n).
#include <vector>

#include "model/core/Report.h"
#include "viewer/timeline/Row.h"

namespace sl::viewer {

// One pixel column of a graph.
struct GraphColumn {
    bool has = false;  // any value known here
    double max = 0;
    double line = 0;  // mean of the samples, or the value carried over
};

class GraphRow : public Row {
public:
    static constexpr float kHeight = 40;
    GraphRow(std::string title, uint64_t count, std::string unit, uint32_t color)
        : Row(std::move(title), count), m_unit(std::move(unit)), m_color(color) {}

    float height() const override { return kHeight; }
    bool isGroup() const override { return false; }
    double scaleMax() const { return m_scaleMax; }  // the largest value, drawn at the top
    void build(const RowContext& ctx, DrawList& out) const override;
    std::optional<HitInfo> hitTest(const RowContext& ctx, float x, float y) const override;

protected:
    virtual void columns(const RowContext& ctx, uint32_t n,
                         std::vector<GraphColumn>& out) const = 0;
    virtual double valueAt(int64_t t, bool* known) const = 0;
    double m_scaleMax = 1;  // the value drawn at the top of the row

private:
    std::string m_unit;
    uint32_t m_color;
};

class MetricRow : public GraphRow {
public:
    MetricRow(const Report& report, const Track& track, std::string title);

protected:
    void columns(const RowContext& ctx, uint32_t n, std::vector<GraphColumn>& out) const override;
    double valueAt(int64_t t, bool* known) const override;

private:
    const Track& m_track;
};

// Bytes of GPU memory allocated by a process on a device over time (allocs minus frees); host
// allocations (pinned, pageable) are left out.
class MemoryUsageRow : public GraphRow {
public:
    MemoryUsageRow(const Track& track, std::string title);

protected:
    void columns(const RowContext& ctx, uint32_t n, std::vector<GraphColumn>& out) const override;
    double valueAt(int64_t t, bool* known) const override;

private:
    std::vector<int64_t> m_times;  // sorted
    std::vector<double> m_usage;   // bytes in use after the event at m_times[i]
};

}  // namespace sl::viewer
