#include "viewer/timeline/TimelineWidget.h"

#include <algorithm>

#include "viewer/timeline/TrackRow.h"

#include <QContextMenuEvent>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLExtraFunctions>
#include <QOpenGLFramebufferObject>
#include <QOpenGLFunctions>
#include <QOpenGLPaintDevice>
#include <QPainter>
#include <QSurfaceFormat>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "model/util/Format.h"

namespace sl::viewer {

namespace {
constexpr double kWheelZoom = 0.8;    // per wheel notch (120 units)
constexpr double kKeyZoom = 0.8;      // W / S
constexpr double kPanFraction = 0.1;  // of the visible span, per notch or key press

QColor argbColor(uint32_t c) {
    return QColor::fromRgba(c);
}
}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QOpenGLWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(400, 200);
    connect(&m_view, &ViewState::rangeChanged, this, [this] { rebuild(); });
    connect(&m_view, &ViewState::selectionChanged, this, [this] { update(); });
    connect(&m_view, &ViewState::markersChanged, this, [this] { update(); });
}

TimelineWidget::~TimelineWidget() {
    if (m_glReady && context()) {
        makeCurrent();
        m_cache.reset();
        m_renderer.destroy(m_frameBatch);
        m_renderer.destroy(m_overlayBatch);
        doneCurrent();
    }
}

void TimelineWidget::installSurfaceFormat() {
    QSurfaceFormat f = QSurfaceFormat::defaultFormat();
    f.setVersion(3, 3);
    f.setProfile(QSurfaceFormat::CoreProfile);
    f.setSwapInterval(0);  // frames are driven by input, never by vsync
    QSurfaceFormat::setDefaultFormat(f);
}

QString TimelineWidget::checkOpenGL() {
    if (QGuiApplication::platformName() == "offscreen" ||
        QGuiApplication::platformName() == "minimal")
        return "the Qt platform '" + QGuiApplication::platformName() +
               "' has no OpenGL; run with a display (for example under xvfb-run)";
    QOpenGLContext ctx;
    if (!ctx.create()) return "cannot create an OpenGL context";
    const auto v = ctx.format().version();
    if (v < qMakePair(3, 3))
        return QString("OpenGL 3.3 is needed, this display offers %1.%2")
            .arg(v.first)
            .arg(v.second);
    QOffscreenSurface surface;
    surface.setFormat(ctx.format());
    surface.create();
    if (!ctx.makeCurrent(&surface)) return "cannot make an OpenGL context current";
    ctx.doneCurrent();
    return {};
}

void TimelineWidget::setScene(std::unique_ptr<TimelineScene> scene) {
    m_scene = std::move(scene);
    m_hover.reset();
    if (m_scene) {
        const Report& r = m_scene->report();
        m_view.reset(r.tMin(), r.tMax(), r.timeOrigin());
    }
    rebuild();
}

void TimelineWidget::rowsChanged() {
    if (m_scene) m_scene->invalidateLayout();
    rebuild();
}

int64_t TimelineWidget::timeAtX(float x) const {
    if (!m_scene) return 0;
    return m_scene->timeAt(m_view.range(), x);
}

void TimelineWidget::initializeGL() {
    const auto v = context()->format().version();
    if (v < qMakePair(3, 3)) {
        m_glError =
            QString("OpenGL 3.3 is needed, this display offers %1.%2").arg(v.first).arg(v.second);
        return;
    }
    m_glError = m_renderer.initialize();
    m_glReady = m_glError.isEmpty();
}

void TimelineWidget::resizeGL(int, int) {
    m_needRebuild = true;
}

