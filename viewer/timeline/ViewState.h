#pragma once
// The one owner of what the timeline shows: the visible time range, the zoom history
// (Backspace), the selected time range and the markers. Widgets observe its signals; nobody
// else changes the range. Lives on the GUI thread.
//
// Invariants: bounds are the report's [tMin, tMax]; the visible range stays inside the bounds
// padded by 5% on each side and is at least kMinSpan wide. History records "jumps" (zoom to
// selection, show all, explicit ranges), not every wheel step, so Backspace undoes what the
// user thinks of as one navigation.
#include <QObject>
#include <cstdint>
#include <vector>

namespace sl::viewer {

struct TimeRange {
    int64_t start = 0;
    int64_t end = 0;
    int64_t span() const { return end - start; }
    bool operator==(const TimeRange&) const = default;
};

class ViewState : public QObject {
    Q_OBJECT
public:
    static constexpr int64_t kMinSpan = 20;  // ns: below this a pixel is a fraction of a ns

    explicit ViewState(QObject* parent = nullptr) : QObject(parent) {}

    // Sets the data bounds and shows them all (clears history, selection and markers).
    void reset(int64_t tMin, int64_t tMax, int64_t origin);
    TimeRange bounds() const { return m_bounds; }
    TimeRange range() const { return m_range; }
    int64_t origin() const { return m_origin; }  // the time shown as 0 on the ruler

    // Shows [start, end) (clamped). With recordHistory, Backspace comes back to the old range.
    void setRange(int64_t start, int64_t end, bool recordHistory = true);
    // factor < 1 zooms in, > 1 out, keeping time `anchor` at the same place on screen.
    void zoomAround(int64_t anchor, double factor);
    void pan(int64_t deltaNs);
    void showAll();
    // Returns false (and changes nothing) when the history is empty.
    bool back();
    size_t historySize() const { return m_history.size(); }

    void setSelection(int64_t a, int64_t b);  // any order; empty clears
    void clearSelection();
    bool hasSelection() const { return m_selection.end > m_selection.start; }
    TimeRange selection() const { return m_selection; }
    // Zooms to the selection (recording history) and clears it; false when there is none.
    bool zoomToSelection();

    void addMarker(int64_t t);
    void clearMarkers();
    const std::vector<int64_t>& markers() const { return m_markers; }

signals:
    void rangeChanged();
    void selectionChanged();
    void markersChanged();

private:
    TimeRange clamp(int64_t start, int64_t end) const;

    TimeRange m_bounds;
    TimeRange m_range;
    int64_t m_origin = 0;
    std::vector<TimeRange> m_history;
    TimeRange m_selection;
    std::vector<int64_t> m_markers;
};

}  // namespace sl::viewer
