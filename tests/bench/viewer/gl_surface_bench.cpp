// bench_gl_surface MODE [--boxes N] [--frames N] [--labels N] [--size WxH] [--swap N]
//                       [--depth N] [--blit]
// The GL surface experiment behind the timeline's design (docs/viewer.md): the same frame
// (clear + N instanced quads + optional QPainter labels + swap) drawn through
//   widget:    a QOpenGLWidget inside a top-level QWidget (an FBO, composed by Qt into the
//              window through a second context, then swapped), as TimelineWidget did;
//   container: a QOpenGLWindow embedded with QWidget::createWindowContainer (one context,
//              drawing straight into the window surface, no compose pass);
//   window:    a top-level QOpenGLWindow (the floor: no widgets at all).
// Prints the frame-to-frame time (update() until frameSwapped) p50/p95, the CPU per frame and
// the RSS after the run. --blit renders the quads into an FBO and blits it (the frame cache).
// Needs an X display with OpenGL 3.3 (run it under xvfb-run).
#include <time.h>
#include <QApplication>
#include <QElapsedTimer>
#include <QOpenGLBuffer>
#include <QOpenGLExtraFunctions>
#include <QOpenGLFramebufferObject>
#include <QOpenGLPaintDevice>
#include <QOpenGLShaderProgram>
#include <QOpenGLVertexArrayObject>
#include <QOpenGLWidget>
#include <QOpenGLWindow>
#include <QPainter>
#include <QVBoxLayout>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>
#include "tests/bench/ProcessCpu.h"

namespace {

struct Options {
    int boxes = 20000, frames = 200, labels = 0, swap = 0, depth = -1;
    QSize size{1600, 900};
    bool blit = false;
};

size_t rssKiB(const char* field = "VmRSS:") {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind(field, 0) == 0) return std::stoull(line.substr(std::strlen(field)));
    return 0;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1)))];
}

const char* kVertex = R"(#version 330 core
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
const char* kFragment = R"(#version 330 core
in vec4 color;
out vec4 fragColor;
void main() { fragColor = color; }
)";

struct Box {
    float x, y, w, h;
    uint32_t argb;
};

// The frame both surfaces draw: rows of boxes like a timeline at a mid zoom.
class Scene : protected QOpenGLExtraFunctions {
public:
    explicit Scene(const Options& o) : m_o(o) {}
    void init() {
        initializeOpenGLFunctions();
        m_prog.addShaderFromSourceCode(QOpenGLShader::Vertex, kVertex);
        m_prog.addShaderFromSourceCode(QOpenGLShader::Fragment, kFragment);
        m_prog.link();
        m_vao.create();
        const float quad[] = {0, 0, 1, 0, 0, 1, 1, 1};
        m_quad.create();
        m_quad.bind();
        m_quad.allocate(quad, sizeof quad);
        std::mt19937 rng(7);
        const float rows = 40, rowH = static_cast<float>(m_o.size.height()) / rows;
        std::vector<Box> boxes;
        for (int i = 0; i < m_o.boxes; ++i) {
            const float y = static_cast<float>(i % 40) * rowH;
            const float x = static_cast<float>(rng() % static_cast<unsigned>(m_o.size.width()));
            boxes.push_back({x, y + 1, 1.0f + static_cast<float>(rng() % 12), rowH - 2,
                             static_cast<uint32_t>(0xFF000000u | (rng() & 0xFFFFFFu))});
        }
        m_inst.create();
        m_inst.bind();
        m_inst.allocate(boxes.data(), static_cast<int>(boxes.size() * sizeof(Box)));
        m_ready = true;
    }
    void draw(QPaintDevice* device, float w, float h, GLuint target) {
        if (m_o.blit) {
            const QSize px(static_cast<int>(w), static_cast<int>(h));
            if (!m_fbo || m_fbo->size() != px) m_fbo = std::make_unique<QOpenGLFramebufferObject>(px);
            m_fbo->bind();
            drawContent(nullptr, w, h);
            glBindFramebuffer(GL_READ_FRAMEBUFFER, m_fbo->handle());
            glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target);
            glBlitFramebuffer(0, 0, px.width(), px.height(), 0, 0, px.width(), px.height(),
                              GL_COLOR_BUFFER_BIT, GL_NEAREST);
            glBindFramebuffer(GL_FRAMEBUFFER, target);
            return;
        }
        drawContent(device, w, h);
    }
    void drawContent(QPaintDevice* device, float w, float h) {
        glViewport(0, 0, static_cast<int>(w), static_cast<int>(h));
        glClearColor(1, 1, 1, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        QOpenGLVertexArrayObject::Binder bind(&m_vao);
        m_prog.bind();
        m_prog.setUniformValue("viewport", w, h);
        m_quad.bind();
        glEnableVertexAttribArray(0);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
        m_inst.bind();
        glEnableVertexAttribArray(1);
        glEnableVertexAttribArray(2);
        glVertexAttribDivisor(1, 1);
        glVertexAttribDivisor(2, 1);
        glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(Box), nullptr);
        glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(Box),
                              reinterpret_cast<const void*>(offsetof(Box, argb)));
        glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, m_o.boxes);
        glVertexAttribDivisor(1, 0);
        glVertexAttribDivisor(2, 0);
        glDisableVertexAttribArray(1);
        glDisableVertexAttribArray(2);
        glDisableVertexAttribArray(0);
        m_prog.release();
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        if (m_o.labels > 0) {
            std::unique_ptr<QOpenGLPaintDevice> own;
            if (!device) {
                own = std::make_unique<QOpenGLPaintDevice>(QSize(int(w), int(h)));
                device = own.get();
            }
            QElapsedTimer t;
            t.start();
            QPainter p(device);
            for (int i = 0; i < m_o.labels; ++i)
                p.drawText(QRectF(10 + (i % 10) * 150, 20 + (i / 10) * 20 % 860, 140, 18),
                           Qt::AlignLeft | Qt::AlignVCenter,
                           QString("kernel_%1 label text").arg(i));
            p.end();
            m_labelMs.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
        }
    }
    std::vector<double> m_labelMs;

