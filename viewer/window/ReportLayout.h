#pragma once
// The default arrangement of one report's panels, timeline first (issue #21): the timeline in
// the middle; Events, Selection statistics, Stats, Insights and CPU sampling tabbed in one short
// pane below it; Details and Summary tabbed in one side panel on the right,
// hidden; the find bar hidden (Ctrl+F shows it). Layouts are saved with kVersion: a state saved
// by a build with another version is refused by QMainWindow::restoreState, so it is dropped.
#include <QList>

class QDockWidget;
class QMainWindow;

namespace sl::viewer {

class AnalysisDocks;

struct ReportLayout {
    static constexpr int kVersion = 1;
    // Height of the bottom pane's docks and width of the side panel when shown, in pixels:
    // the timeline keeps >= 70% of a 1400x900 window.
    static constexpr int kBottomHeight = 150;  // a dock's, title bar included; tabs add ~27
    static constexpr int kSideWidth = 380;
    // In a short window (a high scale factor: 1920x1080 at QT_SCALE_FACTOR=2 is 960x540 logical
    // pixels) the pane takes 17% of the window's height instead, at least kMinBottomHeight
    // (a table's header and two rows), so the timeline keeps most of the window.
    static constexpr int kMinBottomHeight = 80;
    static int bottomHeightFor(int windowHeight);

    // Puts every dock of `panels` where the default layout has it; `side` are the docks of the
    // side panel after the analysis Details dock. Works on a window already arranged by the user.
    // A bottom dock taller than kBottomHeight at its minimum gets its content in a scroll area.
    static void applyDefault(QMainWindow* panels, const AnalysisDocks* docks,
                             const QList<QDockWidget*>& side);
};

}  // namespace sl::viewer
