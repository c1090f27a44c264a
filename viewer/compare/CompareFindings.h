#pragma once
// The compare tab's Insights page: every rule of `sightline analyze` run on both reports off
// the GUI thread, and their figures side by side with a verdict per rule (better, worse, new,
// gone, same; model/analysis/rules/FindingsDiff.h), so the user sees which problems a change
// fixed or caused. Double-clicking a row emits findingActivated with that rule's pair (the tab
// shows the worst instance of each side). GUI thread.
#include <QWidget>
#include <vector>

#include "model/analysis/rules/FindingsDiff.h"
#include "model/core/Report.h"

class QLabel;
class QTableView;

namespace sl::viewer {

class StatsTableModel;

class CompareFindings : public QWidget {
    Q_OBJECT
public:
    explicit CompareFindings(QWidget* parent = nullptr);

    // Runs the rules on both reports off the GUI thread (a previous run is cancelled) and shows
    // the result.
    void setReports(ReportPtr baseline, ReportPtr comparison);

    StatsTableModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QLabel* statusLabel() const { return m_status; }
    // The pair of each table row (rules that found nothing on either side have no row).
    const std::vector<analysis::FindingPair>& rows() const { return m_rows; }

signals:
    void ready();  // the table shows the newest reports' findings
    void findingActivated(const analysis::FindingPair& pair);

private:
    void show(std::vector<analysis::FindingPair> pairs, QStringList errors);

    std::vector<analysis::FindingPair> m_rows;
    StatsTableModel* m_model = nullptr;
    QTableView* m_view = nullptr;
    QLabel* m_status = nullptr;
};

}  // namespace sl::viewer
