#pragma once
// The Insights dock: every rule of `sightline analyze` (model/analysis/rules/Rule.h) run on
// the report, the findings listed as a to-do list (warnings first, the most time lost on top).
// Selecting a finding shows its summary, advice, worst instances and table (the CLI's columns,
// through StatsTableModel); clicking a finding or an instance selects its event, activating it
// (double-click, Enter) also asks the timeline to zoom to it: a finding shows its worst
// instance. The rules run off the GUI thread (JobTracker: the newest request wins) for the
// whole report or the selected time range.
// GUI thread.
#include <QDockWidget>
#include <memory>
#include <utility>

#include "model/analysis/rules/Rule.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QTabWidget;
class QTableView;
class QTableWidget;
class QTextBrowser;
class QTimer;

namespace sl::viewer {

class FindingsModel;
class StatsTableModel;

class InsightsDock : public QDockWidget {
    Q_OBJECT
public:
    explicit InsightsDock(std::shared_ptr<const Report> report, QWidget* parent = nullptr);

    FindingsModel* model() const { return m_model; }
    QTableView* findingsView() const { return m_list; }
    QTableWidget* examplesTable() const { return m_examples; }
    StatsTableModel* tableModel() const { return m_tableModel; }
    QTextBrowser* detailsText() const { return m_text; }
    QTabWidget* detailTabs() const { return m_tabs; }
    QComboBox* scopeBox() const { return m_scope; }
    QLabel* statusLabel() const { return m_status; }
    // The finding whose details are shown (null when none).
    const analysis::Finding* currentFinding() const;

    // The range an instance is shown in: the instance and its event (a launch latency
    // instance ends where its kernel starts), padded by a quarter of its length on each side,
    // at least 500 ns, as the events view pads an event.
    static std::pair<int64_t, int64_t> instanceRange(const Report& report,
                                                     const analysis::FindingExample& example);

public slots:
    void setSelectionScope(bool selection);   // false: the whole report
    void setSelection(qint64 t0, qint64 t1);  // the range used in selection scope
    void refresh();
    // Shows the details of a rule's finding ("gpu_gaps"), without moving the timeline.
    void selectFinding(const QString& rule);
    // What activating a row does: the finding's worst instance, or that instance of the
    // current finding's list, is selected and zoomed to.
    void activateFinding(int row);
    void activateExample(int row);

signals:
    void findingsReady();  // the list shows the newest request's findings
    // The user asked to see this range (activation of a finding or an instance).
    void instanceRequested(qint64 t0, qint64 t1);
    // The user asked to select this event (click or activation of an instance that is one).
    void eventRequested(quint32 track, quint32 index);

private:
    void buildUi();
    void showResults(std::vector<Result<analysis::Finding>> results);
    void showFinding(int row);
    void selectExampleEvent(const analysis::FindingExample& example);
    void showInstance(const analysis::FindingExample& example);
    bool selectionScope() const;

    std::shared_ptr<const Report> m_report;
    qint64 m_selT0 = 0, m_selT1 = 0;
    std::string m_shownRule;  // kept selected across refreshes
    FindingsModel* m_model = nullptr;
    QComboBox* m_scope = nullptr;
    QProgressBar* m_busy = nullptr;
    QLabel* m_status = nullptr;
    QTableView* m_list = nullptr;
    QTextBrowser* m_text = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableWidget* m_examples = nullptr;
    StatsTableModel* m_tableModel = nullptr;
    QTableView* m_table = nullptr;
    QTimer* m_selectionTimer = nullptr;
};

}  // namespace sl::viewer
