#pragma once
// The application window: one tab per report, File > Open (dialog, recent files, drag and
// drop), the View menu (every panel of the current report, Find, Reset Layout), the
// keyboard-shortcuts dialog and the about box. Window geometry, the report panels' layout
// (ReportLayout), recent files and the last folder are remembered with QSettings. GUI thread.
#include <QMainWindow>
#include <QPointer>
#include <QStringList>

#include "model/merge/OpenMerged.h"

class QTabWidget;
class QAction;
class QLabel;
class QMenu;

namespace sl::viewer {

class CaptureTab;
class CompareTab;
class ReportTab;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    ReportTab* openReport(const QString& path);
    // Several reports (or folders of them) as one timeline, a rank per top-level group (#20).
    ReportTab* openMerged(const QStringList& paths);
    ReportTab* openMerged(const MergeRequest& request);
    // Timeline > Rank Offsets...: the current merged tab's offsets, re-opened when accepted.
    void rankOffsetsDialog();
    // A tab comparing two reports (File > Compare...): timelines stacked, diff table below.
    CompareTab* openCompare(const QString& baselinePath, const QString& comparisonPath);
    // The Capture tab (File > New Capture), created on first use; its reports open in new tabs.
    CaptureTab* showCaptureTab();
    ReportTab* currentTab() const;
    QTabWidget* tabs() const { return m_tabs; }
    // The status bar's line for the current report tab's selected event ("" when none; its
    // tooltip is the whole line): it follows the current tab and clears when that tab closes.
    // A click on it shows the Details panel.
    QLabel* selectionLabel() const { return m_selectionLabel; }
    // File > Open Recent's entries, newest first: a report's path, or for several reports
    // opened as one their absolute paths joined by '\n' (recentEntryOfMerge).
    QStringList recentFiles() const;
    static QString recentEntryOfMerge(const QStringList& paths);
    // Opens an entry of recentFiles(): one report, or several as one timeline.
    void openRecent(const QString& entry);
    // Writes the window geometry and the current report's panel layout to QSettings (also done
    // on close); the next report opened, here or after a restart, gets that layout.
    void saveLayout();
    // View > Reset Layout: every open report's panels go back to the default layout.
    void resetLayout();
    static constexpr int kMaxRecent = 10;
    static constexpr int kSelectionLabelWidth = 600;  // px of the status bar's selection line

protected:
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;
    void closeEvent(QCloseEvent* e) override;

private:
    void setupMenus();
    void fillViewMenu(QMenu* view);
    void closeTab(int index);
    // Shows the current tab's selection in the status bar and follows its changes.
    void followSelection();
    void restoreReportLayout(ReportTab* tab);
    void addRecent(const QString& path);
    void refreshRecentMenu();
    void showShortcuts();
    void showAbout();
    void openDialog();
    void compareDialog();
    void openSeveralDialog();

    QTabWidget* m_tabs = nullptr;
    QList<QAction*> m_panelActions;  // the current report's dock toggles in the View menu
    QAction* m_panelsEnd = nullptr;  // they go before this separator
    QMenu* m_recentMenu = nullptr;
    QPointer<CaptureTab> m_capture;
    QLabel* m_selectionLabel = nullptr;
    QMetaObject::Connection m_selectionChanged;  // the current tab's selection -> the label
};

// The shortcuts the timeline understands, as (keys, action) pairs, for the dialog and docs.
QList<QPair<QString, QString>> timelineShortcuts();

}  // namespace sl::viewer
