#include "viewer/analysis/FindingsModel.h"

#include <QLocale>
#include <algorithm>

#include "viewer/analysis/TimeText.h"

namespace sl::viewer {

void sortFindings(std::vector<analysis::Finding>& findings) {
    std::stable_sort(findings.begin(), findings.end(),
                     [](const analysis::Finding& a, const analysis::Finding& b) {
                         if (a.severity != b.severity) return a.severity > b.severity;
                         if (a.totalNs != b.totalNs) return a.totalNs > b.totalNs;
                         return a.count > b.count;
                     });
}

QColor severityColor(analysis::Severity severity) {
    switch (severity) {
        case analysis::Severity::Warning:
            return {0xef, 0x6c, 0x00};
        case analysis::Severity::Info:
            return {0x19, 0x76, 0xd2};
        case analysis::Severity::None:
            break;
    }
    return {0xbd, 0xbd, 0xbd};
}

QString severityText(analysis::Severity severity) {
    switch (severity) {
        case analysis::Severity::Warning:
            return QObject::tr("Warning");
        case analysis::Severity::Info:
            return QObject::tr("Info");
        case analysis::Severity::None:
            break;
    }
    return QObject::tr("None");
}

void FindingsModel::setFindings(std::vector<analysis::Finding> findings) {
    beginResetModel();
    m_findings = std::move(findings);
    sortFindings(m_findings);
    endResetModel();
}

const analysis::Finding* FindingsModel::findingAt(int row) const {
    if (row < 0 || static_cast<size_t>(row) >= m_findings.size()) return nullptr;
    return &m_findings[static_cast<size_t>(row)];
}

int FindingsModel::rowOf(std::string_view rule) const {
    for (size_t i = 0; i < m_findings.size(); ++i)
        if (m_findings[i].rule == rule) return static_cast<int>(i);
    return -1;
}

int FindingsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_findings.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
    const analysis::Finding* f = findingAt(index.row());
    if (!f) return {};
    const int column = index.column();
    if (role == Qt::DisplayRole) {
        switch (column) {
            case SeverityColumn:
                return severityText(f->severity);
            case RuleColumn:
                return QString::fromStdString(f->title);
            case CountColumn:
                return QLocale().toString(static_cast<qlonglong>(f->count));
            // Rules without a time (kernel categories' mix, launch latency) leave it empty.
            case TimeColumn:
                return f->totalNs > 0 ? durationText(f->totalNs) : QString();
            case SummaryColumn:
                return QString::fromStdString(f->summary);
            default:
                return {};
        }
    }
    if (role == Qt::DecorationRole && column == SeverityColumn) return severityColor(f->severity);
    if (role == Qt::TextAlignmentRole && (column == CountColumn || column == TimeColumn))
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        // Rich text, so that Qt wraps the long summaries the row cuts off.
        if (column == SummaryColumn || column == RuleColumn)
            return QStringLiteral("<p><b>%1</b> (%2)</p><p>%3</p>")
                .arg(QString::fromStdString(f->title).toHtmlEscaped(),
                     QString::fromStdString(f->rule).toHtmlEscaped(),
                     QString::fromStdString(f->summary).toHtmlEscaped());
    }
    return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
    switch (section) {
        case SeverityColumn:
            return tr("Severity");
        case RuleColumn:
            return tr("Rule");
        case CountColumn:
            return tr("Count");
        case TimeColumn:
            return tr("Time");
        case SummaryColumn:
            return tr("Summary");
        default:
            return {};
    }
}

}  // namespace sl::viewer
