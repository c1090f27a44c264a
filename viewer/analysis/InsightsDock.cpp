#include "viewer/analysis/InsightsDock.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QProgressBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "viewer/analysis/FindingsModel.h"
#include "viewer/analysis/StatsDock.h"
#include "viewer/analysis/TimeText.h"
#include "viewer/jobs/JobTracker.h"

namespace sl::viewer {
namespace {

QString text(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// Where an instance is, as a person reads it: its row's title, or the GPU of a time region.
QString whereText(const Report& r, const analysis::FindingExample& e) {
    if (e.track < r.tracks.size()) return QString::fromStdString(r.trackTitle(r.tracks[e.track]));
    return QObject::tr("GPU %1 (process %2)").arg(e.device).arg(e.pid);
}

bool isEvent(const Report& r, const analysis::FindingExample& e) {
    return e.track < r.tracks.size() && e.index < r.tracks[e.track].size();
}

// "1 warning", "3 warnings".
QString counted(int n, const QString& one, const QString& many) {
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

// The details of a finding as the CLI prints them, plus what the rule checks.
QString detailsHtml(const analysis::Finding& f) {
    QString html = QStringLiteral(
                       "<h3 style='margin:0'><span style='color:%1'>&#9679;</span> %2 "
                       "<span style='color:gray; font-weight:normal'>(%3, %4)</span></h3>")
                       .arg(severityColor(f.severity).name(), text(f.title).toHtmlEscaped(),
                            text(f.rule).toHtmlEscaped(), severityText(f.severity).toLower());
    html += QStringLiteral("<p>%1</p>").arg(text(f.summary).toHtmlEscaped());
    if (!f.advice.empty())
        html += QStringLiteral("<p><b>%1</b> %2</p>")
                    .arg(QObject::tr("Advice:"), text(f.advice).toHtmlEscaped());
    if (const analysis::RuleInfo* info = analysis::findRule(f.rule))
        html += QStringLiteral("<p style='color:gray'>%1 %2</p>")
                    .arg(QObject::tr("What it checks:"), text(info->description).toHtmlEscaped());
    return html;
}

}  // namespace

InsightsDock::InsightsDock(std::shared_ptr<const Report> report, QWidget* parent)
    : QDockWidget(tr("Insights"), parent), m_report(std::move(report)) {
    setObjectName(QStringLiteral("InsightsDock"));
    buildUi();
    refresh();
}

void InsightsDock::buildUi() {
    auto* body = new QWidget(this);
    auto* layout = new QVBoxLayout(body);
    auto* bar = new QHBoxLayout;
    m_scope = new QComboBox(body);
    m_scope->addItem(tr("Whole report"));
    m_scope->addItem(tr("Selection"));
    m_scope->setToolTip(tr("Check the whole report or the time range selected on the timeline"));
    m_busy = new QProgressBar(body);
    m_busy->setRange(0, 0);  // busy indicator: the rules do not report progress
    m_busy->setMaximumWidth(120);
    m_busy->setMaximumHeight(m_scope->sizeHint().height() * 2 / 3);
    m_busy->setTextVisible(false);
    m_status = new QLabel(body);
    bar->addWidget(m_scope);
    bar->addWidget(m_busy);
    bar->addWidget(m_status, 1);
    layout->addLayout(bar);

    m_model = new FindingsModel(this);
    m_list = new QTableView(body);
    m_list->setObjectName(QStringLiteral("insightsFindings"));
    m_list->setModel(m_model);
    m_list->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_list->setWordWrap(false);
    m_list->verticalHeader()->hide();
    m_list->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_list->verticalHeader()->setDefaultSectionSize(m_list->fontMetrics().height() + 6);
    QHeaderView* header = m_list->horizontalHeader();
    for (int c : {FindingsModel::SeverityColumn, FindingsModel::RuleColumn,
                  FindingsModel::CountColumn, FindingsModel::TimeColumn})
        header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    header->setStretchLastSection(true);
    m_list->setToolTip(tr("Double-click a finding to show its worst instance on the timeline"));

    m_text = new QTextBrowser(body);
    m_text->setObjectName(QStringLiteral("insightsDetails"));
    m_text->setOpenLinks(false);
    m_text->setPlaceholderText(tr("Select a finding to see what to do about it"));

    m_examples = new QTableWidget(0, 4, body);
    m_examples->setObjectName(QStringLiteral("insightsExamples"));
    m_examples->setHorizontalHeaderLabels({tr("Start"), tr("Duration"), tr("Where"), tr("What")});
    m_examples->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_examples->setSelectionMode(QAbstractItemView::SingleSelection);
    m_examples->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_examples->setWordWrap(false);
    m_examples->verticalHeader()->hide();
    m_examples->verticalHeader()->setDefaultSectionSize(m_examples->fontMetrics().height() + 6);
    m_examples->horizontalHeader()->setStretchLastSection(true);
    m_examples->setToolTip(tr("Double-click an instance to show it on the timeline"));

    m_tableModel = new StatsTableModel(this);
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_tableModel);
    proxy->setSortRole(StatsTableModel::SortRole);
    m_table = new QTableView(body);
    m_table->setObjectName(QStringLiteral("insightsTable"));
    m_table->setModel(proxy);
    m_table->setSortingEnabled(true);
    m_table->setWordWrap(false);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);