void TimelineWidget::paintGL() {
    QElapsedTimer timer;
    timer.start();
    auto* f = context()->extraFunctions();
    f->glClearColor(1, 1, 1, 1);
    f->glClear(GL_COLOR_BUFFER_BIT);
    if (!m_glReady || !m_scene) {
        QPainter p(this);
        p.drawText(rect(), Qt::AlignCenter,
                   m_glReady ? "No report" : "The timeline cannot draw: " + m_glError);
        return;
    }
    const float w = static_cast<float>(width()), h = static_cast<float>(height());
    const QSize pixels = size() * devicePixelRatio();
    m_scene->setSize(w, h);
    if (!m_cache || m_cache->size() != pixels) {
        m_cache = std::make_unique<QOpenGLFramebufferObject>(pixels);
        m_needRebuild = true;
    }
    if (m_needRebuild) renderFrameToCache(w, h);
    // Every paint: the cached frame (a blit), then the overlay on top. Hover, selection and
    // markers never redraw the events.
    f->glBindFramebuffer(GL_READ_FRAMEBUFFER, m_cache->handle());
    f->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, defaultFramebufferObject());
    f->glBlitFramebuffer(0, 0, pixels.width(), pixels.height(), 0, 0, pixels.width(),
                         pixels.height(), GL_COLOR_BUFFER_BIT, GL_NEAREST);
    f->glBindFramebuffer(GL_FRAMEBUFFER, defaultFramebufferObject());
    m_scene->buildOverlay(m_view.range(), m_view, m_hover, static_cast<float>(m_mouse.x()),
                          m_overlay);
    if (m_overlayHook) m_overlayHook(m_view.range(), m_overlay);
    // Rows picked for the selection statistics: a tint across the whole row.
    for (const LayoutRow& lr : m_scene->layout())
        if (std::find(m_selectedRows.begin(), m_selectedRows.end(), lr.row) != m_selectedRows.end())
            m_overlay.boxes.push_back({0, lr.y, static_cast<float>(width()), lr.h, 0x30FFB300});
    m_renderer.upload(m_overlay, m_overlayBatch);
    f->glEnable(GL_BLEND);
    f->glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    m_renderer.draw(m_overlayBatch, w, h);
    if (!m_overlay.labels.empty()) {
        QPainter p(this);
        paintLabels(p, m_overlay, false);
    }
    ++m_frames;
    m_lastPaintMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    emit frameRendered();
}

void TimelineWidget::renderFrameToCache(float w, float h) {
    QElapsedTimer bt;
    bt.start();
    m_scene->build(m_view.range(), m_frame);
    if (m_frameHook) m_frameHook(m_view.range(), m_frame);
    m_renderer.upload(m_frame, m_frameBatch);
    QFontMetricsF fm(font());
    m_labelCache.clear();
    for (const DrawLabel& l : m_frame.labels) {
        const QString text =
            QString::fromUtf8(l.text.data(), static_cast<qsizetype>(l.text.size()));
        const QString shown = fm.elidedText(text, Qt::ElideRight, l.w);
        if (shown.isEmpty() || shown == QStringLiteral("\u2026")) continue;
        m_labelCache.push_back({QRectF(l.x, l.y, l.w, l.h), argbColor(l.argb), shown});
    }
    auto* f = context()->functions();
    m_cache->bind();
    f->glViewport(0, 0, m_cache->width(), m_cache->height());
    f->glClearColor(1, 1, 1, 1);
    f->glClear(GL_COLOR_BUFFER_BIT);
    f->glEnable(GL_BLEND);
    f->glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    m_renderer.draw(m_frameBatch, w, h);
    {
        QOpenGLPaintDevice device(m_cache->size());
        device.setDevicePixelRatio(devicePixelRatio());
        QPainter p(&device);
        p.setFont(font());
        paintLabels(p, m_frame, true);
    }
    m_cache->bindDefault();
    f->glBindFramebuffer(GL_FRAMEBUFFER, defaultFramebufferObject());
    f->glViewport(0, 0, m_cache->width(), m_cache->height());
    m_needRebuild = false;
    ++m_rebuilds;
    m_lastBuildMs = static_cast<double>(bt.nsecsElapsed()) / 1e6;
}

void TimelineWidget::paintLabels(QPainter& p, const DrawList& list, bool cached) {
    if (cached) {
        for (const CachedLabel& l : m_labelCache) {
            p.setPen(l.color);
            p.drawText(l.rect, Qt::AlignLeft | Qt::AlignVCenter, l.text);
        }
        return;
    }
    QFontMetricsF fm(font());
    for (const DrawLabel& l : list.labels) {
        p.setPen(argbColor(l.argb));
        const QString text = fm.elidedText(QString::fromStdString(l.text), Qt::ElideRight, l.w);
        p.drawText(QRectF(l.x, l.y, l.w, l.h), Qt::AlignLeft | Qt::AlignVCenter, text);
    }
}

QImage TimelineWidget::renderImage() {
    return grabFramebuffer();
}

