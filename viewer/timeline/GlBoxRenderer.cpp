#include "viewer/timeline/GlBoxRenderer.h"

#include <algorithm>
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
// Strips: the same quad stretched over the strip's columns; each fragment reads its column's
// color from the column texture, where the strip's columns lie in one texture row from texel
// (tx, ty) on (no division per fragment: llvmpipe has no vector integer division). An empty
// column (alpha 0) draws nothing.
const char* kStripVertex = R"(#version 330 core
layout(location = 0) in vec2 corner;
layout(location = 1) in vec4 rect;
layout(location = 3) in uvec2 texel;
uniform vec2 viewport;
out float column;
flat out ivec2 firstTexel;
flat out int lastColumn;
void main() {
    vec2 p = rect.xy + corner * rect.zw;
    gl_Position = vec4(p.x / viewport.x * 2.0 - 1.0, 1.0 - p.y / viewport.y * 2.0, 0.0, 1.0);
    column = corner.x * rect.z;
    firstTexel = ivec2(texel);
    lastColumn = int(rect.z) - 1;
}
)";
const char* kStripFragment = R"(#version 330 core
in float column;
flat in ivec2 firstTexel;
flat in int lastColumn;
uniform sampler2D columns;
out vec4 fragColor;
void main() {
    vec4 c = texelFetch(columns, firstTexel + ivec2(clamp(int(column), 0, lastColumn), 0), 0);
    if (c.a == 0.0) discard;
    fragColor = c;
}
)";
// Texels per row of the column texture: within every GL 3.3 implementation's limit (>= 1024
// is guaranteed; every desktop driver and llvmpipe give >= 16384). A strip crossing the end of
// a row is split into several instances.
constexpr uint32_t kColumnRow = 4096;

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
    if (!m_stripProgram.addShaderFromSourceCode(QOpenGLShader::Vertex, kStripVertex) ||
        !m_stripProgram.addShaderFromSourceCode(QOpenGLShader::Fragment, kStripFragment) ||
        !m_stripProgram.link())
        return "cannot build the timeline's strip shader: " + m_stripProgram.log();
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &m_maxTextureSize);
    if (m_maxTextureSize < static_cast<int>(kColumnRow))
        return QString("the OpenGL driver's textures are too small (%1 texels, %2 needed)")
            .arg(m_maxTextureSize)
            .arg(kColumnRow);
    if (!m_vao.create()) return "cannot create a vertex array object";
    const float quad[] = {0, 0, 1, 0, 0, 1, 1, 1};
    m_quad.create();
    m_quad.bind();
    m_quad.allocate(quad, sizeof quad);
    m_quad.release();
    return {};
}

namespace {

// The list's layers as [begin, end) ranges of its boxes and strips.
struct LayerRange {
    size_t boxBegin, boxEnd, stripBegin, stripEnd;
};

std::vector<LayerRange> layerRanges(const DrawList& list) {
    std::vector<LayerRange> out;
    DrawLayerStart from{};
    for (size_t i = 0; i <= list.layers.size(); ++i) {
        const DrawLayerStart to = i < list.layers.size()
                                      ? list.layers[i]
                                      : DrawLayerStart{static_cast<uint32_t>(list.boxes.size()),
                                                       static_cast<uint32_t>(list.strips.size())};
        out.push_back({from.firstBox, to.firstBox, from.firstStrip, to.firstStrip});
        from = to;
    }
    return out;
}

}  // namespace

