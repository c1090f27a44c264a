#pragma once
// A timeline row: one node of the row tree (a group such as a process, or a row of events).
// Every row has the same small contract: given the visible range and its pixel rectangle,
// append a plain draw list, and answer "what is under this point". No GL, no Qt widgets, so
// layout, folding and hit testing are unit-tested without a display.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "viewer/timeline/DrawList.h"

namespace sl {
class Track;
}

namespace sl::viewer {

class Palette;

// What a row needs to know to draw itself for one frame.
struct RowContext {
    int64_t t0 = 0, t1 = 1;  // visible range
    double nsPerPixel = 1;
    float x = 0, width = 1;   // the pixel columns of the event area
    float y = 0, height = 0;  // the row's rectangle
    Palette* palette = nullptr;

    float xOf(int64_t t) const {
        return x + static_cast<float>(static_cast<double>(t - t0) / nsPerPixel);
    }
    int64_t timeAt(float px) const { return t0 + static_cast<int64_t>((px - x) * nsPerPixel); }
};

// What is under the mouse: one event or a fold of several, with the fields a tooltip shows.
struct HitInfo {
    const Track* track = nullptr;
    size_t index = 0;    // the event (for folds: the first event of the fold)
    uint32_t count = 1;  // > 1: "N events"
    int64_t start = 0, end = 0;
    // A graph's point (no track): its name and value. An event's own fields come from the one
    // details formatter (EventQueryDetails.h); `fields` then holds only what the row adds.
    std::string name;
    float y0 = 0, y1 = 0;  // the pixel rows of the event's lane (for the hover outline)
    std::vector<std::pair<std::string, std::string>> fields;
};

class Row {
public:
    Row(std::string title, uint64_t count) : m_title(std::move(title)), m_count(count) {}
    virtual ~Row() = default;
    Row(const Row&) = delete;
    Row& operator=(const Row&) = delete;

    const std::string& title() const { return m_title; }
    uint64_t count() const { return m_count; }  // events in this row (groups: in all children)
    // Height of the row's own content in pixels (groups: their header line).
    virtual float height() const { return kGroupHeight; }
    // Appends the row's drawing for this frame. A group draws nothing while expanded and its
    // rows' activity in its own line when collapsed (GroupSummary.h).
    virtual void build(const RowContext& ctx, DrawList& out) const;
    virtual std::optional<HitInfo> hitTest(const RowContext& ctx, float x, float y) const;
    virtual bool isGroup() const { return true; }

    Row* parent() const { return m_parent; }
    int depth() const { return m_parent ? m_parent->depth() + 1 : -1; }  // the root is -1
    const std::vector<std::unique_ptr<Row>>& children() const { return m_children; }
    // A summary child (its events also appear in other rows) does not add to this row's count.
    Row* addChild(std::unique_ptr<Row> child, bool summary = false);
    Row* insertChild(size_t index, std::unique_ptr<Row> child, bool summary = false);
    // Removes a child that is not a summary (its events leave this row's count and its
    // ancestors'); null if `child` is not one.
    std::unique_ptr<Row> takeChild(const Row* child);
    // Puts the children in `order` (a permutation of children(); others keep their place
    // after them). Counts do not change.
    void reorderChildren(const std::vector<const Row*>& order);
    // The CUDA device a GPU group stands for, -1 for other rows.
    int32_t device() const { return m_device; }
    void setDevice(int32_t d) { m_device = d; }
    bool expanded() const { return m_expanded; }
    void setExpanded(bool e) { m_expanded = e; }
    // A fold: a group that only gathers rows of its parent out of the way ("5 more threads").
    // find() looks through folds, so "Process 1/Thread 7" still finds a folded thread.
    bool isFold() const { return m_fold; }
    void setFold(bool f) { m_fold = f; }
    bool pinned() const { return m_pinned; }
    void setPinned(bool p) { m_pinned = p; }
    // Adds `n` to this row's count and its ancestors'.
    void addCount(uint64_t n);
    // Finds a descendant (or this) by its title path "GPU 0/All kernels"; nullptr if none.
    Row* find(const std::string& path);

    static constexpr float kGroupHeight = 20;

private:
    std::string m_title;
    uint64_t m_count = 0;
    Row* m_parent = nullptr;
    std::vector<std::unique_ptr<Row>> m_children;
    bool m_expanded = true;
    bool m_pinned = false;
    bool m_fold = false;
    int32_t m_device = -1;
};

}  // namespace sl::viewer
