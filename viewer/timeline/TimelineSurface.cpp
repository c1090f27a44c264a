#include "viewer/timeline/TimelineSurface.h"

#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QExposeEvent>
#include <QMouseEvent>
#include <QOpenGLFramebufferObject>
#include <QWidget>

namespace sl::viewer {

TimelineSurface::TimelineSurface(QWidget* target) : m_target(target) {
    setSurfaceType(QWindow::OpenGLSurface);
    // Keyboard focus stays with the widget (its window gets the keys and the shortcuts);
    // clicks here give the widget focus instead (forward()).
    setFlag(Qt::WindowDoesNotAcceptFocus, true);
}

TimelineSurface::~TimelineSurface() = default;

bool TimelineSurface::ensureContext() {
    if (m_context) return m_context->isValid();
    m_context = std::make_unique<QOpenGLContext>();
    m_context->setFormat(requestedFormat());
    if (!m_context->create()) {
        m_error = "cannot create an OpenGL context";
        return false;
    }
    return true;
}

bool TimelineSurface::makeCurrent() {
    if (!ensureContext()) return false;
    bool current = false;
    if (isExposed()) {
        current = m_context->makeCurrent(this);
    } else {
        if (!m_offscreen) {
            m_offscreen = std::make_unique<QOffscreenSurface>();
            m_offscreen->setFormat(m_context->format());
            m_offscreen->create();
        }
        current = m_context->makeCurrent(m_offscreen.get());
    }
    if (!current) {
        m_error = "cannot make the OpenGL context current";
        return false;
    }
    if (!m_initialized) {
        m_initialized = true;
        if (onInitialize) m_error = onInitialize();
    }
    return true;
}

void TimelineSurface::doneCurrent() {
    if (m_context) m_context->doneCurrent();
}

void TimelineSurface::scheduleRender() {
    if (m_renderPending) return;
    m_renderPending = true;
    // Low priority: input already queued is handled first, so a burst of wheel notches
    // becomes one frame.
    QCoreApplication::postEvent(this, new QEvent(QEvent::UpdateRequest), Qt::LowEventPriority);
}

void TimelineSurface::render() {
    m_renderPending = false;
    if (!isExposed()) return;
    if (!makeCurrent()) {
        emit failed();
        return;
    }
    // Through Qt, so that QPainter on GL (labels) knows the window's framebuffer is bound.
    QOpenGLFramebufferObject::bindDefault();
    if (onPaint) onPaint(size() * devicePixelRatio());
    m_context->swapBuffers(this);
    emit frameSwapped();
}

void TimelineSurface::exposeEvent(QExposeEvent*) {
    if (isExposed()) render();
}

void TimelineSurface::resizeEvent(QResizeEvent*) {
    scheduleRender();  // the frame is rebuilt for the new size
}

void TimelineSurface::forward(QEvent* e) {
    if (e->type() == QEvent::MouseButtonPress && m_target->isEnabled() &&
        (m_target->focusPolicy() & Qt::ClickFocus))
        m_target->setFocus(Qt::MouseFocusReason);
    std::unique_ptr<QEvent> copy(e->clone());
    QCoreApplication::sendEvent(m_target, copy.get());
    e->setAccepted(copy->isAccepted());
#if QT_VERSION < QT_VERSION_CHECK(6, 8, 0)
    // Before Qt 6.8 only widget windows turn a right press into a context menu event.
    if (e->type() == QEvent::MouseButtonPress) {
        auto* me = static_cast<QMouseEvent*>(e);
        if (me->button() == Qt::RightButton) {
            QContextMenuEvent menu(QContextMenuEvent::Mouse, me->position().toPoint(),
                                   me->globalPosition().toPoint(), me->modifiers());
            QCoreApplication::sendEvent(m_target, &menu);
        }
    }
#endif
}

bool TimelineSurface::event(QEvent* e) {
    switch (e->type()) {
        case QEvent::UpdateRequest:
            render();
            return true;
        case QEvent::MouseButtonPress:
        case QEvent::MouseButtonRelease:
        case QEvent::MouseButtonDblClick:
        case QEvent::MouseMove:
        case QEvent::Wheel:
        case QEvent::KeyPress:
        case QEvent::KeyRelease:
        case QEvent::Enter:
        case QEvent::Leave:
#if QT_VERSION >= QT_VERSION_CHECK(6, 8, 0)
        case QEvent::ContextMenu:
#endif
            forward(e);
            return true;
        default:
            return QWindow::event(e);
    }
}

}  // namespace sl::viewer
