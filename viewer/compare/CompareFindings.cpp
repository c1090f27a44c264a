#include "viewer/compare/CompareFindings.h"

#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "viewer/analysis/StatsDock.h"
#include "viewer/jobs/JobTracker.h"

namespace sl::viewer {
namespace {

// Colors the verdict: red where a problem grew or appeared, green where it shrank or went.
class VerdictColors : public QIdentityProxyModel {
public:
    using QIdentityProxyModel::QIdentityProxyModel;
    QVariant data(const QModelIndex& index, int role) const override {
        if (role == Qt::ForegroundRole && headerData(index.column(), Qt::Horizontal,
                                                     Qt::DisplayRole) == QLatin1String("Verdict")) {
            const QString v = QIdentityProxyModel::data(index, Qt::DisplayRole).toString();
            if (v == QLatin1String("worse") || v == QLatin1String("new"))
                return QColor(0xc6, 0x28, 0x28);
            if (v == QLatin1String("better") || v == QLatin1String("gone"))
                return QColor(0x2e, 0x7d, 0x32);
        }
        return QIdentityProxyModel::data(index, role);
    }
};

std::vector<analysis::Finding> findingsOf(const Report& r, const std::vector<std::string>& specs,
                                          QStringList& errors, const QString& side,
                                          const std::atomic<bool>& cancel) {
    std::vector<analysis::Finding> out;
    for (auto& f : analysis::runRules(r, specs, analysis::StatsOptions{}, 0, &cancel)) {
        if (f.ok())
            out.push_back(std::move(f.value()));
        else
            errors << side + ": " + QString::fromStdString(f.error());
    }
    return out;
}

}  // namespace

CompareFindings::CompareFindings(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_status = new QLabel(this);
    m_model = new StatsTableModel(this);
    auto* colors = new VerdictColors(this);
    colors->setSourceModel(m_model);
    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("compareFindings"));
    m_view->setModel(colors);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setToolTip(tr("Double-click a rule to show its worst instance in both timelines"));
    layout->addWidget(m_status);
    layout->addWidget(m_view, 1);
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
        if (i.row() >= 0 && static_cast<size_t>(i.row()) < m_rows.size())
            emit findingActivated(m_rows[static_cast<size_t>(i.row())]);
    });
}

void CompareFindings::setReports(ReportPtr baseline, ReportPtr comparison) {
    m_status->setText(tr("Checking %1 rules on both reports...").arg(analysis::allRules().size()));
    std::vector<std::string> specs;
    for (const analysis::RuleInfo& rule : analysis::allRules()) specs.emplace_back(rule.name);
    struct Checked {
        std::vector<analysis::FindingPair> pairs;
        QStringList errors;
    };
    JobTracker::instance().start(
        this, QStringLiteral("rules"),
        [baseline = std::move(baseline), comparison = std::move(comparison),
         specs = std::move(specs), baselineName = tr("baseline"),
         comparisonName = tr("comparison")](const std::atomic<bool>& cancel) {
            Checked out;
            const auto a = findingsOf(*baseline, specs, out.errors, baselineName, cancel);
            const auto b = findingsOf(*comparison, specs, out.errors, comparisonName, cancel);
            out.pairs = analysis::pairFindings(a, b);
            return out;
        },
        [this](Checked checked) { show(std::move(checked.pairs), std::move(checked.errors)); });
}

void CompareFindings::show(std::vector<analysis::FindingPair> pairs, QStringList errors) {
    m_model->setTable(analysis::findingsDiffTable(pairs));
    // The table leaves out rules that found nothing on either side; rows() follows it.
    m_rows.clear();
    int worse = 0, better = 0;
    for (auto& p : pairs) {
        if (p.baseline.count == 0 && p.comparison.count == 0) continue;
        worse +=
            p.change == analysis::FindingChange::Worse || p.change == analysis::FindingChange::New;
        better += p.change == analysis::FindingChange::Better ||
                  p.change == analysis::FindingChange::Gone;
        m_rows.push_back(std::move(p));
    }
    m_view->resizeColumnsToContents();
    QString status = tr("%1 rules checked on both reports: %2 worse or new, %3 better or gone")
                         .arg(analysis::allRules().size())
                         .arg(worse)
                         .arg(better);
    if (!errors.isEmpty()) status += QStringLiteral("; ") + errors.join(QStringLiteral("; "));
    m_status->setText(status);
    emit ready();
}

}  // namespace sl::viewer