void GlBoxRenderer::upload(const DrawList& list, Batch& b) {
    if (!b.lines.isCreated()) b.lines.create();
    b.layers.assign(list.layers.size() + 1, {});
    uploadBoxes(list, b);
    uploadStrips(list, b);
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

void GlBoxRenderer::uploadBoxes(const DrawList& list, Batch& b) {
    if (!b.boxes.isCreated()) b.boxes.create();
    static_assert(sizeof(DrawBox) == 5 * sizeof(float), "DrawBox is uploaded as is");
    // Per layer: its opaque boxes, then its translucent ones, each in list order.
    auto& sorted = m_boxScratch;
    sorted.clear();
    sorted.reserve(list.boxes.size());
    const std::vector<LayerRange> ranges = layerRanges(list);
    for (size_t k = 0; k < ranges.size(); ++k) {
        Batch::Layer& layer = b.layers[k];
        layer.firstBox = static_cast<int>(sorted.size());
        for (size_t i = ranges[k].boxBegin; i < ranges[k].boxEnd; ++i)
            if ((list.boxes[i].argb >> 24) == 0xFF) sorted.push_back(list.boxes[i]);
        layer.opaqueBoxes = static_cast<int>(sorted.size()) - layer.firstBox;
        for (size_t i = ranges[k].boxBegin; i < ranges[k].boxEnd; ++i)
            if ((list.boxes[i].argb >> 24) != 0xFF) sorted.push_back(list.boxes[i]);
        layer.boxCount = static_cast<int>(sorted.size()) - layer.firstBox;
    }
    b.boxes.bind();
    b.boxes.setUsagePattern(QOpenGLBuffer::DynamicDraw);
    b.boxes.allocate(sorted.data(), static_cast<int>(sorted.size() * sizeof(DrawBox)));
    b.boxCount = static_cast<int>(sorted.size());
    b.boxes.release();
}

void GlBoxRenderer::uploadStrips(const DrawList& list, Batch& b) {
    // Strips are packed into texture rows, per layer its opaque strips first (drawn without
    // blending), then its translucent ones, each in list order. A strip never wraps a row: one
    // that does not fit in the rest of a row is split into two instances, so rows fill up
    // completely.
    auto& inst = m_stripScratch;
    auto& cols = m_columnScratch;
    inst.clear();
    cols.clear();
    const auto maxRows = static_cast<uint32_t>(m_maxTextureSize);
    uint32_t row = 0, used = 0;
    bool full = false;
    const std::vector<LayerRange> ranges = layerRanges(list);
    for (size_t k = 0; k < ranges.size(); ++k) {
        Batch::Layer& layer = b.layers[k];
        layer.firstStrip = static_cast<int>(inst.size());
        for (int pass = 0; pass < 2 && !full; ++pass) {
            for (size_t si = ranges[k].stripBegin; si < ranges[k].stripEnd && !full; ++si) {
                const DrawStrip& s = list.strips[si];
                if (s.opaque != (pass == 0)) continue;
                for (uint32_t done = 0; done < s.count;) {
                    if (used == kColumnRow) {
                        // A frame's strips cover its visible lanes, far below the texture's
                        // capacity; a pathological frame's surplus is left out, never wrapped.
                        if (row + 1 == maxRows) {
                            full = true;
                            break;
                        }
                        ++row;
                        used = 0;
                    }
                    const uint32_t n = std::min(s.count - done, kColumnRow - used);
                    inst.push_back({s.x + static_cast<float>(done), s.y, static_cast<float>(n), s.h,
                                    used, row});
                    const auto from = list.stripPixels.begin() + s.first + done;
                    cols.insert(cols.end(), from, from + n);
                    used += n;
                    done += n;
                }
            }
            if (pass == 0) layer.opaqueStrips = static_cast<int>(inst.size()) - layer.firstStrip;
        }
        layer.stripCount = static_cast<int>(inst.size()) - layer.firstStrip;
        layer.opaqueStrips = std::min(layer.opaqueStrips, layer.stripCount);
    }
    b.stripCount = static_cast<int>(inst.size());
    if (inst.empty()) return;
    const uint32_t rows = row + 1;
    cols.resize(static_cast<size_t>(rows) * kColumnRow, 0);
    if (!b.strips.isCreated()) b.strips.create();
    b.strips.bind();
    b.strips.setUsagePattern(QOpenGLBuffer::DynamicDraw);
    b.strips.allocate(inst.data(), static_cast<int>(inst.size() * sizeof(StripInstance)));
    b.strips.release();
    if (b.columnTexture == 0) {
        glGenTextures(1, &b.columnTexture);
        glBindTexture(GL_TEXTURE_2D, b.columnTexture);
        // texelFetch ignores filtering, but a texture expecting mipmaps would be incomplete.
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    } else {
        glBindTexture(GL_TEXTURE_2D, b.columnTexture);
    }
    // QPainter may have left its own unpacking state behind.
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
    // BGRA with 8_8_8_8_REV reads each 0xAARRGGBB word as it is, on any byte order.
    if (static_cast<int>(rows) > b.columnRows) {
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, kColumnRow, static_cast<int>(rows), 0, GL_BGRA,
                     GL_UNSIGNED_INT_8_8_8_8_REV, cols.data());
        b.columnRows = static_cast<int>(rows);
    } else {
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, kColumnRow, static_cast<int>(rows), GL_BGRA,
                        GL_UNSIGNED_INT_8_8_8_8_REV, cols.data());
    }
    glBindTexture(GL_TEXTURE_2D, 0);
}

