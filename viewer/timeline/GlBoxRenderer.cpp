#include "viewer/timeline/GlBoxRenderer.h"

#include <cstddef>
#include <cstring>

namespace sl::viewer {

namespace {

// Boxes: one unit quad, instanced with (x, y, w, h) and an ARGB color read as 4 normalized
// bytes (B, G, R, A in memory on little-endian machines, hence the swizzle).
const char* kBoxVertex = R"(#version 330 core
layout(location = 0) in vec2 corner;
layout(location = 1) in vec4 rect;
layout(location = 2) in vec4 bgra;
uniform vec2 viewport;
out vec4 color;
void main() {
    vec2 p = rect.xy + corner * rect.zw;
    gl_Position = vec4(p.x / viewport.x * 2.0 - 1.0, 1.0 - p.y / viewport.y * 2.0, 0.0, 1.0);
    color = bgra.bgra;
}
)";
const char* kLineVertex = R"(#version 330 core
layout(location = 0) in vec2 pos;
layout(location = 2) in vec4 bgra;
uniform vec2 viewport;
out vec4 color;
void main() {
    gl_Position = vec4(pos.x / viewport.x * 2.0 - 1.0, 1.0 - pos.y / viewport.y * 2.0, 0.0, 1.0);
    color = bgra.bgra;
}
)";
const char* kFragment = R"(#version 330 core
in vec4 color;
out vec4 fragColor;
void main() { fragColor = color; }
)";

}  // namespace

QString GlBoxRenderer::initialize() {
    initializeOpenGLFunctions();
    if (!m_boxProgram.addShaderFromSourceCode(QOpenGLShader::Vertex, kBoxVertex) ||
        !m_boxProgram.addShaderFromSourceCode(QOpenGLShader::Fragment, kFragment) ||
        !m_boxProgram.link())
        return "cannot build the timeline's box shader: " + m_boxProgram.log();
    if (!m_lineProgram.addShaderFromSourceCode(QOpenGLShader::Vertex, kLineVertex) ||
        !m_lineProgram.addShaderFromSourceCode(QOpenGLShader::Fragment, kFragment) ||
        !m_lineProgram.link())
        return "cannot build the timeline's line shader: " + m_lineProgram.log();
    if (!m_vao.create()) return "cannot create a vertex array object";
    const float quad[] = {0, 0, 1, 0, 0, 1, 1, 1};
    m_quad.create();
    m_quad.bind();
    m_quad.allocate(quad, sizeof quad);
    m_quad.release();
    return {};
}

void GlBoxRenderer::upload(const DrawList& list, Batch& b) {
    if (!b.boxes.isCreated()) b.boxes.create();
    if (!b.lines.isCreated()) b.lines.create();
    static_assert(sizeof(DrawBox) == 5 * sizeof(float), "DrawBox is uploaded as is");
    b.boxes.bind();
    b.boxes.setUsagePattern(QOpenGLBuffer::DynamicDraw);
    auto& sorted = m_boxScratch;
    sorted.clear();
    sorted.reserve(list.boxes.size());
    for (const DrawBox& x : list.boxes)
        if ((x.argb >> 24) == 0xFF) sorted.push_back(x);
    b.opaqueCount = static_cast<int>(sorted.size());
    for (const DrawBox& x : list.boxes)
        if ((x.argb >> 24) != 0xFF) sorted.push_back(x);
    b.boxes.allocate(sorted.data(), static_cast<int>(sorted.size() * sizeof(DrawBox)));
    b.boxCount = static_cast<int>(sorted.size());
    b.boxes.release();
    // Lines become segments of (x, y, color) vertices.
    auto& v = m_lineScratch;
    v.clear();
    auto vertex = [&v](float x, float y, uint32_t c) {
        v.push_back(x);
        v.push_back(y);
        float f;
        std::memcpy(&f, &c, sizeof f);
        v.push_back(f);
    };
    for (const DrawLine& l : list.lines) {
        vertex(l.x0, l.y0, l.argb);
        vertex(l.x1, l.y1, l.argb);
    }
    for (const DrawPolyline& p : list.polylines)
        for (size_t i = 2; i + 1 < p.xy.size(); i += 2) {
            vertex(p.xy[i - 2], p.xy[i - 1], p.argb);
            vertex(p.xy[i], p.xy[i + 1], p.argb);
        }
    b.lines.bind();
    b.lines.setUsagePattern(QOpenGLBuffer::DynamicDraw);
    b.lines.allocate(v.data(), static_cast<int>(v.size() * sizeof(float)));
    b.lineVertices = static_cast<int>(v.size() / 3);
    b.lines.release();
}

void GlBoxRenderer::draw(const Batch& b, float width, float height) {
    QOpenGLVertexArrayObject::Binder bind(&m_vao);
    if (b.boxCount > 0) {
        m_boxProgram.bind();
        m_boxProgram.setUniformValue("viewport", width, height);
        m_quad.bind();
        glEnableVertexAttribArray(0);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
        glVertexAttribDivisor(0, 0);
        const_cast<QOpenGLBuffer&>(b.boxes).bind();
        glEnableVertexAttribArray(1);
        glEnableVertexAttribArray(2);
        glVertexAttribDivisor(1, 1);
        glVertexAttribDivisor(2, 1);
        // Two passes over one buffer: the attribute offsets select the first instance.
        auto pass = [this](int first, int count) {
            if (count <= 0) return;
            const size_t base = static_cast<size_t>(first) * sizeof(DrawBox);
            glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(DrawBox),
                                  reinterpret_cast<const void*>(base));
            glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(DrawBox),
                                  reinterpret_cast<const void*>(base + offsetof(DrawBox, argb)));
            glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, count);
        };
        glDisable(GL_BLEND);
        pass(0, b.opaqueCount);
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        pass(b.opaqueCount, b.boxCount - b.opaqueCount);
        glVertexAttribDivisor(1, 0);
        glVertexAttribDivisor(2, 0);
        glDisableVertexAttribArray(1);
        m_boxProgram.release();
    }
    if (b.lineVertices > 0) {
        m_lineProgram.bind();
        m_lineProgram.setUniformValue("viewport", width, height);
        const_cast<QOpenGLBuffer&>(b.lines).bind();
        glEnableVertexAttribArray(0);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 3 * sizeof(float), nullptr);
        glEnableVertexAttribArray(2);
        glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, 3 * sizeof(float),
                              reinterpret_cast<const void*>(2 * sizeof(float)));
        glDrawArrays(GL_LINES, 0, b.lineVertices);
        m_lineProgram.release();
    }
    glDisableVertexAttribArray(0);
    glDisableVertexAttribArray(2);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void GlBoxRenderer::destroy(Batch& b) {
    b.boxes.destroy();
    b.lines.destroy();
}

}  // namespace sl::viewer
