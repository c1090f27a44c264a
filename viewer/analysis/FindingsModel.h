#pragma once
// The Insights dock's list of findings (model/analysis/rules/Rule.h), one row per rule: the
// problems first, the one costing the most time on top, so the list reads as a to-do list.
// Read-only; GUI thread.
#include <QAbstractTableModel>
#include <QColor>
#include <string_view>
#include <vector>

#include "model/analysis/rules/Rule.h"

namespace sl::viewer {

// Warnings, then information, then rules that found nothing; within each the most time lost
// (Finding::totalNs) first, then the most instances; ties keep the given (registry) order.
void sortFindings(std::vector<analysis::Finding>& findings);

// The marker color of a severity: orange for warnings, blue for information, grey for none.
QColor severityColor(analysis::Severity severity);
QString severityText(analysis::Severity severity);  // "Warning", "Info", "None"

class FindingsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SeverityColumn, RuleColumn, CountColumn, TimeColumn, SummaryColumn, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;

    // Replaces the list; the findings are sorted with sortFindings().
    void setFindings(std::vector<analysis::Finding> findings);
    const std::vector<analysis::Finding>& findings() const { return m_findings; }
    const analysis::Finding* findingAt(int row) const;
    int rowOf(std::string_view rule) const;  // -1 when absent

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<analysis::Finding> m_findings;
};

}  // namespace sl::viewer
