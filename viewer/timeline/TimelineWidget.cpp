#include "viewer/timeline/TimelineWidget.h"
#include "viewer/timeline/TimelineTheme.h"

#include <algorithm>

#include "viewer/timeline/TimelineSurface.h"
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
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>

#include "model/analysis/EventQueryDetails.h"

namespace sl::viewer {

namespace {
constexpr double kWheelZoom = 0.8;    // per wheel notch (120 units)
constexpr double kKeyZoom = 0.8;      // W / S
constexpr double kPanFraction = 0.1;  // of the visible span, per notch or key press
constexpr size_t kTooltipValueChars = 100;

QColor argbColor(uint32_t c) {
    return QColor::fromRgba(c);
}

// Qt platforms that have no OpenGL at all (a QWindow with a GL surface cannot exist there).
bool platformWithoutGl() {
    const QString name = QGuiApplication::platformName();
    return name == "offscreen" || name == "minimal";
}
}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(400, 200);
    // The surface covers the widget: the widget itself never paints under it.
    setAttribute(Qt::WA_OpaquePaintEvent);
    if (platformWithoutGl()) {
        m_glError = "the Qt platform '" + QGuiApplication::platformName() + "' has no OpenGL";
    } else {
        m_surface = new TimelineSurface(this);
        m_surface->onInitialize = [this] { return initializeGL(); };
        m_surface->onPaint = [this](QSize pixels) { paintGL(pixels); };
        connect(m_surface, &TimelineSurface::frameSwapped, this, &TimelineWidget::frameSwapped);
        // Without a context the widget paints the reason itself (paintEvent).
        connect(m_surface, &TimelineSurface::failed, this, [this] {
            m_container->hide();
            update();
        });
        m_container = QWidget::createWindowContainer(m_surface, this);
        m_container->setFocusPolicy(Qt::NoFocus);  // keys go to this widget (see TimelineSurface)
        auto* layout = new QVBoxLayout(this);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(m_container);
    }
    connect(&m_view, &ViewState::rangeChanged, this, [this] { rebuild(); });
    connect(&m_view, &ViewState::selectionChanged, this, [this] { redraw(); });
    connect(&m_view, &ViewState::markersChanged, this, [this] { redraw(); });
}

