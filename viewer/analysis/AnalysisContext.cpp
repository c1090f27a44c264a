#include "viewer/analysis/AnalysisContext.h"

namespace sl::viewer {

AnalysisContext::AnalysisContext(std::shared_ptr<const Report> report, QObject* parent)
    : QObject(parent), m_report(std::move(report)) {}

const analysis::CorrelationIndex& AnalysisContext::correlation() {
    if (!m_correlation) m_correlation = std::make_unique<analysis::CorrelationIndex>(*m_report);
    return *m_correlation;
}

analysis::CorrelatedEvents AnalysisContext::correlated(analysis::EventRef event) {
    return analysis::correlatedEvents(*m_report, correlation(), event);
}

void AnalysisContext::selectEvent(quint32 track, quint32 index) {
    const analysis::EventRef ref{track, index};
    if (track >= m_report->tracks.size() || index >= m_report->tracks[track].size()) return;
    if (ref == m_selected) return;
    m_selected = ref;
    emit eventSelected(track, index);
    emit highlightsChanged(correlated(ref));
}

void AnalysisContext::clearSelectedEvent() {
    if (!m_selected.valid()) return;
    m_selected = {};
    emit selectedEventCleared();
    emit highlightsChanged({});
}

}  // namespace sl::viewer