QString TimelineWidget::hitText(const HitInfo& hit) const {
    QString s = QString::fromStdString(hit.name);
    if (hit.track) {
        const int64_t origin = m_view.origin();
        s += "\nStart: " + QString::fromStdString(formatDuration(hit.start - origin));
        s += "\nDuration: " + QString::fromStdString(formatDuration(hit.end - hit.start));
    }
    for (const auto& [k, v] : hit.fields)
        s += "\n" + QString::fromStdString(k) + ": " + QString::fromStdString(v);
    return s;
}

void TimelineWidget::updateHover(QPointF pos) {
    m_mouse = pos;
    if (!m_scene) return;
    m_hover =
        m_scene->hitTest(m_view.range(), static_cast<float>(pos.x()), static_cast<float>(pos.y()));
    const QString text = m_hover ? hitText(*m_hover) : QString();
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(mapToGlobal(pos.toPoint()) + QPoint(14, 14), text, this);
    emit hovered(text);
    update();  // a redraw, not a rebuild
}

void TimelineWidget::wheelEvent(QWheelEvent* e) {
    if (!m_scene) return;
    // Alt turns the wheel horizontal in Qt, so take whichever axis moved.
    const QPoint d = e->angleDelta();
    const double notches = (d.y() != 0 ? d.y() : d.x()) / 120.0;
    const TimeRange r = m_view.range();
    const auto mods = e->modifiers();
    if (mods & Qt::ControlModifier) {
        const float x = std::max(static_cast<float>(e->position().x()), m_scene->eventX());
        m_view.zoomAround(m_scene->timeAt(r, x), std::pow(kWheelZoom, notches));
    } else if (mods & (Qt::AltModifier | Qt::ShiftModifier)) {
        m_view.pan(static_cast<int64_t>(-notches * kPanFraction * static_cast<double>(r.span())));
    } else {
        m_scene->setScroll(m_scene->scroll() - static_cast<float>(notches * 60));
        rebuild();
    }
    e->accept();
}

void TimelineWidget::clearSelectedRows() {
    if (m_selectedRows.empty()) return;
    m_selectedRows.clear();
    emit rowSelectionChanged();
    update();
}

std::vector<uint32_t> TimelineWidget::selectedTracks() const {
    std::vector<uint32_t> out;
    if (!m_scene) return out;
    const Report& report = m_scene->report();
    // A group stands for every track row below it; summary rows repeat other rows' tracks.
    std::function<void(const Row*)> collect = [&](const Row* row) {
        if (const auto* tr = dynamic_cast<const TrackRow*>(row))
            for (const Track* t : tr->tracks())
                out.push_back(static_cast<uint32_t>(t - report.tracks.data()));
        for (const auto& child : row->children()) collect(child.get());
    };
    for (const Row* row : m_selectedRows) collect(row);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void TimelineWidget::headerClick(QPointF pos, bool toggleSelection) {
    const LayoutRow* lr = m_scene->rowAt(static_cast<float>(pos.y()));
    if (lr && toggleSelection) {
        auto it = std::find(m_selectedRows.begin(), m_selectedRows.end(), lr->row);
        if (it == m_selectedRows.end()) m_selectedRows.push_back(lr->row);
        else m_selectedRows.erase(it);
        emit rowSelectionChanged();
        update();
        return;
    }
    if (!lr || !lr->row->isGroup()) return;
    m_scene->setExpanded(lr->row, !lr->row->expanded());
    rebuild();
}

void TimelineWidget::mousePressEvent(QMouseEvent* e) {
    if (!m_scene) return;
    const QPointF pos = e->position();
    const bool inEvents = pos.x() >= m_scene->eventX();
    m_dragStart = pos;
    if (e->button() == Qt::LeftButton && !inEvents) {
        headerClick(pos, e->modifiers() & Qt::ControlModifier);
    } else if (e->button() == Qt::MiddleButton ||
               (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ShiftModifier))) {
        m_drag = Drag::Pan;
        m_dragRange = m_view.range();
        setCursor(Qt::ClosedHandCursor);
    } else if (e->button() == Qt::LeftButton) {
        m_drag = Drag::Select;
        m_dragTime = m_scene->timeAt(m_view.range(), static_cast<float>(pos.x()));
    }
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* e) {
    if (!m_scene) return;
    const QPointF pos = e->position();
    if (m_drag == Drag::Pan) {
        const double ns = static_cast<double>(m_dragRange.span()) / m_scene->eventWidth();
        const auto dt = static_cast<int64_t>(std::llround((pos.x() - m_dragStart.x()) * ns));
        m_view.setRange(m_dragRange.start - dt, m_dragRange.end - dt, false);
        const float dy = static_cast<float>(pos.y() - m_dragStart.y());
        if (std::fabs(dy) >= 1) {
            m_scene->setScroll(m_scene->scroll() - dy);
            m_dragStart.setY(pos.y());
            rebuild();
        }
    } else if (m_drag == Drag::Select && std::fabs(pos.x() - m_dragStart.x()) >= 3) {
        const float x =
            std::clamp(static_cast<float>(pos.x()), m_scene->eventX(), static_cast<float>(width()));
        m_view.setSelection(m_dragTime, m_scene->timeAt(m_view.range(), x));
    }
    updateHover(pos);
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* e) {
    if (!m_scene) return;
    const bool click = m_drag == Drag::Select && std::fabs(e->position().x() - m_dragStart.x()) < 3;
    if (m_drag == Drag::Pan) unsetCursor();
    m_drag = Drag::None;
    if (click) {
        m_view.clearSelection();
        if (m_hover) emit eventClicked(hitText(*m_hover));
    }
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* e) {
    // Double-click on an event zooms to it (with history).
    if (!m_scene || e->button() != Qt::LeftButton) return;
    if (m_hover && m_hover->track && m_hover->end > m_hover->start) {
        const int64_t pad = (m_hover->end - m_hover->start) / 10;
        m_view.setRange(m_hover->start - pad, m_hover->end + pad, true);
    }
}

