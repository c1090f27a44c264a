#pragma once
// Connects the analysis panels (AnalysisDocks) to a timeline: the time selection feeds the
// selection statistics and Stats docks; the timeline's click on an event selects it in the
// tab's SelectionModel, and every selection (a click, the events view, find, Insights, arrows)
// is highlighted with its correlations and scrolls its row and its launch partner's row into
// view; Left / Right step the selection through its row's events; the events view's
// double-click, Find and the Insights dock's activated instances move the timeline's range
// through its ViewState (with history); highlights, correlation lines, edge arrows (click: jump
// to the event), the find filter's dimming and the CPU sampling dock's function highlight
// (samples not passing through it dimmed) are drawn through the timeline's draw-list hooks.
// GUI thread; lives as long as the window holding the timeline.
#include <QObject>
#include <memory>
#include <vector>

#include "model/analysis/SampleTree.h"
#include "model/analysis/SelectionCorrelation.h"
#include "viewer/analysis/TimelineOverlay.h"

class QMainWindow;

namespace sl::viewer {

class AnalysisDocks;
class TimelineWidget;

class TimelineAnalysis : public QObject {
    Q_OBJECT
public:
    TimelineAnalysis(QMainWindow* window, TimelineWidget* timeline,
                     std::shared_ptr<const Report> report);

    AnalysisDocks* docks() const { return m_docks; }
    const std::vector<EdgeArrow>& arrows() const { return m_arrows; }
    // Shows an event: centers the view on it (keeping the zoom unless it is wider) and scrolls
    // its row into view.
    void jumpTo(analysis::EventRef event);
    // Dims the CPU samples whose stack does not contain `fn` (empty name: clears).
    void highlightSamplesThrough(const analysis::SampleFunction& fn);
    // A flag per call stack: the samples kept bright (empty: no highlight).
    const std::vector<uint8_t>& sampleHighlight() const { return m_sampleMask; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void wire();
    void timeSelectionChanged();
    // Scrolls the rows so that the selected event and its launch partner are on screen
    // (RowReveal's rule); the time range is left alone.
    void revealSelection();
    // Selects the previous (-1) or next (+1) event of the selected event's track and shows it;
    // false when no event is selected.
    bool stepSelection(int direction);

    TimelineWidget* m_timeline;
    std::shared_ptr<const Report> m_report;
    AnalysisDocks* m_docks = nullptr;
    analysis::EventRef m_selected;
    analysis::CorrelatedEvents m_related;
    std::vector<EdgeArrow> m_arrows;
    std::vector<uint8_t> m_sampleMask;
    bool m_pressTaken = false;  // the press hit an edge arrow
};

}  // namespace sl::viewer
