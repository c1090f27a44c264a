#pragma once
// The selection of one report tab: the selected event and what it is correlated with, and the
// report's CorrelationIndex (API call <-> GPU work, built on first use) that both need. Every
// source selects through it: a click on the timeline, a find hit, an events-view row, an
// Insights finding, an edge arrow, the arrow keys. The details panel, the events view, the
// timeline's highlights and row reveal (TimelineAnalysis) and the window's status bar follow
// it, so they always show the same event. The time range selection stays with the timeline's
// ViewState, its one owner. Lives on the GUI thread; the report is immutable and may be read
// from worker threads.
#include <QObject>
#include <QString>
#include <memory>

#include "model/analysis/EventQueryDetails.h"
#include "model/analysis/SelectionCorrelation.h"
#include "model/core/Report.h"

namespace sl::viewer {

class SelectionModel : public QObject {
    Q_OBJECT
public:
    explicit SelectionModel(std::shared_ptr<const Report> report, QObject* parent = nullptr);

    const Report& report() const { return *m_report; }
    const std::shared_ptr<const Report>& reportPtr() const { return m_report; }
    const analysis::CorrelationIndex& correlation();
    // The events to highlight when `event` is selected (see SelectionCorrelation.h).
    analysis::CorrelatedEvents correlated(analysis::EventRef event);
    // The selected event (invalid when none).
    analysis::EventRef selectedEvent() const { return m_selected; }
    // The selected event's details from the one formatter (empty when none is selected).
    std::vector<analysis::EventField> details(
        analysis::DetailForm form = analysis::DetailForm::Full);
    // One line for the status bar: "NAME (KIND, DURATION)"; empty when nothing is selected.
    QString summary();

public slots:
    // Selects event `index` of track `track`; an event that is not in the report is refused
    // (the selection stays). Selecting the selected event again changes nothing.
    void selectEvent(quint32 track, quint32 index);
    void clearSelectedEvent();

signals:
    void eventSelected(quint32 track, quint32 index);
    void selectedEventCleared();
    // After either of the two above: the selection is now selectedEvent().
    void changed();
    // The selection and what it is correlated with: the timeline highlights `related` and
    // draws a line per link.
    void highlightsChanged(const sl::analysis::CorrelatedEvents& related);

private:
    std::shared_ptr<const Report> m_report;
    std::unique_ptr<analysis::CorrelationIndex> m_correlation;
    analysis::EventRef m_selected;
};

}  // namespace sl::viewer

Q_DECLARE_METATYPE(sl::analysis::CorrelatedEvents)