void GlBoxRenderer::drawStrips(const Batch& b, int first, int count) {
    if (count <= 0) return;
    m_stripProgram.bind();
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, b.columnTexture);
    m_stripProgram.setUniformValue("columns", 0);
    const_cast<QOpenGLBuffer&>(b.strips).bind();
    const size_t base = static_cast<size_t>(first) * sizeof(StripInstance);
    glEnableVertexAttribArray(1);
    glEnableVertexAttribArray(3);
    glVertexAttribDivisor(1, 1);
    glVertexAttribDivisor(3, 1);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(StripInstance),
                          reinterpret_cast<const void*>(base));
    glVertexAttribIPointer(3, 2, GL_UNSIGNED_INT, sizeof(StripInstance),
                           reinterpret_cast<const void*>(base + offsetof(StripInstance, tx)));
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, count);
    glVertexAttribDivisor(3, 0);
    glDisableVertexAttribArray(3);
    glBindTexture(GL_TEXTURE_2D, 0);
}

void GlBoxRenderer::drawBoxes(const Batch& b, int first, int count) {
    // One buffer for all boxes; the attribute offsets select the first instance.
    if (count <= 0) return;
    m_boxProgram.bind();
    const_cast<QOpenGLBuffer&>(b.boxes).bind();
    glEnableVertexAttribArray(1);
    glEnableVertexAttribArray(2);
    glVertexAttribDivisor(1, 1);
    glVertexAttribDivisor(2, 1);
    const size_t base = static_cast<size_t>(first) * sizeof(DrawBox);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(DrawBox),
                          reinterpret_cast<const void*>(base));
    glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(DrawBox),
                          reinterpret_cast<const void*>(base + offsetof(DrawBox, argb)));
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, count);
    glVertexAttribDivisor(2, 0);
    glDisableVertexAttribArray(2);
}

void GlBoxRenderer::draw(const Batch& b, float width, float height) {
    QOpenGLVertexArrayObject::Binder bind(&m_vao);
    if (b.boxCount > 0 || b.stripCount > 0) {
        m_quad.bind();
        glEnableVertexAttribArray(0);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
        glVertexAttribDivisor(0, 0);
        m_stripProgram.bind();
        m_stripProgram.setUniformValue("viewport", width, height);
        m_boxProgram.bind();
        m_boxProgram.setUniformValue("viewport", width, height);
        for (const Batch::Layer& l : b.layers) {
            glDisable(GL_BLEND);
            drawBoxes(b, l.firstBox, l.opaqueBoxes);
            drawStrips(b, l.firstStrip, l.opaqueStrips);
            glEnable(GL_BLEND);
            // The destination keeps its alpha (1, from the clear): a translucent alpha left in
            // the framebuffer makes an image read back from it (screenshots) un-premultiply too
            // light.
            glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
            drawStrips(b, l.firstStrip + l.opaqueStrips, l.stripCount - l.opaqueStrips);
            drawBoxes(b, l.firstBox + l.opaqueBoxes, l.boxCount - l.opaqueBoxes);
        }
        glVertexAttribDivisor(1, 0);
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

size_t GlBoxRenderer::scratchBytes() const {
    return m_lineScratch.capacity() * sizeof(float) + m_boxScratch.capacity() * sizeof(DrawBox) +
           m_columnScratch.capacity() * sizeof(uint32_t) +
           m_stripScratch.capacity() * sizeof(StripInstance);
}

void GlBoxRenderer::destroy(Batch& b) {
    b.boxes.destroy();
    b.strips.destroy();
    if (b.columnTexture != 0) glDeleteTextures(1, &b.columnTexture);
    b.columnTexture = 0;
    b.columnRows = 0;
    b.lines.destroy();
}

}  // namespace sl::viewer
