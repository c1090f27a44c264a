#pragma once
// The "selection statistics" dock: for the selected time range (and optionally selected
// rows) the per-row, per-name counts and times, GPU busy per device and stream, and copies by
// kind (model/analysis/SelectionStats.h). Recomputed off the GUI thread whenever the
// selection changes (JobTracker: the newest selection wins); "Copy as TSV" puts all three tables on the
// clipboard. GUI thread.
#include <QDockWidget>
#include <memory>
#include <vector>

#include "model/analysis/SelectionStats.h"

class QLabel;
class QTableWidget;
class QTabWidget;

namespace sl::viewer {

class SelectionStatsDock : public QDockWidget {
    Q_OBJECT
public:
    explicit SelectionStatsDock(std::shared_ptr<const Report> report, QWidget* parent = nullptr);

    const analysis::SelectionStats& stats() const { return m_stats; }
    QString tsv() const;
    QTableWidget* eventsTable() const { return m_events; }
    QTableWidget* busyTable() const { return m_busy; }
    QTableWidget* copiesTable() const { return m_copies; }

public slots:
    // [t0, t1) on the report clock; empty `tracks` = every row. An empty range clears.
    void setSelection(qint64 t0, qint64 t1, const std::vector<uint32_t>& tracks = {});
    void clearSelection();
    void copyTsv() const;

signals:
    void statsReady();  // m_stats holds the newest selection's numbers

private:
    void buildUi();
    void showStats(analysis::SelectionStats stats);
    void fillEvents();
    void fillBusy();
    void fillCopies();

    std::shared_ptr<const Report> m_report;
    analysis::SelectionStats m_stats;
    QLabel* m_header = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableWidget* m_events = nullptr;
    QTableWidget* m_busy = nullptr;
    QTableWidget* m_copies = nullptr;
};

}  // namespace sl::viewer
