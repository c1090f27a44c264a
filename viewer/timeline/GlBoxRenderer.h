#pragma once
// The only GL code of the timeline: uploads a DrawList's boxes as instances of one quad, its
// strips as instanced quads reading their column colors from one texture, and its lines and
// polylines as line segments, and draws them (GL 3.3 core; Mesa llvmpipe under Xvfb is
// enough). Owned by TimelineWidget; every call needs its context current.
#include <QOpenGLBuffer>
#include <QOpenGLExtraFunctions>
#include <QOpenGLShaderProgram>
#include <QOpenGLVertexArrayObject>
#include <QString>
#include <vector>

#include "viewer/timeline/DrawList.h"

namespace sl::viewer {

class GlBoxRenderer : protected QOpenGLExtraFunctions {
public:
    // A GPU copy of one draw list's geometry.
    struct Batch {
        QOpenGLBuffer boxes{QOpenGLBuffer::VertexBuffer};
        QOpenGLBuffer lines{QOpenGLBuffer::VertexBuffer};
        QOpenGLBuffer strips{QOpenGLBuffer::VertexBuffer};
        unsigned columnTexture = 0;  // the strips' columns
        int columnRows = 0;
        // One per layer of the list, in drawing order: its boxes are [firstBox, firstBox +
        // boxCount) of the buffer, the opaque ones first; likewise its strips.
        struct Layer {
            int firstBox = 0, boxCount = 0, opaqueBoxes = 0;
            int firstStrip = 0, stripCount = 0, opaqueStrips = 0;
        };
        std::vector<Layer> layers;
        int boxCount = 0;
        int stripCount = 0;
        int lineVertices = 0;
    };

    // Each layer of the list (DrawList::layers) is drawn over the previous ones. Inside a
    // layer, boxes are drawn in two passes: the opaque ones first without blending (llvmpipe's
    // fill rate is the frame's cost, and blending doubles it), then the translucent ones (folds
    // by busy fraction, graphs, selection) blended on top, each pass in list order. Rows keep
    // translucent boxes inside their own rectangle, so the reordering changes no pixel.
    // Strips join the passes: opaque strips after the opaque boxes, translucent strips before
    // the translucent boxes (find-bar and sampling covers are translucent boxes over them).
    // Where a fold's end column and a neighbouring box share a pixel, the fold now wins, and
    // in overlay rows translucent strips blend before other tracks' translucent boxes: a
    // pixel's difference at most, where the list order was arbitrary anyway.
    // Compiles shaders; returns an error message, empty on success.
    QString initialize();
    void upload(const DrawList& list, Batch& batch);
    void draw(const Batch& batch, float width, float height);
    void destroy(Batch& batch);
    size_t scratchBytes() const;  // CPU-side staging kept between uploads

private:
    void uploadBoxes(const DrawList& list, Batch& batch);
    void uploadStrips(const DrawList& list, Batch& batch);
    void drawBoxes(const Batch& batch, int first, int count);
    void drawStrips(const Batch& batch, int first, int count);

    QOpenGLShaderProgram m_boxProgram, m_lineProgram, m_stripProgram;
    int m_maxTextureSize = 0;
    std::vector<uint32_t> m_columnScratch;
    struct StripInstance {
        float x, y, w, h;
        uint32_t tx, ty;  // the strip's first column in the column texture
    };
    std::vector<StripInstance> m_stripScratch;
    QOpenGLVertexArrayObject m_vao;
    QOpenGLBuffer m_quad{QOpenGLBuffer::VertexBuffer};
    std::vector<float> m_lineScratch;
    std::vector<DrawBox> m_boxScratch;
};

}  // namespace sl::viewer
