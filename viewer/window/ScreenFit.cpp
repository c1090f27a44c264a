#include "viewer/window/ScreenFit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

#include <algorithm>

namespace sl::viewer {

void fitToScreen(QWidget& w) {
    QScreen* screen = w.screen() ? w.screen() : QGuiApplication::primaryScreen();
    if (!screen) return;
    const QRect avail = screen->availableGeometry();
    // 5% left for the window manager's frame and title bar, which are not part of size().
    const QSize most(avail.width() * 95 / 100, avail.height() * 95 / 100);
    const QSize size = w.size().boundedTo(most).expandedTo(w.minimumSize().boundedTo(most));
    if (size != w.size()) w.resize(size);
    QPoint pos = w.pos();
    if (!avail.contains(QRect(pos, size))) {
        pos.setX(std::clamp(pos.x(), avail.left(), std::max(avail.left(), avail.right() + 1 - size.width())));
        pos.setY(std::clamp(pos.y(), avail.top(), std::max(avail.top(), avail.bottom() + 1 - size.height())));
        if (!avail.contains(QRect(pos, size)))  // still out: center it
            pos = avail.center() - QPoint(size.width() / 2, size.height() / 2);
        w.move(pos);
    }
}

}  // namespace sl::viewer
