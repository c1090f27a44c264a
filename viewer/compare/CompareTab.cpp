#include "viewer/compare/CompareTab.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "viewer/analysis/StatsDock.h"
#include "viewer/analysis/TimeText.h"
#include "viewer/compare/CompareAlignment.h"
#include "viewer/compare/CompareFindings.h"
#include "viewer/compare/InstanceOutlines.h"
#include "viewer/jobs/JobTracker.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimelineScene.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/widgets/NameColumn.h"
#include "viewer/window/ReportLoader.h"

namespace sl::viewer {
namespace {

QString number(double v) {
    return QLocale::system().toString(v, 'f', 0);
}

// "Duration (ns): 1,000 → 1,200 (+20.0%) · GPU busy (ns): ..." from the diff's summary table.
QString summaryText(const analysis::Table& t) {
    QStringList parts;
    for (size_t r = 0; r < t.rowCount(); ++r) {
        QString s = QString::fromStdString(t.columns[0].texts[r]) + ": " +
                    number(t.columns[1].reals[r]) + " → " + number(t.columns[2].reals[r]);
        if (!t.columns[4].isNull(r))
            s += QString(" (%1%2%)")
                     .arg(t.columns[4].reals[r] >= 0 ? "+" : "")
                     .arg(t.columns[4].reals[r], 0, 'f', 1);
        parts << s;
    }
    return parts.join("  ·  ");
}

}  // namespace

CompareTab::CompareTab(const QString& baselinePath, const QString& comparisonPath, QWidget* parent)
    : QWidget(parent), m_baselinePath(baselinePath), m_comparisonPath(comparisonPath) {
    buildUi();
    m_status->setText("Loading " + baselinePath + " and " + comparisonPath + "...");
    m_baselineLoader = std::make_unique<ReportLoader>();
    m_comparisonLoader = std::make_unique<ReportLoader>();
    for (ReportLoader* l : {m_baselineLoader.get(), m_comparisonLoader.get()}) {
        connect(l, &ReportLoader::finished, this, &CompareTab::loaderDone);
        connect(l, &ReportLoader::failed, this, [this, l](const QString& msg) {
            const QString path = l == m_baselineLoader.get() ? m_baselinePath : m_comparisonPath;
            m_status->setText("Cannot open " + path + ": " + msg);
            emit failed(path + ": " + msg);
        });
    }
    m_baselineLoader->start(baselinePath);
    m_comparisonLoader->start(comparisonPath);
}

CompareTab::CompareTab(ComparedReports reports, QWidget* parent) : QWidget(parent) {
    buildUi();
    auto baselineRows = buildRowTree(*reports.baseline);
    auto comparisonRows = buildRowTree(*reports.comparison);
    showReports(std::move(reports), std::move(baselineRows), std::move(comparisonRows));
    showDiff(analysis::diffReports(*m_reports.baseline, *m_reports.comparison),
             commonNvtxNames(*m_reports.baseline, *m_reports.comparison));
}

// Out of line: the loaders' type is complete here. Running jobs are cancelled by JobTracker
// when this object goes; nothing waits for them.
CompareTab::~CompareTab() = default;

QString CompareTab::title() const {
    if (m_baselinePath.isEmpty()) return "Compare";
    return QFileInfo(m_baselinePath).fileName() + " ↔ " + QFileInfo(m_comparisonPath).fileName();
}

void CompareTab::buildUi() {
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel("Align at:"));
    m_alignBox = new QComboBox;
    m_alignBox->addItem("Session start", QString());
    m_alignBox->setToolTip(
        "t = 0 in both timelines: the session start or an NVTX range both reports have");
    top->addWidget(m_alignBox);
    top->addWidget(new QLabel("instance"));
    m_instanceBox = new QSpinBox;
    m_instanceBox->setRange(1, 1'000'000);
    m_instanceBox->setEnabled(false);
    top->addWidget(m_instanceBox);
    m_status = new QLabel;
    top->addWidget(m_status, 1);