    m_tabs = new QTabWidget(body);
    m_tabs->addTab(m_examples, tr("Worst instances"));
    m_tabs->addTab(m_table, tr("Table"));

    // The list on the left, what the selected finding says and its instances on the right:
    // a bottom dock is wide and short.
    auto* details = new QSplitter(Qt::Vertical, body);
    details->addWidget(m_text);
    details->addWidget(m_tabs);
    details->setStretchFactor(0, 2);
    details->setStretchFactor(1, 3);
    auto* split = new QSplitter(Qt::Horizontal, body);
    split->addWidget(m_list);
    split->addWidget(details);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    setWidget(body);

    // A drag changes the selection with every mouse move: check once it rests.
    m_selectionTimer = new QTimer(this);
    m_selectionTimer->setSingleShot(true);
    m_selectionTimer->setInterval(200);
    connect(m_selectionTimer, &QTimer::timeout, this, &InsightsDock::refresh);

    connect(m_scope, qOverload<int>(&QComboBox::currentIndexChanged), this, &InsightsDock::refresh);
    connect(m_list->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showFinding(current.row()); });
    // A click selects the instance's event (as a click in the events view does); an
    // activation also zooms to it. Keyboard browsing only shows details.
    connect(m_list, &QAbstractItemView::clicked, this, [this](const QModelIndex& i) {
        const analysis::Finding* f = m_model->findingAt(i.row());
        if (f && !f->examples.empty()) selectExampleEvent(f->examples.front());
    });
    connect(m_list, &QAbstractItemView::activated, this,
            [this](const QModelIndex& i) { activateFinding(i.row()); });
    connect(m_examples, &QAbstractItemView::clicked, this, [this](const QModelIndex& i) {
        const analysis::Finding* f = currentFinding();
        if (f && i.row() >= 0 && static_cast<size_t>(i.row()) < f->examples.size())
            selectExampleEvent(f->examples[static_cast<size_t>(i.row())]);
    });
    connect(m_examples, &QAbstractItemView::activated, this,
            [this](const QModelIndex& i) { activateExample(i.row()); });
}

bool InsightsDock::selectionScope() const {
    return m_scope->currentIndex() == 1;
}

void InsightsDock::setSelectionScope(bool selection) {
    m_scope->setCurrentIndex(selection ? 1 : 0);
}

void InsightsDock::setSelection(qint64 t0, qint64 t1) {
    m_selT0 = t0;
    m_selT1 = t1;
    if (selectionScope()) m_selectionTimer->start();
}

void InsightsDock::refresh() {
    m_selectionTimer->stop();
    if (selectionScope() && m_selT1 <= m_selT0) {
        JobTracker::instance().cancel(this, QStringLiteral("rules"));  // its result is dropped
        m_model->setFindings({});
        showFinding(-1);
        m_busy->hide();
        m_status->setText(tr("Select a time range on the timeline."));
        setWindowTitle(tr("Insights"));
        emit findingsReady();
        return;
    }
    m_status->setText(tr("Checking %1 rules...").arg(analysis::allRules().size()));
    m_busy->show();
    analysis::StatsOptions window;
    if (selectionScope()) {
        window.start = m_selT0;
        window.end = m_selT1;
    }
    std::vector<std::string> specs;
    for (const analysis::RuleInfo& rule : analysis::allRules()) specs.emplace_back(rule.name);
    JobTracker::instance().start(
        this, QStringLiteral("rules"),
        [report = m_report, specs = std::move(specs), window](const std::atomic<bool>& cancel) {
            return analysis::runRules(*report, specs, window, 0, &cancel);
        },
        [this](std::vector<Result<analysis::Finding>> results) {
            showResults(std::move(results));
        });
}