void TimelineWidget::keyPressEvent(QKeyEvent* e) {
    if (!m_scene) return QOpenGLWidget::keyPressEvent(e);
    const TimeRange r = m_view.range();
    const bool mouseIn = m_mouse.x() >= m_scene->eventX() && rect().contains(m_mouse.toPoint());
    const int64_t anchor =
        mouseIn ? m_scene->timeAt(r, static_cast<float>(m_mouse.x())) : r.start + r.span() / 2;
    const auto pan = static_cast<int64_t>(kPanFraction * static_cast<double>(r.span()));
    const auto mods = e->modifiers() & ~Qt::KeypadModifier;
    switch (e->key()) {
        case Qt::Key_Z:
            if (mods == Qt::ShiftModifier) m_view.zoomToSelection();
            break;
        case Qt::Key_Backspace:
            m_view.back();
            break;
        case Qt::Key_Home:
        case Qt::Key_F:
            m_view.showAll();
            break;
        case Qt::Key_M:
            if (mods == Qt::ControlModifier) m_view.addMarker(anchor);
            break;
        case Qt::Key_W:
            m_view.zoomAround(anchor, kKeyZoom);
            break;
        case Qt::Key_S:
            m_view.zoomAround(anchor, 1 / kKeyZoom);
            break;
        case Qt::Key_A:
            m_view.pan(-pan);
            break;
        case Qt::Key_D:
            m_view.pan(pan);
            break;
        case Qt::Key_Escape:
            m_view.clearSelection();
            break;
        default:
            QOpenGLWidget::keyPressEvent(e);
            return;
    }
    e->accept();
}

void TimelineWidget::leaveEvent(QEvent*) {
    m_mouse = {-1, -1};
    m_hover.reset();
    update();
}

void TimelineWidget::contextMenuEvent(QContextMenuEvent* e) {
    if (!m_scene) return;
    const LayoutRow* lr = m_scene->rowAt(static_cast<float>(e->pos().y()));
    QMenu menu(this);
    if (lr) {
        Row* row = lr->row;
        menu.addAction(row->pinned() ? "Unpin row" : "Pin row to top", this, [this, row] {
            m_scene->setPinned(row, !row->pinned());
            rebuild();
        });
        if (row->isGroup())
            menu.addAction(row->expanded() ? "Collapse" : "Expand", this, [this, row] {
                m_scene->setExpanded(row, !row->expanded());
                rebuild();
            });
    }
    if (m_view.hasSelection())
        menu.addAction("Zoom to selection\tShift+Z", this, [this] { m_view.zoomToSelection(); });
    menu.addAction("Show everything\tHome", this, [this] { m_view.showAll(); });
    menu.addAction("Clear markers", this, [this] { m_view.clearMarkers(); });
    menu.exec(e->globalPos());
}

}  // namespace sl::viewer