    auto framed = [](QLabel*& label, TimelineWidget*& timeline) {
        auto* w = new QWidget;
        auto* l = new QVBoxLayout(w);
        l->setContentsMargins(0, 0, 0, 0);
        label = new QLabel;
        timeline = new TimelineWidget;
        l->addWidget(label);
        l->addWidget(timeline, 1);
        return w;
    };
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(framed(m_baselineLabel, m_baselineTimeline));
    split->addWidget(framed(m_comparisonLabel, m_comparisonTimeline));
    auto* bottom = new QWidget;
    auto* bl = new QVBoxLayout(bottom);
    bl->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table = new QTableView;
    m_model = new StatsTableModel(this);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setToolTip("Double-click a row to select its instances in both timelines");
    m_findings = new CompareFindings;
    m_bottomTabs = new QTabWidget;
    m_bottomTabs->addTab(m_table, "Differences");
    m_bottomTabs->addTab(m_findings, "Insights");
    bl->addWidget(m_summary);
    bl->addWidget(m_bottomTabs, 1);
    split->addWidget(bottom);
    split->setSizes({350, 350, 250});

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    connect(&m_baselineTimeline->view(), &ViewState::rangeChanged, this, [this] { follow(true); });
    connect(&m_comparisonTimeline->view(), &ViewState::rangeChanged, this,
            [this] { follow(false); });
    m_baselineTimeline->setOverlayHook([this](const TimeRange& r, DrawList& out) {
        if (m_baselineTimeline->scene())
            outlineInstances(*m_baselineTimeline->scene(), r, m_baselineInstances, out);
    });
    m_comparisonTimeline->setOverlayHook([this](const TimeRange& r, DrawList& out) {
        if (m_comparisonTimeline->scene())
            outlineInstances(*m_comparisonTimeline->scene(), r, m_comparisonInstances, out);
    });
    connect(m_table, &QTableView::doubleClicked, this,
            [this](const QModelIndex& i) { showItem(i.row()); });
    connect(m_findings, &CompareFindings::findingActivated, this, &CompareTab::showFinding);
    connect(m_findings, &CompareFindings::ready, this, [this] {
        int worse = 0;
        for (const analysis::FindingPair& p : m_findings->rows())
            worse += p.change == analysis::FindingChange::Worse ||
                     p.change == analysis::FindingChange::New;
        m_bottomTabs->setTabText(
            1, worse ? QString("Insights (%1 worse)").arg(worse) : QString("Insights"));
    });
    connect(m_alignBox, &QComboBox::currentIndexChanged, this,
            &CompareTab::applyAlignmentFromControls);
    connect(m_instanceBox, &QSpinBox::valueChanged, this, &CompareTab::applyAlignmentFromControls);
}

void CompareTab::loaderDone() {
    if (!m_baselineLoader->report() || !m_comparisonLoader->report())
        return;  // the other is still loading
    if (m_reports.baseline) return;  // already shown, the differences computed or on their way
    showReports({m_baselineLoader->report(), m_comparisonLoader->report()},
                m_baselineLoader->takeRows(), m_comparisonLoader->takeRows());
    m_status->setText("Computing the differences...");
    struct Diff {
        analysis::DiffResult diff;
        std::vector<std::string> names;
    };
    JobTracker::instance().start(
        this, QStringLiteral("diff"),
        [reports = m_reports](const std::atomic<bool>& cancel) {
            analysis::DiffOptions options;
            options.cancel = &cancel;
            return Diff{analysis::diffReports(*reports.baseline, *reports.comparison, options),
                        commonNvtxNames(*reports.baseline, *reports.comparison)};
        },
        [this](Diff d) {
            showDiff(std::move(d.diff), d.names);
            emit loaded();
        });
}

