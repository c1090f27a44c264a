#pragma once
// A report comparison in one tab: the baseline's and the comparison's timelines stacked with
// one time axis (t=0 is each report's session start or the start of a chosen NVTX range
// instance), zoom and pan synchronized, and below them the diff table of `sightline diff`
// (model/analysis/ReportDiff.h) and, in a second tab, the findings of `sightline analyze`'s rules
// on both reports with a verdict per rule (CompareFindings). Double-clicking a diff row selects
// that item's instances in both timelines and zooms to them; double-clicking a rule shows its
// worst instance on each side. Reports load and, for files, the diff is computed off the GUI
// thread (two 10 M-event reports take over a second to diff), the rules always are, all through
// JobTracker (closing the tab cancels them, never waits); the rest is GUI thread.
//
// Invariant: for every visible time t in the baseline, the comparison shows
// t - anchors.baseline + anchors.comparison (up to clamping at the data bounds).
#include <QWidget>
#include <memory>

#include "model/analysis/CorrelationIndex.h"
#include "model/analysis/ReportDiff.h"
#include "model/analysis/rules/FindingsDiff.h"
#include "model/core/Report.h"
#include "viewer/timeline/Row.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QTabWidget;
class QTableView;

namespace sl::viewer {

class CompareFindings;
class ReportLoader;
class StatsTableModel;
class TimelineWidget;

// The two reports of a comparison: named by role, never by index.
struct ComparedReports {
    ReportPtr baseline;
    ReportPtr comparison;
};

// The report time shown as 0 on each side.
struct CompareAnchors {
    int64_t baseline = 0;
    int64_t comparison = 0;
};

class CompareTab : public QWidget {
    Q_OBJECT
public:
    // Loads both files off the GUI thread; loaded() or failed() follows.
    CompareTab(const QString& baselinePath, const QString& comparisonPath,
               QWidget* parent = nullptr);
    // Shows two reports already in memory (tests, reports open in other tabs).
    explicit CompareTab(ComparedReports reports, QWidget* parent = nullptr);
    ~CompareTab() override;

    const ComparedReports& reports() const { return m_reports; }
    const analysis::DiffResult& diff() const { return m_diff; }
    CompareAnchors anchors() const { return m_anchors; }
    TimelineWidget* baselineTimeline() const { return m_baselineTimeline; }
    TimelineWidget* comparisonTimeline() const { return m_comparisonTimeline; }
    QTableView* diffView() const { return m_table; }
    StatsTableModel* diffModel() const { return m_model; }
    // The tabs below the timelines: the differences, then the rules' findings.
    QTabWidget* bottomTabs() const { return m_bottomTabs; }
    CompareFindings* findings() const { return m_findings; }
    QLabel* summaryLabel() const { return m_summary; }
    QComboBox* alignBox() const { return m_alignBox; }
    QSpinBox* instanceBox() const { return m_instanceBox; }
    QString alignError() const { return m_alignError; }
    // The instances of the item last shown (showItem), outlined in each timeline.
    const std::vector<analysis::EventRef>& baselineInstances() const { return m_baselineInstances; }
    const std::vector<analysis::EventRef>& comparisonInstances() const {
        return m_comparisonInstances;
    }
    QString title() const;

    // Aligns at the session starts (empty name) or at the start of the nth (1-based) instance
    // of an NVTX range in each report; false (alignment unchanged, alignError() says why)
    // when either report lacks that instance. Shows everything afterwards.
    bool align(const QString& nvtxName, int n);
    // What double-clicking diff row `row` does: selects, in each timeline, the span from the
    // item's first to its last instance (cleared on a side without any) and zooms to them.
    void showItem(int row);
    // What double-clicking a rule's row does: selects, in each timeline, the worst instance of
    // that side's finding (cleared on a side without one), outlines its event and zooms to them.
    void showFinding(const analysis::FindingPair& pair);

signals:
    void loaded();
    void failed(const QString& message);

private:
    void buildUi();
    void loaderDone();
    // The timelines of both reports, aligned at the session starts.
    void showReports(ComparedReports reports, std::unique_ptr<Row> baselineRows,
                     std::unique_ptr<Row> comparisonRows);
    // The diff table, summary and the NVTX names offered for alignment.
    void showDiff(analysis::DiffResult diff, const std::vector<std::string>& commonNames);
    void applyAlignmentFromControls();
    void resetViews();
    // Copies `from`'s visible range onto the other timeline, shifted by the anchors.
    void follow(bool fromBaseline);

    QString m_baselinePath, m_comparisonPath;  // empty for reports given in memory
    ComparedReports m_reports;
    CompareAnchors m_anchors;
    analysis::DiffResult m_diff;
    std::unique_ptr<ReportLoader> m_baselineLoader, m_comparisonLoader;
    TimelineWidget* m_baselineTimeline = nullptr;
    TimelineWidget* m_comparisonTimeline = nullptr;
    QLabel* m_baselineLabel = nullptr;
    QLabel* m_comparisonLabel = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_summary = nullptr;
    QComboBox* m_alignBox = nullptr;
    QSpinBox* m_instanceBox = nullptr;
    QTableView* m_table = nullptr;
    StatsTableModel* m_model = nullptr;
    QTabWidget* m_bottomTabs = nullptr;
    CompareFindings* m_findings = nullptr;
    QString m_alignError;
    std::vector<analysis::EventRef> m_baselineInstances, m_comparisonInstances;
    bool m_syncing = false;  // set while one view follows the other: no ping-pong
};

}  // namespace sl::viewer
