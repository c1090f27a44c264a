#include "viewer/analysis/SelectionModel.h"

namespace sl::viewer {

SelectionModel::SelectionModel(std::shared_ptr<const Report> report, QObject* parent)
    : QObject(parent), m_report(std::move(report)) {}

const analysis::CorrelationIndex& SelectionModel::correlation() {
    if (!m_correlation) m_correlation = std::make_unique<analysis::CorrelationIndex>(*m_report);
    return *m_correlation;
}

analysis::CorrelatedEvents SelectionModel::correlated(analysis::EventRef event) {
    return analysis::correlatedEvents(*m_report, correlation(), event);
}

std::vector<analysis::EventField> SelectionModel::details(analysis::DetailForm form) {
    if (!m_selected.valid()) return {};
    // The tooltip form names nothing correlated: no need to build the index for it.
    const analysis::CorrelationIndex* index =
        form == analysis::DetailForm::Full ? &correlation() : nullptr;
    return analysis::eventDetails(*m_report, m_selected, index, form);
}

QString SelectionModel::summary() {
    const auto fields = details(analysis::DetailForm::Tooltip);
    if (fields.empty()) return {};
    // The formatter's own values: "1.200 ms (1200000 ns)" is shown as its first part.
    auto shortValue = [&fields](std::string_view field) {
        const std::string v = analysis::detailValue(fields, field);
        return QString::fromStdString(v.substr(0, v.find(" (")));
    };
    QString s =
        QString::fromStdString(analysis::detailValue(fields, "Name")) + " (" + shortValue("Kind");
    const QString duration = shortValue("Duration");
    s += duration.isEmpty() ? ", at " + shortValue("Time") : ", " + duration;
    return s + ")";
}

void SelectionModel::selectEvent(quint32 track, quint32 index) {
    const analysis::EventRef ref{track, index};
    if (track >= m_report->tracks.size() || index >= m_report->tracks[track].size()) return;
    if (ref == m_selected) return;
    m_selected = ref;
    emit eventSelected(track, index);
    emit highlightsChanged(correlated(ref));
    emit changed();
}

void SelectionModel::clearSelectedEvent() {
    if (!m_selected.valid()) return;
    m_selected = {};
    emit selectedEventCleared();
    emit highlightsChanged({});
    emit changed();
}

}  // namespace sl::viewer