void CompareTab::showReports(ComparedReports reports, std::unique_ptr<Row> baselineRows,
                             std::unique_ptr<Row> comparisonRows) {
    m_reports = std::move(reports);
    m_baselineLabel->setText("Baseline: " +
                             (m_baselinePath.isEmpty() ? QString("(in memory)") : m_baselinePath));
    m_comparisonLabel->setText(
        "Comparison: " + (m_comparisonPath.isEmpty() ? QString("(in memory)") : m_comparisonPath));
    m_syncing = true;
    m_baselineTimeline->setScene(
        std::make_unique<TimelineScene>(m_reports.baseline, std::move(baselineRows)));
    m_comparisonTimeline->setScene(
        std::make_unique<TimelineScene>(m_reports.comparison, std::move(comparisonRows)));
    m_syncing = false;
    align(QString(), 1);
    m_findings->setReports(m_reports.baseline, m_reports.comparison);
}

void CompareTab::showDiff(analysis::DiffResult diff, const std::vector<std::string>& commonNames) {
    m_diff = std::move(diff);
    m_model->setTable(analysis::diffItemsTable(m_diff));
    fitNameColumn(m_table, columnTitled(m_model, QStringLiteral("Name")));
    m_summary->setText(summaryText(analysis::diffSummaryTable(m_diff)));
    const QSignalBlocker block(m_alignBox);
    for (const std::string& n : commonNames)
        m_alignBox->addItem(QString::fromStdString(n), QString::fromStdString(n));
    m_status->setText(QString("%1 differences").arg(m_diff.items.size()));
}

void CompareTab::applyAlignmentFromControls() {
    const QString name = m_alignBox->currentData().toString();
    m_instanceBox->setEnabled(!name.isEmpty());
    if (align(name, m_instanceBox->value()))
        m_status->setText(name.isEmpty()
                              ? "Aligned at the session starts"
                              : QString("Aligned at %1 #%2").arg(name).arg(m_instanceBox->value()));
    else
        m_status->setText(m_alignError);
}

bool CompareTab::align(const QString& nvtxName, int n) {
    if (!m_reports.baseline || !m_reports.comparison) return false;
    const std::string name = nvtxName.toStdString();
    auto a = alignmentOffset(*m_reports.baseline, name, n);
    if (!a.ok()) {
        m_alignError = "Baseline: " + QString::fromStdString(a.error());
        return false;
    }
    auto b = alignmentOffset(*m_reports.comparison, name, n);
    if (!b.ok()) {
        m_alignError = "Comparison: " + QString::fromStdString(b.error());
        return false;
    }
    m_alignError.clear();
    m_anchors = {*a, *b};
    const std::string label =
        name.empty() ? "0 = session start" : "0 = " + name + " #" + std::to_string(n);
    for (TimelineWidget* t : {m_baselineTimeline, m_comparisonTimeline}) {
        t->scene()->setOriginLabel(label);
        t->refreshFrame();
    }
    resetViews();
    return true;
}

void CompareTab::resetViews() {
    // Both views get the union of the two reports on the shared axis as bounds, so that
    // following the other view is never clamped differently on the two sides.
    const Report& rb = *m_reports.baseline;
    const Report& rc = *m_reports.comparison;
    const int64_t lo = std::min(rb.tMin() - m_anchors.baseline, rc.tMin() - m_anchors.comparison);
    const int64_t hi =
        std::max(viewEnd(rb) - m_anchors.baseline, viewEnd(rc) - m_anchors.comparison);
    m_syncing = true;
    m_baselineTimeline->view().reset(lo + m_anchors.baseline, hi + m_anchors.baseline,
                                     m_anchors.baseline);
    m_comparisonTimeline->view().reset(lo + m_anchors.comparison, hi + m_anchors.comparison,
                                       m_anchors.comparison);
    m_syncing = false;
}

void CompareTab::follow(bool fromBaseline) {
    if (m_syncing || !m_reports.baseline) return;
    m_syncing = true;
    ViewState& from = fromBaseline ? m_baselineTimeline->view() : m_comparisonTimeline->view();
    ViewState& to = fromBaseline ? m_comparisonTimeline->view() : m_baselineTimeline->view();
    const int64_t shift = fromBaseline ? m_anchors.comparison - m_anchors.baseline
                                       : m_anchors.baseline - m_anchors.comparison;
    const TimeRange r = from.range();
    to.setRange(r.start + shift, r.end + shift, false);
    m_syncing = false;
}