private:
    const Options& m_o;
    QOpenGLShaderProgram m_prog;
    QOpenGLVertexArrayObject m_vao;
    QOpenGLBuffer m_quad{QOpenGLBuffer::VertexBuffer}, m_inst{QOpenGLBuffer::VertexBuffer};
    std::unique_ptr<QOpenGLFramebufferObject> m_fbo;
    bool m_ready = false;
};

class GlWidget : public QOpenGLWidget {
public:
    explicit GlWidget(const Options& o) : m_scene(o) {}
    Scene m_scene;

protected:
    void initializeGL() override { m_scene.init(); }
    void paintGL() override {
        m_scene.draw(this, static_cast<float>(width()), static_cast<float>(height()),
                     defaultFramebufferObject());
    }
};

class GlWindow : public QOpenGLWindow {
public:
    explicit GlWindow(const Options& o) : m_scene(o) {}
    Scene m_scene;

protected:
    void initializeGL() override { m_scene.init(); }
    void paintGL() override {
        m_scene.draw(this, static_cast<float>(width()), static_cast<float>(height()),
                     defaultFramebufferObject());
    }
};

}  // namespace

int main(int argc, char** argv) {
    Options o;
    std::string mode = argc > 1 ? argv[1] : "";
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--boxes") o.boxes = std::stoi(v);
        else if (k == "--frames") o.frames = std::stoi(v);
        else if (k == "--labels") o.labels = std::stoi(v);
        else if (k == "--swap") o.swap = std::stoi(v);
        else if (k == "--depth") o.depth = std::stoi(v);
        else if (k == "--blit") o.blit = v == "1";
        else if (k == "--size") {
            const size_t x = v.find('x');
            o.size = QSize(std::stoi(v.substr(0, x)), std::stoi(v.substr(x + 1)));
        }
    }
    if (mode != "widget" && mode != "container" && mode != "window") {
        std::fprintf(stderr, "usage: bench_gl_surface widget|container|window [options]\n");
        return 2;
    }
    QSurfaceFormat f;
    f.setVersion(3, 3);
    f.setProfile(QSurfaceFormat::CoreProfile);
    f.setSwapInterval(o.swap);
    if (o.depth >= 0) {
        f.setDepthBufferSize(o.depth);
        f.setStencilBufferSize(o.depth);
    }
    QSurfaceFormat::setDefaultFormat(f);
    QApplication app(argc, argv);
    const size_t rss0 = rssKiB();
    uint64_t swaps = 0;
    std::unique_ptr<QWidget> top;
    GlWindow* win = nullptr;
    GlWidget* wid = nullptr;
    std::unique_ptr<GlWindow> bare;
    std::function<void()> update;
    Scene* scene = nullptr;
    if (mode == "widget") {
        top = std::make_unique<QWidget>();
        auto* l = new QVBoxLayout(top.get());
        l->setContentsMargins(0, 0, 0, 0);
        wid = new GlWidget(o);
        l->addWidget(wid);
        QObject::connect(wid, &QOpenGLWidget::frameSwapped, [&] { ++swaps; });
        update = [wid] { wid->update(); };
        scene = &wid->m_scene;
    } else if (mode == "container") {
        top = std::make_unique<QWidget>();
        auto* l = new QVBoxLayout(top.get());
        l->setContentsMargins(0, 0, 0, 0);
        win = new GlWindow(o);
        l->addWidget(QWidget::createWindowContainer(win, top.get()));
        QObject::connect(win, &QOpenGLWindow::frameSwapped, [&] { ++swaps; });
        update = [win] { win->update(); };
        scene = &win->m_scene;
    } else {
        bare = std::make_unique<GlWindow>(o);
        QObject::connect(bare.get(), &QOpenGLWindow::frameSwapped, [&] { ++swaps; });
        update = [w = bare.get()] { w->update(); };
        scene = &bare->m_scene;
    }
    if (top) {
        top->resize(o.size);
        top->show();
    } else {
        bare->resize(o.size);
        bare->show();
    }
    while (swaps == 0) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    for (int i = 0; i < 10; ++i) {  // warm up (shader JIT, first allocations)
        const uint64_t before = swaps;
        update();
        while (swaps == before) QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
    }
    std::vector<double> frames;
    QElapsedTimer clock;
    const double cpu0 = sl::bench::processCpuSeconds();
    for (int i = 0; i < o.frames; ++i) {
        const uint64_t before = swaps;
        clock.start();
        update();
        while (swaps == before) QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
        frames.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
    }
    const double cpu = (sl::bench::processCpuSeconds() - cpu0) * 1e3 / o.frames;
    std::printf(
        "%-9s boxes %d labels %d swap %d depth %d blit %d: frame p50 %.2f p95 %.2f ms, cpu "
        "%.2f ms/frame, labels p50 %.2f ms, rss %.1f MiB (+%.1f over QApplication)\n",
        mode.c_str(), o.boxes, o.labels, o.swap, o.depth, o.blit ? 1 : 0,
        percentile(frames, 0.5), percentile(frames, 0.95), cpu, percentile(scene->m_labelMs, 0.5),
        static_cast<double>(rssKiB()) / 1024, static_cast<double>(rssKiB() - rss0) / 1024);
    return 0;
}
