#pragma once
// The application window: one tab per report, File > Open (dialog, recent files, drag and
// drop), docks for the summary and the event details, the keyboard-shortcuts dialog and the
// about box. Window geometry, dock layout, recent files and the last folder are remembered
// with QSettings. GUI thread.
#include <QMainWindow>
#include <QPointer>
#include <QStringList>

class QTabWidget;
class QTextBrowser;
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
    // A tab comparing two reports (File > Compare...): timelines stacked, diff table below.
    CompareTab* openCompare(const QString& baselinePath, const QString& comparisonPath);
    // The Capture tab (File > New Capture), created on first use; its reports open in new tabs.
    CaptureTab* showCaptureTab();
    ReportTab* currentTab() const;
    QTabWidget* tabs() const { return m_tabs; }
    QStringList recentFiles() const;
    static constexpr int kMaxRecent = 10;

protected:
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;
    void closeEvent(QCloseEvent* e) override;

private:
    void setupMenus();
    void setupDocks();
    void addRecent(const QString& path);
    void refreshRecentMenu();
    void updateSummary();
    void showShortcuts();
    void showAbout();
    void openDialog();
    void compareDialog();

    QTabWidget* m_tabs = nullptr;
    QTextBrowser* m_summary = nullptr;
    QTextBrowser* m_details = nullptr;
    QMenu* m_recentMenu = nullptr;
    QPointer<CaptureTab> m_capture;
};

// The shortcuts the timeline understands, as (keys, action) pairs, for the dialog and docs.
QList<QPair<QString, QString>> timelineShortcuts();

}  // namespace sl::viewer