void CompareTab::showItem(int row) {
    if (row < 0 || static_cast<size_t>(row) >= m_diff.items.size()) return;
    const analysis::DiffItem& item = m_diff.items[static_cast<size_t>(row)];
    const InstanceSpan b = itemInstances(*m_reports.baseline, item.category, item.name);
    const InstanceSpan c = itemInstances(*m_reports.comparison, item.category, item.name);
    m_baselineInstances =
        itemInstanceRefs(*m_reports.baseline, item.category, item.name, kMaxOutlinedInstances);
    m_comparisonInstances =
        itemInstanceRefs(*m_reports.comparison, item.category, item.name, kMaxOutlinedInstances);
    m_baselineTimeline->update();
    m_comparisonTimeline->update();
    // Zoom (on the shared axis) to the union of both sides' spans, padded so edges show.
    bool any = false;
    int64_t lo = 0, hi = 0;
    auto select = [&](ViewState& v, const InstanceSpan& s, int64_t anchor) {
        if (s.count == 0) {
            v.clearSelection();
            return;
        }
        v.setSelection(s.start, s.end);
        lo = any ? std::min(lo, s.start - anchor) : s.start - anchor;
        hi = any ? std::max(hi, s.end - anchor) : s.end - anchor;
        any = true;
    };
    select(m_baselineTimeline->view(), b, m_anchors.baseline);
    select(m_comparisonTimeline->view(), c, m_anchors.comparison);
    if (any) {
        const int64_t pad = std::max<int64_t>((hi - lo) / 20, ViewState::kMinSpan);
        m_baselineTimeline->view().setRange(lo - pad + m_anchors.baseline,
                                            hi + pad + m_anchors.baseline);
    }
    m_status->setText(QString("%1: %2 instance(s) in the baseline, %3 in the comparison")
                          .arg(QString::fromStdString(item.name))
                          .arg(b.count)
                          .arg(c.count));
}

void CompareTab::showFinding(const analysis::FindingPair& pair) {
    bool any = false;
    int64_t lo = 0, hi = 0;
    auto show = [&](const Report& report, const analysis::Finding& f, ViewState& view,
                    std::vector<analysis::EventRef>& outlined, int64_t anchor) {
        outlined.clear();
        if (f.examples.empty()) {
            view.clearSelection();
            return QString("none");
        }
        const analysis::FindingExample& e = f.examples.front();
        if (e.track < report.tracks.size() && e.index < report.tracks[e.track].size())
            outlined.push_back({e.track, e.index});
        view.setSelection(e.start, e.end);
        lo = any ? std::min(lo, e.start - anchor) : e.start - anchor;
        hi = any ? std::max(hi, e.end - anchor) : e.end - anchor;
        any = true;
        return durationText(e.end - e.start);
    };
    const QString b = show(*m_reports.baseline, pair.baseline, m_baselineTimeline->view(),
                           m_baselineInstances, m_anchors.baseline);
    const QString c = show(*m_reports.comparison, pair.comparison, m_comparisonTimeline->view(),
                           m_comparisonInstances, m_anchors.comparison);
    m_baselineTimeline->update();
    m_comparisonTimeline->update();
    if (any) {
        // On the shared axis, padded as the Insights dock pads an instance.
        const int64_t pad = std::max<int64_t>((hi - lo) / 4, 500);
        m_baselineTimeline->view().setRange(lo - pad + m_anchors.baseline,
                                            hi + pad + m_anchors.baseline);
    }
    m_status->setText(QString("%1: worst instance %2 in the baseline, %3 in the comparison")
                          .arg(QString::fromStdString(pair.title), b, c));
}

}  // namespace sl::viewer
