#include "viewer/window/ReportTab.h"

#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "viewer/ReportSummary.h"
#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/TimelineAnalysis.h"
#include "viewer/timeline/ProjectedNvtxRow.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimelineScene.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/ReportLayout.h"
#include "viewer/window/ReportLoader.h"

namespace sl::viewer {

ReportTab::ReportTab(const QString& path, QWidget* parent) : ReportTab(path, std::nullopt, parent) {}

ReportTab::ReportTab(const MergeRequest& merge, QWidget* parent)
    : ReportTab([&] {
          QStringList paths;
          for (const std::string& p : merge.paths) paths << QString::fromStdString(p);
          return mergeTitle(paths);
      }(), merge, parent) {}

ReportTab::~ReportTab() {
    if (!m_mergeKey.isEmpty()) forgetMerge(m_mergeKey);
}

MergeOutcome ReportTab::mergeOutcome() const {
    return m_mergeKey.isEmpty() ? MergeOutcome{} : viewer::mergeOutcome(m_mergeKey);
}

ReportTab::ReportTab(const QString& path, std::optional<MergeRequest> merge, QWidget* parent)
    : QWidget(parent), m_path(path), m_merge(std::move(merge)) {
    if (m_merge) m_mergeKey = registerMerge(*m_merge);
    m_stack = new QStackedWidget(this);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_stack);

    auto* loading = new QWidget;
    auto* l = new QVBoxLayout(loading);
    l->addStretch();
    auto* label = new QLabel("Opening " + path.toHtmlEscaped() + " ...");
    label->setAlignment(Qt::AlignCenter);
    l->addWidget(label);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 100);
    m_progress->setMaximumWidth(500);
    l->addWidget(m_progress, 0, Qt::AlignHCenter);
    m_cancel = new QPushButton("Cancel");
    l->addWidget(m_cancel, 0, Qt::AlignHCenter);
    l->addStretch();
    m_stack->addWidget(loading);

    auto* errorPage = new QWidget;
    auto* el = new QVBoxLayout(errorPage);
    m_errorLabel = new QLabel;
    m_errorLabel->setObjectName("errorLabel");
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errorLabel->setAlignment(Qt::AlignCenter);
    el->addWidget(m_errorLabel);
    m_stack->addWidget(errorPage);

    m_loader = new ReportLoader(this);
    connect(m_loader, &ReportLoader::progress, m_progress, &QProgressBar::setValue);
    connect(m_loader, &ReportLoader::finished, this, &ReportTab::onLoaded);
    connect(m_loader, &ReportLoader::failed, this, &ReportTab::onFailed);
    connect(m_loader, &ReportLoader::projectionReady, this, [this] {
        if (m_timeline && m_timeline->scene() &&
            addProjectedNvtxRows(m_timeline->scene()->root(), *m_loader->projection()) > 0)
            m_timeline->rowsChanged();
        emit projectionAdded();  // also without a timeline: the projection is over
    });
    connect(m_cancel, &QPushButton::clicked, this, &ReportTab::cancel);
    m_loader->start(m_merge ? m_mergeKey : path);
}

void ReportTab::cancel() {
    if (m_state != State::Loading) return;
    m_cancel->setEnabled(false);
    m_cancel->setText("Cancelling...");
    m_loader->cancel();
}

void ReportTab::onLoaded() {
    m_report = m_loader->report();
    auto scene = std::make_unique<TimelineScene>(m_report, m_loader->takeRows());
    m_timeline = new TimelineWidget;
    m_timeline->setScene(std::move(scene));
    // The analysis docks live in a window of their own inside the tab, around the timeline, so
    // every report keeps its own events view, statistics and details.
    auto* inner = new QMainWindow;
    inner->setWindowFlags(Qt::Widget);
    inner->setCentralWidget(m_timeline);
    m_panels = inner;
    m_analysis = new TimelineAnalysis(inner, m_timeline, m_report);
    // The report's summary, tabbed with Details in the side panel.
    auto* summary = new QTextBrowser;
    summary->setHtml(reportSummaryHtml(*m_report, m_path));
    m_summaryDock = new QDockWidget("Summary", inner);
    m_summaryDock->setObjectName("summaryDock");
    m_summaryDock->setWidget(summary);
    m_stack->addWidget(inner);
    m_stack->setCurrentWidget(inner);
    // Laid out first, so that the docks' default sizes are taken from the tab's real size.
    layout()->activate();
    resetLayout();
    m_timeline->setFocus();
    m_state = State::Ready;
    emit loaded();
}

SelectionModel* ReportTab::selection() const {
    return m_analysis ? m_analysis->docks()->selection() : nullptr;
}

QList<QDockWidget*> ReportTab::docks() const {
    if (!m_analysis) return {};
    return m_analysis->docks()->allDocks() << m_summaryDock;
}

void ReportTab::resetLayout() {
    if (m_panels)
        ReportLayout::applyDefault(m_panels, m_analysis->docks(),
                                   {m_summaryDock});
}

void ReportTab::onFailed(const QString& message) {
    m_state = State::Failed;
    m_error = message;
    m_errorLabel->setText("<h3 style='color:#b71c1c'>Cannot open this report</h3><p>" +
                          message.toHtmlEscaped() + "</p>");
    m_stack->setCurrentIndex(1);
    emit failed(message);
}

}  // namespace sl::viewer