TimelineWidget::~TimelineWidget() {
    // The GL objects go while their context is current (the surface and its context are
    // destroyed after this, with the children).
    if (m_gl && m_surface && m_surface->makeCurrent()) {
        m_gl->renderer.destroy(m_gl->frame);
        m_gl->renderer.destroy(m_gl->overlay);
        m_gl.reset();
        m_surface->doneCurrent();
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
    if (platformWithoutGl())
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

QString TimelineWidget::glError() const {
    if (!m_glError.isEmpty() || !m_surface) return m_glError;
    return m_surface->error();
}

QWindow* TimelineWidget::surface() const {
    return m_surface;
}

void TimelineWidget::setScene(std::unique_ptr<TimelineScene> scene) {
    m_scene = std::move(scene);
    m_hover.reset();
    if (m_scene) {
        const Report& r = m_scene->report();
        m_view.reset(r.tMin(), viewEnd(r), r.timeOrigin());
    }
    rebuild();
}

void TimelineWidget::rowsChanged() {
    if (m_scene) m_scene->invalidateLayout();
    rebuild();
}

void TimelineWidget::redraw() {
    if (m_surface && m_container->isVisible())
        m_surface->scheduleRender();
    else
        update();
}

void TimelineWidget::paintEvent(QPaintEvent*) {
    if (m_surface && m_container->isVisible()) {
        m_surface->scheduleRender();
        return;
    }
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    p.drawText(rect(), Qt::AlignCenter, "The timeline cannot draw: " + glError());
}

int64_t TimelineWidget::timeAtX(float x) const {
    if (!m_scene) return 0;
    return m_scene->timeAt(m_view.range(), x);
}

int64_t TimelineWidget::anchorTime() const {
    if (!m_scene) return 0;
    const TimeRange r = m_view.range();
    const bool mouseIn = m_mouse.x() >= m_scene->eventX() && rect().contains(m_mouse.toPoint());
    return mouseIn ? m_scene->timeAt(r, static_cast<float>(m_mouse.x())) : r.start + r.span() / 2;
}

void TimelineWidget::changeEvent(QEvent* e) {
    if (e->type() == QEvent::FontChange) {  // the cached label layouts are for the old font
        m_elided.clear();
        m_laidOut.clear();
        rebuild();
    }
    // The theme changes with the application's palette (ThemeSetting): the frame's colors too.
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::ApplicationPaletteChange) rebuild();
    QWidget::changeEvent(e);
}

QString TimelineWidget::initializeGL() {
    const auto v = m_surface->context()->format().version();
    if (v < qMakePair(3, 3))
        return QString("OpenGL 3.3 is needed, this display offers %1.%2").arg(v.first).arg(v.second);
    auto gl = std::make_unique<Gl>();
    QString error = gl->renderer.initialize();
    if (error.isEmpty()) m_gl = std::move(gl);
    return error;
}

void TimelineWidget::paintGL(QSize pixels) {
    QElapsedTimer timer;
    timer.start();
    auto* f = QOpenGLContext::currentContext()->extraFunctions();
    f->glViewport(0, 0, pixels.width(), pixels.height());
    const uint32_t bg = TimelineTheme::current().background;
    f->glClearColor(((bg >> 16) & 0xFF) / 255.0f, ((bg >> 8) & 0xFF) / 255.0f, (bg & 0xFF) / 255.0f, 1);
    f->glClear(GL_COLOR_BUFFER_BIT);
    const qreal dpr = devicePixelRatio();
    QOpenGLPaintDevice device(pixels);
    device.setDevicePixelRatio(dpr);
    if (!m_gl || !m_scene) {
        QPainter p(&device);
        p.drawText(QRectF(QPointF(), QSizeF(pixels) / dpr), Qt::AlignCenter,
                   m_gl ? "No report" : "The timeline cannot draw: " + glError());
        return;
    }
    const float w = static_cast<float>(pixels.width() / dpr);
    const float h = static_cast<float>(pixels.height() / dpr);
    m_scene->setSize(w, h);
    if (pixels != m_lastPixels) {
        m_lastPixels = pixels;
        m_needRebuild = true;
    }
    if (m_needRebuild) rebuildFrame();
    // Every frame draws the uploaded boxes and the elided labels straight into the window;
    // a redraw (hover, selection, markers) only rebuilds the small overlay.
    m_gl->renderer.draw(m_gl->frame, w, h);
    if (!m_labelCache.empty()) {
        QPainter p(&device);
        p.setFont(font());
        paintLabels(p, m_frame, true);
    }
    m_scene->buildOverlay(m_view.range(), m_view, m_hover, static_cast<float>(m_mouse.x()),
                          m_overlay);
    if (m_overlayHook) m_overlayHook(m_view.range(), m_overlay);
    // Rows picked for the selection statistics: a tint across the whole row.
    for (const LayoutRow& lr : m_scene->layout())
        if (std::find(m_selectedRows.begin(), m_selectedRows.end(), lr.row) != m_selectedRows.end())
            m_overlay.boxes.push_back({0, lr.y, w, lr.h, 0x30FFB300});
    m_gl->renderer.upload(m_overlay, m_gl->overlay);
    // QPainter leaves its own GL state behind: set what the boxes need.
    f->glViewport(0, 0, pixels.width(), pixels.height());
    f->glEnable(GL_BLEND);
    f->glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    m_gl->renderer.draw(m_gl->overlay, w, h);
    if (!m_overlay.labels.empty()) {
        QPainter p(&device);
        paintLabels(p, m_overlay, false);
    }
    ++m_frames;
    m_lastPaintMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    emit frameRendered();
}

size_t TimelineWidget::drawListBytes() const {
    return m_frame.memoryBytes() + m_overlay.memoryBytes() +
           (m_scene ? m_scene->scratchBytes() : 0) + (m_gl ? m_gl->renderer.scratchBytes() : 0);
}

void TimelineWidget::rebuildFrame() {
    QElapsedTimer bt;
    bt.start();
    m_scene->build(m_view.range(), m_frame);
    if (m_frameHook) m_frameHook(m_view.range(), m_frame);
    m_frame.endStrip();  // a hook's last strip, if it left it open
    m_gl->renderer.upload(m_frame, m_gl->frame);
    QFontMetricsF fm(font());
    if (m_elided.size() > kMaxCachedTexts) m_elided.clear();
    if (m_laidOut.size() > kMaxCachedTexts) m_laidOut.clear();
    m_labelCache.clear();
    for (const DrawLabel& l : m_frame.labels) {
        QString text = QString::fromUtf8(l.text.data(), static_cast<qsizetype>(l.text.size()));
        // Widths in whole pixels: elision cannot see a fraction of a pixel anyway.
        const int width = static_cast<int>(l.w);
        text += QChar(0x1F) + QString::number(width);
        auto elided = m_elided.find(text);
        if (elided == m_elided.end()) {
            const QString shown =
                fm.elidedText(text.left(text.lastIndexOf(QChar(0x1F))), Qt::ElideRight, width);
            elided = m_elided.insert(text, shown);
        }
        const QString& shown = elided.value();
        if (shown.isEmpty() || shown == QStringLiteral("\u2026")) continue;
        auto laidOut = m_laidOut.find(shown);
        if (laidOut == m_laidOut.end()) {
            QStaticText st(shown);
            st.setTextFormat(Qt::PlainText);
            st.prepare(QTransform(), font());
            laidOut = m_laidOut.insert(shown, st);
        }
        const double y = l.y + (l.h - laidOut->size().height()) / 2;
        m_labelCache.push_back({QPointF(l.x, y), argbColor(l.argb), laidOut.value()});
    }
    m_needRebuild = false;
    ++m_rebuilds;
    m_lastBuildMs = static_cast<double>(bt.nsecsElapsed()) / 1e6;
}

void TimelineWidget::paintLabels(QPainter& p, const DrawList& list, bool cached) {
    if (cached) {
        for (const CachedLabel& l : m_labelCache) {
            p.setPen(l.color);
            p.drawStaticText(l.topLeft, l.text);
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
    if (!m_surface || !m_surface->makeCurrent() || !m_gl) return {};
    const qreal dpr = devicePixelRatio();
    const QSize pixels = size() * dpr;
    QImage img;
    {
        QOpenGLFramebufferObject fbo(pixels);
        fbo.bind();
        paintGL(pixels);
        img = fbo.toImage().convertToFormat(QImage::Format_RGB32);
        fbo.release();
    }
    img.setDevicePixelRatio(dpr);
    return img;
}

void TimelineWidget::setDragCursor(bool dragging) {
    // The surface is a native window: it shows its own cursor, not the widget's.
    if (dragging) {
        setCursor(Qt::ClosedHandCursor);
        if (m_surface) m_surface->setCursor(Qt::ClosedHandCursor);
    } else {
        unsetCursor();
        if (m_surface) m_surface->unsetCursor();
    }
}

QString TimelineWidget::hitText(const HitInfo& hit) const {
    // An event: the tooltip form of the one details formatter (the details panel shows the same
    // values, and more); its name heads the text. A graph's point: what its row gives.
    std::vector<analysis::EventField> fields;
    if (hit.track && m_scene)
        fields = analysis::eventDetails(m_scene->report(), *hit.track, hit.index,
                                        analysis::DetailForm::Tooltip);
    else
        fields.push_back({"Name", hit.name});
    for (const auto& [k, v] : hit.fields) fields.push_back({k, v});
    QString s;
    for (const analysis::EventField& f : fields) {
        // C++ template names run to kilobytes: a tooltip line is cut, the panel has it whole.
        std::string v = f.value;
        if (v.size() > kTooltipValueChars) v = v.substr(0, kTooltipValueChars - 3) + "...";
        const QString value = QString::fromStdString(v);
        if (f.field == "Name" && s.isEmpty())
            s = value;
        else if (f.field.empty())  // the next frame of a call stack
            s += "\n  " + value;
        else
            s += "\n" + QString::fromStdString(f.field) + ": " + value;
    }
    return s;
}

void TimelineWidget::clickAt(QPointF pos) {
    const auto hit = m_scene->hitTest(m_view.range(), static_cast<float>(pos.x()), static_cast<float>(pos.y()));
    const Report& r = m_scene->report();
    // Only the report's own tracks can be selected (an index into them); a fold is not one event.
    if (hit && hit->track && hit->count == 1 && !r.tracks.empty() && hit->track >= r.tracks.data() &&
        hit->track < r.tracks.data() + r.tracks.size())
        emit eventClicked(static_cast<quint32>(hit->track - r.tracks.data()), static_cast<quint32>(hit->index));
    else
        emit emptyClicked();
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
    redraw();  // not a rebuild
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
    redraw();
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
        redraw();
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
        setDragCursor(true);
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
    if (m_drag == Drag::Pan) setDragCursor(false);
    m_drag = Drag::None;
    if (click) {
        m_view.clearSelection();
        clickAt(e->position());
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
    if (!m_scene) return QWidget::keyPressEvent(e);
    const TimeRange r = m_view.range();
    const int64_t anchor = anchorTime();
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
            QWidget::keyPressEvent(e);
            return;
    }
    e->accept();
}

void TimelineWidget::leaveEvent(QEvent*) {
    m_mouse = {-1, -1};
    m_hover.reset();
    redraw();
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
        if (row->isGroup()) {
            menu.addAction(row->expanded() ? "Collapse" : "Expand", this, [this, row] {
                m_scene->setExpanded(row, !row->expanded());
                rebuild();
            });
            // The row and the groups beside it (all processes, all ranks): a collapsed group
            // keeps a line of its activity, so a long tree reads folded.
            if (row->parent())
                for (bool expand : {false, true})
                    menu.addAction(expand ? "Expand all at this level" : "Collapse all at this level",
                                   this, [this, row, expand] {
                                       for (const auto& sibling : row->parent()->children())
                                           if (sibling->isGroup())
                                               m_scene->setExpanded(sibling.get(), expand);
                                       rebuild();
                                   });
        }
    }
    if (m_view.hasSelection())
        menu.addAction("Zoom to selection\tShift+Z", this, [this] { m_view.zoomToSelection(); });
    menu.addAction("Show everything\tHome", this, [this] { m_view.showAll(); });
    menu.addAction("Clear markers", this, [this] { m_view.clearMarkers(); });
    menu.exec(e->globalPos());
}

}  // namespace sl::viewer
