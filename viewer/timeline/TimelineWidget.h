#pragma once
// The timeline on screen: a thin QOpenGLWidget over TimelineScene. It turns mouse and keys
// into ViewState changes (nsys's bindings), rebuilds the frame's draw list only when the
// range, layout or data change, and otherwise just redraws (hover, selection, markers).
// Boxes go through GlBoxRenderer (instanced); labels are painted with QPainter. GUI thread.
#include <QElapsedTimer>
#include <QOpenGLFramebufferObject>
#include <QOpenGLWidget>
#include <functional>
#include <memory>
#include <optional>

#include "viewer/timeline/DrawList.h"
#include "viewer/timeline/GlBoxRenderer.h"
#include "viewer/timeline/TimelineScene.h"
#include "viewer/timeline/ViewState.h"

namespace sl::viewer {

class TimelineWidget : public QOpenGLWidget {
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget* parent = nullptr);
    ~TimelineWidget() override;

    // Requests a GL 3.3 core context for every window; call before QApplication exists.
    static void installSurfaceFormat();
    // Empty when OpenGL 3.3 works here, otherwise why not. Needs a QGuiApplication.
    static QString checkOpenGL();

    void setScene(std::unique_ptr<TimelineScene> scene);
    // The scene's rows were added or removed: lay out and rebuild.
    void rowsChanged();
    TimelineScene* scene() const { return m_scene.get(); }
    ViewState& view() { return m_view; }
    QString glError() const { return m_glError; }

    // Frames rendered and rebuilds done so far, and the cost of the last ones (ms).
    uint64_t frameCount() const { return m_frames; }
    uint64_t rebuildCount() const { return m_rebuilds; }
    double lastBuildMs() const { return m_lastBuildMs; }  // draw list + GL + labels into the cache
    double lastPaintMs() const { return m_lastPaintMs; }
    size_t drawListBytes() const { return m_frame.memoryBytes() + m_overlay.memoryBytes(); }
    const DrawList& frame() const { return m_frame; }
    // Renders now and returns the picture.
    QImage renderImage();
    // The time under widget x (for tests and the status bar).
    int64_t timeAtX(float x) const;

    // Hooks for the analysis panels (viewer/analysis): the frame hook runs after each rebuild
    // of the frame (it may add or recolor boxes: find dims events there), the overlay hook
    // after each overlay build (correlation highlights, lines, edge arrows). refreshFrame()
    // rebuilds when a hook's input changes.
    using DrawHook = std::function<void(const TimeRange&, DrawList&)>;
    void setFrameHook(DrawHook hook) {
        m_frameHook = std::move(hook);
        rebuild();
    }
    void setOverlayHook(DrawHook hook) {
        m_overlayHook = std::move(hook);
        update();
    }
    void refreshFrame() { rebuild(); }

    // Rows picked with Ctrl+click on their headers (groups stand for all their rows).
    const std::vector<const Row*>& selectedRows() const { return m_selectedRows; }
    void clearSelectedRows();
    // Indices into the report's tracks of the selected rows' events (empty: no row selected).
    std::vector<uint32_t> selectedTracks() const;

signals:
    void hovered(const QString& text);       // tooltip text, empty when nothing is under the mouse
    void eventClicked(const QString& text);  // the details of a clicked event
    void frameRendered();
    // Ctrl+click on row headers selected or deselected rows (selectedRows()).
    void rowSelectionChanged();

protected:
    void initializeGL() override;
    void paintGL() override;
    void resizeGL(int w, int h) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void leaveEvent(QEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;

private:
    void rebuild() {
        m_needRebuild = true;
        update();
    }
    void renderFrameToCache(float w, float h);
    void paintLabels(QPainter& p, const DrawList& list, bool cached);
    void updateHover(QPointF pos);
    QString hitText(const HitInfo& hit) const;
    void headerClick(QPointF pos, bool toggleSelection = false);

    ViewState m_view;
    std::unique_ptr<TimelineScene> m_scene;
    GlBoxRenderer m_renderer;
    // The frame's events, headers and labels, rendered once per rebuild; paints blit it.
    std::unique_ptr<QOpenGLFramebufferObject> m_cache;
    GlBoxRenderer::Batch m_frameBatch, m_overlayBatch;
    DrawList m_frame, m_overlay;
    struct CachedLabel {
        QRectF rect;
        QColor color;
        QString text;
    };
    std::vector<CachedLabel> m_labelCache;  // the frame's labels, elided once per rebuild
    bool m_needRebuild = true;
    bool m_glReady = false;
    QString m_glError;
    std::optional<HitInfo> m_hover;
    QPointF m_mouse{-1, -1};
    enum class Drag { None, Select, Pan } m_drag = Drag::None;
    QPointF m_dragStart;
    int64_t m_dragTime = 0;
    TimeRange m_dragRange;
    DrawHook m_frameHook, m_overlayHook;
    std::vector<const Row*> m_selectedRows;  // rows picked with Ctrl+click, for selection statistics
    uint64_t m_frames = 0, m_rebuilds = 0;
    double m_lastBuildMs = 0, m_lastPaintMs = 0;
};

}  // namespace sl::viewer
