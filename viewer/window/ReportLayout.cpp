#include "viewer/window/ReportLayout.h"

#include <QDockWidget>
#include <QLayout>
#include <QMainWindow>
#include <QScrollArea>

#include <algorithm>

#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/CpuSamplingDock.h"
#include "viewer/analysis/InsightsDock.h"
#include "viewer/analysis/SelectionStatsDock.h"
#include "viewer/analysis/StatsDock.h"

namespace sl::viewer {

namespace {

// Adds `docks` to `area` tabbed together, the first on top; each is shown when `show`.
void tabbed(QMainWindow* panels, Qt::DockWidgetArea area, const QList<QDockWidget*>& docks,
            bool show) {
    for (QDockWidget* d : docks) {
        d->setFloating(false);
        panels->addDockWidget(area, d);  // moves it there when it was elsewhere
    }
    for (int i = 1; i < docks.size(); ++i) panels->tabifyDockWidget(docks[0], docks[i]);
    for (QDockWidget* d : docks) d->setVisible(show);
    if (!docks.isEmpty()) docks[0]->raise();
}

// A panel whose content needs more height than the short bottom pane gives (Insights: summary,
// advice, instances and table, 240 px) scrolls instead of holding the pane (and so the
// timeline) to its minimum height.
void scrollWhenShort(QDockWidget* dock, int height) {
    QWidget* content = dock->widget();
    if (!content || qobject_cast<QScrollArea*>(content) ||
        content->minimumSizeHint().height() <= height)
        return;
    auto* area = new QScrollArea;
    area->setFrameShape(QFrame::NoFrame);
    area->setWidgetResizable(true);
    area->setWidget(content);
    dock->setWidget(area);
}

}  // namespace

int ReportLayout::bottomHeightFor(int windowHeight) {
    return std::clamp(windowHeight * 17 / 100, kMinBottomHeight, kBottomHeight);
}

void ReportLayout::applyDefault(QMainWindow* panels, const AnalysisDocks* docks,
                                const QList<QDockWidget*>& side) {
    // nsys puts the tabs of its bottom pane on top of it; so do we, the pane reads like a page.
    panels->setTabPosition(Qt::BottomDockWidgetArea, QTabWidget::North);
    panels->setTabPosition(Qt::RightDockWidgetArea, QTabWidget::North);
    panels->setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
    panels->setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);

    QList<QDockWidget*> bottom{docks->eventsDock(), docks->selectionStats(), docks->stats(),
                               docks->insights()};
    if (docks->sampling()) bottom << docks->sampling();
    const int bottomHeight = bottomHeightFor(panels->window()->height());
    for (QDockWidget* d : bottom) scrollWhenShort(d, bottomHeight);
    tabbed(panels, Qt::BottomDockWidgetArea, bottom, true);
    tabbed(panels, Qt::RightDockWidgetArea, QList<QDockWidget*>{docks->detailsDock()} + side,
           false);
    tabbed(panels, Qt::TopDockWidgetArea, {docks->findDock()}, false);
    panels->layout()->activate();
    panels->resizeDocks({docks->eventsDock()}, {bottomHeight}, Qt::Vertical);
    panels->resizeDocks({docks->detailsDock()}, {kSideWidth}, Qt::Horizontal);
}

}  // namespace sl::viewer
