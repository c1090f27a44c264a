#pragma once
// The native GL window the timeline draws into, embedded in TimelineWidget with
// QWidget::createWindowContainer. It owns the one GL context and draws straight into the
// window's back buffer and swaps: no FBO composed by Qt into the top-level window, which on
// software GL (llvmpipe) cost more than drawing the frame itself (docs/viewer.md). It draws
// nothing itself (the paint callback does) and forwards all input to the widget, whose event
// handlers and event filters stay the only ones. GUI thread.
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QWindow>
#include <functional>
#include <memory>

namespace sl::viewer {

class TimelineSurface : public QWindow {
    Q_OBJECT
public:
    // Input events go to `target` (sent, so its event filters see them).
    explicit TimelineSurface(QWidget* target);
    ~TimelineSurface() override;

    // Called with the context current: once after it is created, then for every frame with
    // the window's framebuffer bound (its size in device pixels).
    std::function<QString()> onInitialize;  // returns an error, empty when the GL setup works
    std::function<void(QSize pixels)> onPaint;

    // Schedules one frame (coalesced, after pending input: a low-priority posted event).
    void scheduleRender();
    // Makes the context current on the window when it is exposed, else on an offscreen
    // surface (screenshots of a hidden timeline). False when there is no usable context.
    bool makeCurrent();
    void doneCurrent();
    QOpenGLContext* context() const { return m_context.get(); }
    // Why the context or the GL setup failed (empty when it works or was not tried yet).
    QString error() const { return m_error; }

signals:
    void frameSwapped();
    // No frame can be drawn here (no context, or it cannot be made current): error() says why.
    void failed();

protected:
    bool event(QEvent* e) override;
    void exposeEvent(QExposeEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    bool ensureContext();
    void render();
    void forward(QEvent* e);

    QWidget* m_target;
    std::unique_ptr<QOpenGLContext> m_context;
    std::unique_ptr<QOffscreenSurface> m_offscreen;
    QString m_error;
    bool m_initialized = false;
    bool m_renderPending = false;
};

}  // namespace sl::viewer
