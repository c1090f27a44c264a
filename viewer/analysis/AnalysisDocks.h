#pragma once
// Puts the analysis panels of one report into a QMainWindow and wires them together: the
// selection statistics, Stats, Insights and CPU sampling docks, the events view, the details
// panel and the find bar, all around one SelectionModel (the tab's selected event and its
// correlations): every panel that picks an event selects it there.
// The timeline talks to them only through the slots and signals below, so they work (and are
// tested) without it. GUI thread; the docks are children of the window.
#include <QList>
#include <QObject>
#include <memory>
#include <vector>

#include "model/core/Report.h"

class QDockWidget;
class QMainWindow;

namespace sl::viewer {

class SelectionModel;
class CpuSamplingDock;
class DetailsPanel;
class EventsView;
class FindBar;
class InsightsDock;
class SelectionStatsDock;
class StatsDock;

class AnalysisDocks : public QObject {
    Q_OBJECT
public:
    AnalysisDocks(QMainWindow* window, std::shared_ptr<const Report> report);

    SelectionModel* selection() const { return m_selectionModel; }
    SelectionStatsDock* selectionStats() const { return m_selection; }
    StatsDock* stats() const { return m_stats; }
    InsightsDock* insights() const { return m_insights; }
    // Null for reports without CPU samples.
    CpuSamplingDock* sampling() const { return m_sampling; }
    EventsView* events() const { return m_events; }
    DetailsPanel* details() const { return m_details; }
    FindBar* findBar() const { return m_find; }
    QDockWidget* eventsDock() const { return m_eventsDock; }
    QDockWidget* detailsDock() const { return m_detailsDock; }
    QDockWidget* findDock() const { return m_findDock; }
    // Every dock above, for the View menu (a closed one is reopened there).
    QList<QDockWidget*> allDocks() const;

public slots:
    // The timeline's time selection changed (empty range: cleared); `tracks` are the selected
    // rows' tracks, empty for all (with an empty range they still limit the CPU sampling dock).
    void setTimeSelection(qint64 t0, qint64 t1, const std::vector<uint32_t>& tracks = {});
    // Selects an event (the timeline's click, arrows and keys): selection()->selectEvent.
    void selectEvent(quint32 track, quint32 index);

signals:
    // The user asked to see this range (double-click in the events view, find, activation of
    // an insight).
    void rangeRequested(qint64 t0, qint64 t1);
    // An event was double-clicked in the events view (it is selected, its range requested).
    void eventActivated(quint32 track, quint32 index);

private:
    void wire();

    std::shared_ptr<const Report> m_report;
    SelectionModel* m_selectionModel = nullptr;
    SelectionStatsDock* m_selection = nullptr;
    StatsDock* m_stats = nullptr;
    InsightsDock* m_insights = nullptr;
    CpuSamplingDock* m_sampling = nullptr;
    EventsView* m_events = nullptr;
    DetailsPanel* m_details = nullptr;
    FindBar* m_find = nullptr;
    QDockWidget* m_eventsDock = nullptr;
    QDockWidget* m_detailsDock = nullptr;
    QDockWidget* m_findDock = nullptr;
};

}  // namespace sl::viewer
