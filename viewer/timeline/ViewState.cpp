#include "viewer/timeline/ViewState.h"

#include <algorithm>
#include <cmath>

namespace sl::viewer {

namespace {
constexpr size_t kMaxHistory = 256;
}

void ViewState::reset(int64_t tMin, int64_t tMax, int64_t origin) {
    if (tMax - tMin < kMinSpan) tMax = tMin + kMinSpan;
    m_bounds = {tMin, tMax};
    m_origin = origin;
    m_history.clear();
    m_selection = {};
    m_markers.clear();
    m_range = m_bounds;
    emit rangeChanged();
    emit selectionChanged();
    emit markersChanged();
}

TimeRange ViewState::clamp(int64_t start, int64_t end) const {
    if (end < start) std::swap(start, end);
    const int64_t pad = m_bounds.span() / 20;
    const int64_t lo = m_bounds.start - pad, hi = m_bounds.end + pad;
    int64_t span = std::clamp<int64_t>(end - start, kMinSpan, hi - lo);
    start = std::clamp(start, lo, hi - span);
    return {start, start + span};
}

void ViewState::setRange(int64_t start, int64_t end, bool recordHistory) {
    const TimeRange r = clamp(start, end);
    if (r == m_range) return;
    if (recordHistory) {
        m_history.push_back(m_range);
        if (m_history.size() > kMaxHistory) m_history.erase(m_history.begin());
    }
    m_range = r;
    emit rangeChanged();
}

void ViewState::zoomAround(int64_t anchor, double factor) {
    if (!(factor > 0)) return;
    const double a = static_cast<double>(anchor);
    const double s = a - (a - static_cast<double>(m_range.start)) * factor;
    const double e = a + (static_cast<double>(m_range.end) - a) * factor;
    int64_t ns = static_cast<int64_t>(std::llround(s)), ne = static_cast<int64_t>(std::llround(e));
    if (ne - ns < kMinSpan) {  // keep the anchor in place at the deepest zoom
        const double frac =
            (a - static_cast<double>(m_range.start)) / static_cast<double>(m_range.span());
        ns = anchor - static_cast<int64_t>(std::llround(frac * kMinSpan));
        ne = ns + kMinSpan;
    }
    setRange(ns, ne, false);
}

void ViewState::pan(int64_t deltaNs) {
    setRange(m_range.start + deltaNs, m_range.end + deltaNs, false);
}

void ViewState::showAll() {
    setRange(m_bounds.start, m_bounds.end, true);
}

bool ViewState::back() {
    if (m_history.empty()) return false;
    const TimeRange r = m_history.back();
    m_history.pop_back();
    m_range = clamp(r.start, r.end);
    emit rangeChanged();
    return true;
}

void ViewState::setSelection(int64_t a, int64_t b) {
    TimeRange s{std::min(a, b), std::max(a, b)};
    if (s.end <= s.start) s = {};
    if (s == m_selection) return;
    m_selection = s;
    emit selectionChanged();
}

void ViewState::clearSelection() {
    setSelection(0, 0);
}

bool ViewState::zoomToSelection() {
    if (!hasSelection()) return false;
    const TimeRange s = m_selection;
    m_selection = {};
    emit selectionChanged();
    setRange(s.start, s.end, true);
    return true;
}

void ViewState::addMarker(int64_t t) {
    m_markers.push_back(t);
    emit markersChanged();
}

void ViewState::clearMarkers() {
    m_markers.clear();
    emit markersChanged();
}

}  // namespace sl::viewer