void InsightsDock::showResults(std::vector<Result<analysis::Finding>> results) {
    std::vector<analysis::Finding> findings;
    QStringList errors;
    for (auto& r : results) {
        if (r.ok())
            findings.push_back(std::move(r.value()));
        else
            errors << QString::fromStdString(r.error());
    }
    int warnings = 0, infos = 0;
    for (const analysis::Finding& f : findings) {
        warnings += f.severity == analysis::Severity::Warning;
        infos += f.severity == analysis::Severity::Info;
    }
    const std::string keep = m_shownRule;
    m_model->setFindings(std::move(findings));
    const QString scope = selectionScope()
                              ? tr("selection of %1").arg(durationText(m_selT1 - m_selT0))
                              : tr("whole report");
    QString status = tr("%1 rules checked (%2): %3, %4 info")
                         .arg(results.size())
                         .arg(scope, counted(warnings, tr("warning"), tr("warnings")))
                         .arg(infos);
    if (!errors.isEmpty()) status += QStringLiteral("; ") + errors.join(QStringLiteral("; "));
    m_status->setText(status);
    m_busy->hide();
    // The tab of a tabified dock shows the title: the warnings are seen without opening it.
    setWindowTitle(warnings
                       ? tr("Insights (%1)").arg(counted(warnings, tr("warning"), tr("warnings")))
                       : tr("Insights"));
    const int row = std::max(0, m_model->rowOf(keep));
    if (m_model->rowCount() > 0)
        m_list->selectionModel()->setCurrentIndex(
            m_model->index(row, 0),
            QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    else
        showFinding(-1);
    emit findingsReady();
}

const analysis::Finding* InsightsDock::currentFinding() const {
    return m_model->rowOf(m_shownRule) >= 0 ? m_model->findingAt(m_model->rowOf(m_shownRule))
                                            : nullptr;
}

void InsightsDock::selectFinding(const QString& rule) {
    const int row = m_model->rowOf(rule.toStdString());
    if (row < 0) return;
    m_list->selectionModel()->setCurrentIndex(
        m_model->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void InsightsDock::showFinding(int row) {
    const analysis::Finding* f = m_model->findingAt(row);
    m_examples->setRowCount(0);
    if (!f) {
        m_shownRule.clear();
        m_text->clear();
        m_tableModel->setTable({});
        m_tabs->setTabText(0, tr("Worst instances"));
        m_tabs->setTabText(1, tr("Table"));
        return;
    }
    m_shownRule = f->rule;
    m_text->setHtml(detailsHtml(*f));
    const int64_t origin = m_report->timeOrigin();
    m_examples->setRowCount(static_cast<int>(f->examples.size()));
    for (size_t i = 0; i < f->examples.size(); ++i) {
        const analysis::FindingExample& e = f->examples[i];
        const int r = static_cast<int>(i);
        auto* start = new QTableWidgetItem(timestampText(e.start - origin));
        auto* length = new QTableWidgetItem(durationText(e.end - e.start));
        start->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        length->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_examples->setItem(r, 0, start);
        m_examples->setItem(r, 1, length);
        m_examples->setItem(r, 2, new QTableWidgetItem(whereText(*m_report, e)));
        m_examples->setItem(r, 3, new QTableWidgetItem(QString::fromStdString(e.name)));
    }
    m_tableModel->setTable(f->table);
    // Every column but the last, which stretches to the view's edge.
    for (QTableView* v : {static_cast<QTableView*>(m_examples), m_table})
        for (int c = 0; c + 1 < v->model()->columnCount(); ++c) v->resizeColumnToContents(c);
    m_tabs->setTabText(0, tr("Worst instances (%1)").arg(f->examples.size()));
    m_tabs->setTabText(1, f->table.rowCount() == 1
                              ? tr("Table (1 row)")
                              : tr("Table (%1 rows)").arg(f->table.rowCount()));
}

std::pair<int64_t, int64_t> InsightsDock::instanceRange(const Report& report,
                                                        const analysis::FindingExample& e) {
    int64_t lo = e.start, hi = e.end;
    if (isEvent(report, e)) {
        const Track& t = report.tracks[e.track];
        lo = std::min(lo, t.start[e.index]);
        hi = std::max(hi, t.endAt(e.index));
    }
    const int64_t pad = std::max<int64_t>((hi - lo) / 4, 500);
    return {lo - pad, hi + pad};
}

void InsightsDock::selectExampleEvent(const analysis::FindingExample& e) {
    if (isEvent(*m_report, e)) emit eventRequested(e.track, e.index);
}

void InsightsDock::showInstance(const analysis::FindingExample& e) {
    // Selected first, then zoomed: the same order as Find, so the requested range wins over
    // the timeline's own scrolling to a selected event.
    selectExampleEvent(e);
    const auto [t0, t1] = instanceRange(*m_report, e);
    emit instanceRequested(t0, t1);
}

void InsightsDock::activateFinding(int row) {
    const analysis::Finding* f = m_model->findingAt(row);
    if (!f) return;
    if (f->examples.empty()) {
        m_status->setText(tr("%1: no instance to show").arg(QString::fromStdString(f->title)));
        return;
    }
    showInstance(f->examples.front());
}

void InsightsDock::activateExample(int row) {
    const analysis::Finding* f = currentFinding();
    if (f && row >= 0 && static_cast<size_t>(row) < f->examples.size())
        showInstance(f->examples[static_cast<size_t>(row)]);
}

}  // namespace sl::viewer
