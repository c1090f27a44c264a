#pragma once
// One open report: a page with progress and Cancel while it loads, then the timeline, or a
// clear error page when it cannot be opened. Owns its loader, scene and view state, and the
// window of panels around its timeline (ReportLayout), Summary included, and so the tab's
// selection (SelectionModel): each tab keeps its own selected event and details.
#include <QList>
#include <QString>
#include <QWidget>

#include <optional>

#include "model/core/Report.h"
#include "viewer/window/MergeOpen.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QDockWidget;
class QMainWindow;
class QTextBrowser;

namespace sl::viewer {

class ReportLoader;
class SelectionModel;
class TimelineAnalysis;
class TimelineWidget;

class ReportTab : public QWidget {
    Q_OBJECT
public:
    explicit ReportTab(const QString& path, QWidget* parent = nullptr);
    // Several reports as one timeline (issue #20); path() is their title.
    ReportTab(const MergeRequest& merge, QWidget* parent = nullptr);
    ~ReportTab() override;
    // The request a merged tab was opened with (Timeline > Rank offsets re-opens it), and after
    // loaded() its parts and the files left out; empty for one report.
    const std::optional<MergeRequest>& mergeRequest() const { return m_merge; }
    MergeOutcome mergeOutcome() const;

    enum class State { Loading, Ready, Failed };
    State state() const { return m_state; }
    const QString& path() const { return m_path; }
    QString errorMessage() const { return m_error; }
    ReportPtr report() const { return m_report; }
    TimelineWidget* timeline() const { return m_timeline; }
    // The analysis docks around the timeline (selection stats, events, details, find, stats).
    TimelineAnalysis* analysis() const { return m_analysis; }
    // The window of docks around the timeline; null until loaded.
    QMainWindow* panels() const { return m_panels; }
    // The tab's selection (the selected event); null until loaded.
    SelectionModel* selection() const;
    // Every dock of panels(): the analysis docks, then Summary.
    QList<QDockWidget*> docks() const;
    // Puts the docks back where the default layout has them (View > Reset Layout).
    void resetLayout();
    void cancel();

signals:
    void loaded();
    void failed(const QString& message);
    void projectionAdded();  // NVTX projected rows are in the timeline now (if any)

private:
    ReportTab(const QString& path, std::optional<MergeRequest> merge, QWidget* parent);
    void onLoaded();
    void onFailed(const QString& message);

    QString m_path;
    std::optional<MergeRequest> m_merge;
    QString m_mergeKey;  // what the loader opens for a merged tab (MergeOpen.h)
    State m_state = State::Loading;
    QString m_error;
    ReportPtr m_report;
    ReportLoader* m_loader = nullptr;
    QStackedWidget* m_stack = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_errorLabel = nullptr;
    TimelineWidget* m_timeline = nullptr;
    TimelineAnalysis* m_analysis = nullptr;
    QMainWindow* m_panels = nullptr;
    QDockWidget* m_summaryDock = nullptr;
};

}  // namespace sl::viewer
