#include "viewer/window/MainWindow.h"

#include "viewer/timeline/ProjectedNvtxRow.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/FindBar.h"
#include "viewer/analysis/SelectionModel.h"
#include "viewer/analysis/TimelineAnalysis.h"
#include "viewer/capture/CaptureTab.h"
#include "viewer/compare/CompareTab.h"
#include "viewer/window/RankOffsetsDialog.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/ReportLayout.h"
#include "viewer/window/ReportOpener.h"
#include "viewer/window/ReportTab.h"
#include "viewer/window/ScreenFit.h"
#include "viewer/window/ThemeSetting.h"

namespace sl::viewer {

QList<QPair<QString, QString>> timelineShortcuts() {
    return {
        {"Ctrl+Wheel", "Zoom in or out around the mouse"},
        {"Alt+Wheel, Shift+Wheel", "Pan horizontally"},
        {"Wheel", "Scroll the rows"},
        {"Middle drag, Shift+Left drag", "Pan (and scroll rows)"},
        {"Left drag", "Select a time range"},
        {"Shift+Z", "Zoom to the selection"},
        {"Backspace", "Back to the previous view"},
        {"Home, F", "Show everything"},
        {"Ctrl+M", "Drop a marker at the mouse (the middle of the view when elsewhere)"},
        {"W / S", "Zoom in / out"},
        {"A / D", "Pan left / right"},
        {"Escape", "Clear the selection"},
        {"Left / Right", "Previous / next event of the selected event's row"},
        {"Click on an event", "Select it (Details, the events view, the status bar); on empty space: clear"},
        {"Double click on an event", "Zoom to the event"},
        {"Click on a group header", "Collapse or expand it"},
        {"Right click on a row", "Pin it to the top, collapse, expand"},
        {"Ctrl+O", "Open a report"},
        {"Ctrl+W", "Close the report"},
    };
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle("Sightline");
    setAcceptDrops(true);
    m_tabs = new QTabWidget(this);
    m_tabs->setTabsClosable(true);
    m_tabs->setDocumentMode(true);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
    setCentralWidget(m_tabs);
    m_selectionLabel = new QLabel;
    m_selectionLabel->setObjectName("selectionLabel");
    m_selectionLabel->setTextFormat(Qt::RichText);
    statusBar()->addPermanentWidget(m_selectionLabel);
    connect(m_selectionLabel, &QLabel::linkActivated, this, [this] {
        if (ReportTab* t = currentTab(); t && t->analysis()) {
            t->analysis()->docks()->detailsDock()->show();
            t->analysis()->docks()->detailsDock()->raise();
        }
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::followSelection);
    setupMenus();
    QSettings s;
    if (!restoreGeometry(s.value("window/geometry").toByteArray())) resize(1400, 900);
    fitToScreen(*this);  // a high scale factor or a geometry saved on a larger screen
    applyTheme(savedTheme());
    statusBar()->showMessage("Open a report with File > Open, or drop one here");
}

MainWindow::~MainWindow() {
    // The tabs go with the window's children, after this part of it: their currentChanged must
    // not reach followSelection() then.
    disconnect(m_tabs, nullptr, this, nullptr);
    disconnect(m_selectionChanged);
}

void MainWindow::setupMenus() {
    QMenu* file = menuBar()->addMenu("&File");
    file->addAction("&Open...", QKeySequence::Open, this, &MainWindow::openDialog);
    file->addAction("New &Capture...", QKeySequence::New, this, &MainWindow::showCaptureTab);
    file->addAction("Open &Several as One Timeline...", this, &MainWindow::openSeveralDialog);
    file->addAction("Co&mpare...", this, &MainWindow::compareDialog);
    m_recentMenu = file->addMenu("Open &Recent");
    refreshRecentMenu();
    file->addAction("&Close Report", QKeySequence::Close, this, [this] {
        if (m_tabs->currentIndex() >= 0) closeTab(m_tabs->currentIndex());
    });
    file->addSeparator();
    file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

    QMenu* view = menuBar()->addMenu("&View");
    // The timeline with focus, else the current report's (a compare tab: its baseline, which
    // the comparison timeline follows).
    auto onTimeline = [this](auto fn) {
        return [this, fn] {
            if (auto* focused = qobject_cast<TimelineWidget*>(QApplication::focusWidget()))
                fn(*focused);
            else if (ReportTab* t = currentTab(); t && t->timeline())
                fn(*t->timeline());
            else if (auto* c = qobject_cast<CompareTab*>(m_tabs->currentWidget()))
                fn(*c->baselineTimeline());
        };
    };
    view->addAction("Show &Everything", QKeySequence(Qt::Key_Home), this,
                    onTimeline([](TimelineWidget& t) { t.view().showAll(); }))
        // Home moves within tables and text fields: the timeline handles it itself.
        ->setShortcutContext(Qt::WidgetShortcut);
    // These work wherever the focus is in the window (an events table, a dock): text fields
    // keep Backspace and Shift+Z for typing (they claim them with ShortcutOverride).
    view->addAction("Zoom to &Selection", QKeySequence(Qt::SHIFT | Qt::Key_Z), this,
                    onTimeline([](TimelineWidget& t) { t.view().zoomToSelection(); }));
    view->addAction("&Back", QKeySequence(Qt::Key_Backspace), this,
                    onTimeline([](TimelineWidget& t) { t.view().back(); }));
    view->addAction("Add &Marker", QKeySequence(Qt::CTRL | Qt::Key_M), this,
                    onTimeline([](TimelineWidget& t) { t.view().addMarker(t.anchorTime()); }));
    fillViewMenu(view);
    addThemeMenu(view);

    QMenu* timeline = menuBar()->addMenu("&Timeline");
    timeline->addAction("Rank &Offsets...", this, &MainWindow::rankOffsetsDialog);

    QMenu* help = menuBar()->addMenu("&Help");
    help->addAction("&Keyboard Shortcuts", QKeySequence(Qt::Key_F1), this,
                    &MainWindow::showShortcuts);
    help->addAction("&About Sightline", this, &MainWindow::showAbout);
}

void MainWindow::fillViewMenu(QMenu* view) {
    view->addSeparator();
    // Ctrl+F works wherever the focus is in the window: the find bar is hidden by default.
    view->addAction("&Find...", QKeySequence::Find, this, [this] {
        ReportTab* t = currentTab();
        if (!t || !t->analysis()) return;
        QDockWidget* find = t->analysis()->docks()->findDock();
        find->show();
        find->raise();
        t->analysis()->docks()->findBar()->edit()->setFocus();
        t->analysis()->docks()->findBar()->edit()->selectAll();
    });
    view->addSeparator();
    // Every panel of the current report, filled in when the menu opens, so a closed one can be
    // opened again; the checked ones are shown.
    m_panelsEnd = view->addSeparator();
    connect(view, &QMenu::aboutToShow, this, [this, view] {
        for (QAction* a : std::as_const(m_panelActions)) {
            view->removeAction(a);
            if (a->parent() == view) delete a;  // the placeholder; dock toggles are the docks'
        }
        m_panelActions.clear();
        ReportTab* tab = currentTab();
        if (!tab || !tab->analysis()) {
            QAction* none = new QAction("(open a report to see its panels)", view);
            none->setEnabled(false);
            m_panelActions << none;
        } else {
            for (QDockWidget* d : tab->docks()) m_panelActions << d->toggleViewAction();
        }
        view->insertActions(m_panelsEnd, m_panelActions);
    });
    // The same panels in a submenu, as before the View menu listed them all.
    QMenu* panels = view->addMenu("Report &Panels");
    connect(panels, &QMenu::aboutToShow, this, [this, panels] {
        panels->clear();
        ReportTab* tab = currentTab();
        if (!tab || !tab->analysis()) {
            panels->addAction("(open a report first)")->setEnabled(false);
            return;
        }
        for (QDockWidget* d : tab->analysis()->docks()->allDocks())
            panels->addAction(d->toggleViewAction());
    });
    view->addSeparator();
    view->addAction("Reset &Layout", this, &MainWindow::resetLayout);
}

void MainWindow::saveLayout() {
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    if (ReportTab* t = currentTab(); t && t->panels())
        s.setValue("report/layout", t->panels()->saveState(ReportLayout::kVersion));
}

void MainWindow::resetLayout() {
    for (int i = 0; i < m_tabs->count(); ++i)
        if (auto* t = qobject_cast<ReportTab*>(m_tabs->widget(i))) t->resetLayout();
    saveLayout();
}

void MainWindow::restoreReportLayout(ReportTab* tab) {
    // Refused (and so dropped) when saved with another ReportLayout::kVersion.
    const QByteArray state = QSettings().value("report/layout").toByteArray();
    if (tab->panels() && !state.isEmpty())
        tab->panels()->restoreState(state, ReportLayout::kVersion);
}

void MainWindow::followSelection() {
    disconnect(m_selectionChanged);
    ReportTab* tab = currentTab();
    SelectionModel* selection = tab ? tab->selection() : nullptr;
    auto show = [this, selection] {
        const QString text = selection ? selection->summary() : QString();
        // Kernel names run long: the middle goes, the tooltip has it whole. A link: the side
        // panel with the Details is hidden by default.
        const QString shown =
            m_selectionLabel->fontMetrics().elidedText(text, Qt::ElideMiddle, kSelectionLabelWidth);
        m_selectionLabel->setText(text.isEmpty() ? QString()
                                                 : "<a href=\"details\">" + shown.toHtmlEscaped() + "</a>");
        m_selectionLabel->setToolTip(text);
    };
    show();
    if (selection) m_selectionChanged = connect(selection, &SelectionModel::changed, m_selectionLabel, show);
}

void MainWindow::closeTab(int index) {
    if (qobject_cast<ReportTab*>(m_tabs->widget(index)) == currentTab()) saveLayout();
    delete m_tabs->widget(index);
}

void MainWindow::openDialog() {
    QSettings s;
    const QString p = QFileDialog::getOpenFileName(
        this, "Open report", s.value("lastDir").toString(), reportFileFilter());
    if (p.isEmpty()) return;
    s.setValue("lastDir", QFileInfo(p).absolutePath());
    openReport(p);
}

void MainWindow::openSeveralDialog() {
    QSettings s;
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, "Open several reports as one timeline", s.value("lastDir").toString(), reportFileFilter());
    if (paths.isEmpty()) return;
    s.setValue("lastDir", QFileInfo(paths[0]).absolutePath());
    openMerged(paths);
}

ReportTab* MainWindow::openMerged(const QStringList& paths) {
    MergeRequest request;
    for (const QString& p : paths) request.paths.push_back(p.toStdString());
    return openMerged(request);
}

ReportTab* MainWindow::openMerged(const MergeRequest& request) {
    auto* tab = new ReportTab(request);
    QString tip;
    for (const std::string& p : request.paths) tip += (tip.isEmpty() ? "" : "\n") + QString::fromStdString(p);
    const int i = m_tabs->addTab(tab, tab->path());
    m_tabs->setTabToolTip(i, tip);
    m_tabs->setCurrentIndex(i);
    statusBar()->showMessage("Opening " + tab->path() + " as one timeline");
    connect(tab, &ReportTab::loaded, this, [this, tab] {
        // A file that could not be opened is named; the others are on the timeline.
        const MergeOutcome outcome = tab->mergeOutcome();
        QString msg = QString("Opened %1 reports as one timeline").arg(outcome.parts.size());
        for (const std::string& s : outcome.skipped) msg += "; left out " + QString::fromStdString(s);
        statusBar()->showMessage(msg, outcome.skipped.empty() ? 5000 : 0);
        restoreReportLayout(tab);
        followSelection();
        if (!outcome.parts.empty()) {
            QStringList paths;
            for (const std::string& p : tab->mergeRequest()->paths) paths.push_back(QString::fromStdString(p));
            addRecent(recentEntryOfMerge(paths));
        }
    });
    connect(tab, &ReportTab::failed, this, [this, tab](const QString& msg) {
        statusBar()->showMessage("Cannot open " + tab->path() + ": " + msg);
    });
    return tab;
}

void MainWindow::rankOffsetsDialog() {
    ReportTab* tab = currentTab();
    if (!tab || !tab->mergeRequest() || tab->state() != ReportTab::State::Ready) {
        statusBar()->showMessage("Rank offsets apply to several reports opened as one timeline", 5000);
        return;
    }
    RankOffsetsDialog d(*tab->mergeRequest(), tab->mergeOutcome().parts, this);
    if (d.exec() != QDialog::Accepted) return;
    const int index = m_tabs->indexOf(tab);
    ReportTab* again = openMerged(d.request());
    closeTab(index);  // the new tab replaces it
    m_tabs->setCurrentWidget(again);
}

void MainWindow::compareDialog() {
    QSettings s;
    const QString a = QFileDialog::getOpenFileName(
        this, "Compare: baseline report", s.value("lastDir").toString(), reportFileFilter());
    if (a.isEmpty()) return;
    s.setValue("lastDir", QFileInfo(a).absolutePath());
    const QString b = QFileDialog::getOpenFileName(this, "Compare: comparison report",
                                                   QFileInfo(a).absolutePath(), reportFileFilter());
    if (b.isEmpty()) return;
    openCompare(a, b);
}

CompareTab* MainWindow::openCompare(const QString& baselinePath, const QString& comparisonPath) {
    auto* tab = new CompareTab(baselinePath, comparisonPath);
    const int i = m_tabs->addTab(tab, tab->title());
    m_tabs->setTabToolTip(i, "Baseline: " + baselinePath + "\nComparison: " + comparisonPath);
    m_tabs->setCurrentIndex(i);
    statusBar()->showMessage("Comparing " + baselinePath + " with " + comparisonPath);
    connect(tab, &CompareTab::loaded, this,
            [this, tab] { statusBar()->showMessage("Compared " + tab->title(), 5000); });
    connect(tab, &CompareTab::failed, this,
            [this](const QString& msg) { statusBar()->showMessage("Cannot compare: " + msg); });
    return tab;
}

ReportTab* MainWindow::openReport(const QString& path) {
    auto* tab = new ReportTab(path);
    const int i = m_tabs->addTab(tab, QFileInfo(path).fileName());
    m_tabs->setTabToolTip(i, path);
    m_tabs->setCurrentIndex(i);
    statusBar()->showMessage("Opening " + path);
    connect(tab, &ReportTab::loaded, this, [this, tab] {
        addRecent(QFileInfo(tab->path()).absoluteFilePath());
        // NVTX ranges with CUDA API calls are projected onto the GPUs on the loader thread
        // after the timeline shows (seconds for a 100 M-event report): say so until it ends.
        // The message is this tab's own; another tab's may have replaced it meanwhile.
        if (tab->report() && ProjectedNvtx::applies(*tab->report())) {
            const QString projecting =
                "Opened " + tab->path() + "; projecting its NVTX ranges onto the GPUs...";
            // Held weakly: a tab closing with the window may outlive the status bar.
            QPointer<QStatusBar> bar = statusBar();
            bar->showMessage(projecting);
            auto ours = [bar, projecting] { return bar && bar->currentMessage() == projecting; };
            connect(tab, &ReportTab::projectionAdded, this, [bar, tab, ours] {
                if (ours())
                    bar->showMessage(
                        "Opened " + tab->path() + "; its NVTX ranges are projected onto the GPUs",
                        5000);
            });
            connect(tab, &QObject::destroyed, this, [bar, ours] {
                if (ours()) bar->clearMessage();  // closed while projecting
            });
        } else {
            statusBar()->showMessage("Opened " + tab->path(), 5000);
        }
        restoreReportLayout(tab);
        followSelection();
    });
    connect(tab, &ReportTab::failed, this, [this, tab](const QString& msg) {
        statusBar()->showMessage("Cannot open " + tab->path() + ": " + msg);
    });
    return tab;
}

CaptureTab* MainWindow::showCaptureTab() {
    if (!m_capture) {
        m_capture = new CaptureTab;
        m_tabs->insertTab(0, m_capture, "Capture");
        connect(m_capture, &CaptureTab::reportReady, this,
                [this](const QString& path) { openReport(path); });
    }
    m_tabs->setCurrentWidget(m_capture);
    return m_capture;
}

ReportTab* MainWindow::currentTab() const {
    return qobject_cast<ReportTab*>(m_tabs->currentWidget());
}

QStringList MainWindow::recentFiles() const {
    return QSettings().value("recentFiles").toStringList();
}

void MainWindow::addRecent(const QString& path) {
    QStringList r = recentFiles();
    r.removeAll(path);
    r.prepend(path);
    while (r.size() > kMaxRecent) r.removeLast();
    QSettings().setValue("recentFiles", r);
    refreshRecentMenu();
}

QString MainWindow::recentEntryOfMerge(const QStringList& paths) {
    QStringList absolute;
    for (const QString& p : paths) absolute.push_back(QFileInfo(p).absoluteFilePath());
    return absolute.join('\n');
}

void MainWindow::openRecent(const QString& entry) {
    if (entry.contains('\n'))
        openMerged(entry.split('\n'));
    else
        openReport(entry);
}

void MainWindow::refreshRecentMenu() {
    m_recentMenu->clear();
    const QStringList r = recentFiles();
    for (const QString& p : r) {
        // Several reports opened as one are one entry: "N reports as one timeline: DIR".
        const QStringList parts = p.split('\n');
        const QString label =
            parts.size() == 1 ? p
                              : QString("%1 reports as one timeline: %2")
                                    .arg(parts.size())
                                    .arg(QFileInfo(parts.front()).absolutePath());
        QAction* a = m_recentMenu->addAction(label, this, [this, p] { openRecent(p); });
        if (parts.size() > 1) a->setToolTip(parts.join('\n'));
    }
    m_recentMenu->setEnabled(!r.isEmpty());
    if (!r.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction("Clear list", this, [this] {
            QSettings().remove("recentFiles");
            refreshRecentMenu();
        });
    }
}

void MainWindow::showShortcuts() {
    QDialog d(this);
    d.setWindowTitle("Keyboard Shortcuts");
    auto* table = new QTableWidget(0, 2, &d);
    table->setHorizontalHeaderLabels({"Keys", "Action"});
    for (const auto& [keys, action] : timelineShortcuts()) {
        const int r = table->rowCount();
        table->insertRow(r);
        table->setItem(r, 0, new QTableWidgetItem(keys));
        table->setItem(r, 1, new QTableWidgetItem(action));
    }
    table->horizontalHeader()->setStretchLastSection(true);
    table->resizeColumnsToContents();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &d);
    connect(buttons, &QDialogButtonBox::rejected, &d, &QDialog::reject);
    auto* l = new QVBoxLayout(&d);
    l->addWidget(table);
    l->addWidget(buttons);
    d.resize(560, 520);
    d.exec();
}

void MainWindow::showAbout() {
    QMessageBox::about(
        this, "About Sightline",
        QString("<h3>Sightline %1</h3><p>A CUDA and CPU timeline profiler for Linux.</p>"
                "<p>Qt %2, OpenGL timeline.</p>")
            .arg(QApplication::applicationVersion(), qVersion()));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    QStringList paths;
    for (const QUrl& u : e->mimeData()->urls())
        if (u.isLocalFile()) paths << u.toLocalFile();
    // Several files, or a folder, are one timeline (the ranks of one job); one file is itself.
    if (paths.size() == 1 && !QFileInfo(paths[0]).isDir())
        openReport(paths[0]);
    else if (!paths.isEmpty())
        openMerged(paths);
    e->acceptProposedAction();
}

void MainWindow::closeEvent(QCloseEvent* e) {
    saveLayout();
    QMainWindow::closeEvent(e);
}

}  // namespace sl::viewer
