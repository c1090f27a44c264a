#pragma once
// The timeline on screen: a thin QWidget over TimelineScene. It turns mouse and keys into
// ViewState changes (nsys's bindings), rebuilds the frame's draw list only when the range,
// layout or data change, and otherwise just redraws (hover, selection, markers). It draws
// through a TimelineSurface (a native GL window filling the widget, one context, no compose
// pass; its input comes back to this widget's handlers). Boxes go through GlBoxRenderer
// (instanced); labels are painted with QPainter on GL. GUI thread.
#include <QElapsedTimer>
#include <QHash>
#include <QStaticText>
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>

#include "viewer/timeline/DrawList.h"
#include "viewer/timeline/GlBoxRenderer.h"
#include "viewer/timeline/TimelineScene.h"
#include "viewer/timeline/ViewState.h"

namespace sl::viewer {

class TimelineSurface;

class TimelineWidget : public QWidget {
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
    // Why the timeline cannot draw (no OpenGL 3.3 here), empty when it can.
    QString glError() const;

    // Frames rendered and rebuilds done so far, and the cost of the last ones (ms).
    uint64_t frameCount() const { return m_frames; }
    uint64_t rebuildCount() const { return m_rebuilds; }
    double lastBuildMs() const { return m_lastBuildMs; }  // draw list + upload + label eliding
    double lastPaintMs() const { return m_lastPaintMs; }
    // The draw lists and what building and uploading them keeps between frames.
    size_t drawListBytes() const;
    const DrawList& frame() const { return m_frame; }
    // Renders now (into an offscreen framebuffer, whether shown or not) and returns the
    // picture; null when there is no OpenGL.
    QImage renderImage();
    // The native GL window drawing the timeline (null without OpenGL); its input is
    // forwarded to this widget.
    QWindow* surface() const;
    // The time under widget x (for tests and the status bar).
    int64_t timeAtX(float x) const;
    // Where keys act in time (zoom, markers): under the mouse when it is over the events,
    // otherwise the middle of the view.
    int64_t anchorTime() const;

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
        redraw();
    }
    void refreshFrame() { rebuild(); }

    // Rows picked with Ctrl+click on their headers (groups stand for all their rows).
    const std::vector<const Row*>& selectedRows() const { return m_selectedRows; }
    void clearSelectedRows();
    // Indices into the report's tracks of the selected rows' events (empty: no row selected).
    std::vector<uint32_t> selectedTracks() const;

signals:
    void hovered(const QString& text);  // tooltip text, empty when nothing is under the mouse
    // A click (no drag) on event `index` of the report's track `track`: the one hit test of a
    // click; the tab's selection follows it (TimelineAnalysis).
    void eventClicked(quint32 track, quint32 index);
    // A click on the events area where no single event of the report is (empty space, a graph,
    // a row the viewer made, such as the NVTX ranges projected onto a GPU).
    void emptyClicked();
    void frameRendered();
    // The frame reached the window (after the swap).
    void frameSwapped();
    // Ctrl+click on row headers selected or deselected rows (selectedRows()).
    void rowSelectionChanged();

protected:
    // update() (from anyone) lands here: it schedules a GL frame.
    void paintEvent(QPaintEvent* e) override;
    void changeEvent(QEvent* e) override;
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
        redraw();
    }
    void redraw();
    QString initializeGL();
    // Draws the whole frame into the bound framebuffer (`pixels` in device pixels).
    void paintGL(QSize pixels);
    void rebuildFrame();
    void paintLabels(QPainter& p, const DrawList& list, bool cached);
    void setDragCursor(bool dragging);
    void updateHover(QPointF pos);
    QString hitText(const HitInfo& hit) const;
    // Emits eventClicked or emptyClicked for a click at `pos`.
    void clickAt(QPointF pos);
    void headerClick(QPointF pos, bool toggleSelection = false);

    ViewState m_view;
    std::unique_ptr<TimelineScene> m_scene;
    TimelineSurface* m_surface = nullptr;  // owned by its container, a child of this widget
    QWidget* m_container = nullptr;
    // The GL objects, created and destroyed with the surface's context current. The frame's
    // boxes stay uploaded between rebuilds: a redraw draws them again without rebuilding.
    struct Gl {
        GlBoxRenderer renderer;
        GlBoxRenderer::Batch frame, overlay;
    };
    std::unique_ptr<Gl> m_gl;
    DrawList m_frame, m_overlay;
    struct CachedLabel {
        QPointF topLeft;  // of the text, centred vertically in its label's rectangle
        QColor color;
        QStaticText text;
    };
    std::vector<CachedLabel> m_labelCache;  // the frame's labels, elided once per rebuild
    // Labels laid out once and kept across rebuilds (row headers, ruler steps and repeated
    // event names come back every frame): text shaping was a quarter of a frame's CPU.
    // Cleared when it grows past kMaxCachedTexts.
    QHash<QString, QString> m_elided;  // text + width -> elided text
    QHash<QString, QStaticText> m_laidOut;
    static constexpr qsizetype kMaxCachedTexts = 8192;
    bool m_needRebuild = true;
    QString m_glError;  // set when the platform or the context cannot draw
    QSize m_lastPixels;
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
