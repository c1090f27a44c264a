// Keeps a top-level window on its screen. At a high scale factor (QT_SCALE_FACTOR=2 on a
// 1920x1080 screen leaves 960x540 logical pixels) the default 1400x900 window would open half
// off screen, with its bottom pane and status bar out of reach; a geometry saved on a larger
// monitor would too. Issue #21 item 5.
#pragma once

class QWidget;

namespace sl::viewer {

// Shrinks `w` to at most 95% of its screen's available area (keeping what fits) and moves it
// so that it lies inside that area. Call after the window's size is set and before it is shown.
void fitToScreen(QWidget& w);

}  // namespace sl::viewer
