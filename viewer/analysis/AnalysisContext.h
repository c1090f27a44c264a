#pragma once
// What the analysis docks share for one report: the report itself and, built on first use,
// its CorrelationIndex (API call <-> GPU work), which the details panel and the correlation
// highlights both need. Also the one place that turns an event into its correlated events.
// Lives on the GUI thread; the report is immutable and may be read from worker threads.
#include <QObject>
#include <memory>

#include "model/analysis/SelectionCorrelation.h"
#include "model/core/Report.h"

namespace sl::viewer {

class AnalysisContext : public QObject {
    Q_OBJECT
public:
    explicit AnalysisContext(std::shared_ptr<const Report> report, QObject* parent = nullptr);

    const Report& report() const { return *m_report; }
    const std::shared_ptr<const Report>& reportPtr() const { return m_report; }
    const analysis::CorrelationIndex& correlation();
    // The events to highlight when `event` is selected (see SelectionCorrelation.h).
    analysis::CorrelatedEvents correlated(analysis::EventRef event);
    // The event selected last through selectEvent() (invalid when none).
    analysis::EventRef selectedEvent() const { return m_selected; }

public slots:
    // The one entry point for "this event is now selected", from any view: emits
    // eventSelected and highlightsChanged.
    void selectEvent(quint32 track, quint32 index);
    void clearSelectedEvent();

signals:
    void eventSelected(quint32 track, quint32 index);
    void selectedEventCleared();
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
