#include "viewer/analysis/AnalysisDocks.h"

#include <QDockWidget>
#include <QMainWindow>

#include "viewer/analysis/SelectionModel.h"
#include "viewer/analysis/CpuSamplingDock.h"
#include "viewer/analysis/DetailsPanel.h"
#include "viewer/analysis/EventsView.h"
#include "viewer/analysis/FindBar.h"
#include "viewer/analysis/InsightsDock.h"
#include "viewer/analysis/SelectionStatsDock.h"
#include "viewer/analysis/StatsDock.h"

namespace sl::viewer {
namespace {

QDockWidget* wrap(QMainWindow* window, QWidget* content, const QString& title,
                  const QString& name) {
    auto* dock = new QDockWidget(title, window);
    dock->setObjectName(name);
    dock->setWidget(content);
    return dock;
}

}  // namespace

AnalysisDocks::AnalysisDocks(QMainWindow* window, std::shared_ptr<const Report> report)
    : QObject(window), m_report(std::move(report)) {
    m_selectionModel = new SelectionModel(m_report, this);
    m_selection = new SelectionStatsDock(m_report, window);
    m_stats = new StatsDock(m_report, window);
    m_insights = new InsightsDock(m_report, window);
    m_events = new EventsView(m_report, window);
    m_details = new DetailsPanel(m_selectionModel, window);
    m_find = new FindBar(m_report, window);
    m_eventsDock = wrap(window, m_events, tr("Events"), QStringLiteral("EventsDock"));
    m_detailsDock = wrap(window, m_details, tr("Details"), QStringLiteral("DetailsDock"));
    m_findDock = wrap(window, m_find, tr("Find"), QStringLiteral("FindDock"));
    window->addDockWidget(Qt::TopDockWidgetArea, m_findDock);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_eventsDock);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_selection);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_stats);
    window->tabifyDockWidget(m_eventsDock, m_selection);
    window->tabifyDockWidget(m_selection, m_stats);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_insights);
    window->tabifyDockWidget(m_stats, m_insights);
    if (m_report->eventCount(EventKind::CpuSample) > 0) {
        m_sampling = new CpuSamplingDock(m_report, window);
        window->addDockWidget(Qt::BottomDockWidgetArea, m_sampling);
        window->tabifyDockWidget(m_insights, m_sampling);
    }
    m_eventsDock->raise();
    window->addDockWidget(Qt::RightDockWidgetArea, m_detailsDock);
    wire();
}

void AnalysisDocks::wire() {
    connect(m_events, &EventsView::eventSelected, m_selectionModel, &SelectionModel::selectEvent);
    connect(m_events, &EventsView::rangeRequested, this, &AnalysisDocks::rangeRequested);
    connect(m_events, &EventsView::eventActivated, this, &AnalysisDocks::eventActivated);
    connect(m_find, &FindBar::eventFound, m_selectionModel, &SelectionModel::selectEvent);
    connect(m_find, &FindBar::eventFound, this, [this](quint32 track, quint32 index) {
        const auto [t0, t1] = EventsView::zoomRangeFor(*m_report, {track, index});
        emit rangeRequested(t0, t1);
    });
    // An insight's instance is shown as a found event is: selected, then zoomed to.
    connect(m_insights, &InsightsDock::eventRequested, m_selectionModel, &SelectionModel::selectEvent);
    connect(m_insights, &InsightsDock::instanceRequested, this, &AnalysisDocks::rangeRequested);
    // The details panel follows the selection by itself; the events view shows its row.
    connect(m_selectionModel, &SelectionModel::eventSelected, m_events, &EventsView::selectEvent);
}

void AnalysisDocks::setTimeSelection(qint64 t0, qint64 t1, const std::vector<uint32_t>& tracks) {
    m_selection->setSelection(t0, t1, tracks);
    m_stats->setSelection(t0, t1);
    m_insights->setSelection(t0, t1);
    if (m_sampling) m_sampling->setSelection(t0, t1, tracks);
}

QList<QDockWidget*> AnalysisDocks::allDocks() const {
    QList<QDockWidget*> docks{m_findDock, m_eventsDock, m_selection, m_stats, m_insights};
    if (m_sampling) docks << m_sampling;
    docks << m_detailsDock;
    return docks;
}

void AnalysisDocks::selectEvent(quint32 track, quint32 index) {
    m_selectionModel->selectEvent(track, index);
}

}  // namespace sl::viewer
