#include "viewer/window/ReportLoader.h"

#include <QCoreApplication>
#include <QPointer>
#include <chrono>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "viewer/timeline/ProjectedNvtxRow.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/window/ReportOpener.h"

namespace sl::viewer {

namespace {

// Posts `fn` to the GUI thread; dropped when the application is gone.
template <class Fn>
void post(Fn&& fn) {
    if (QCoreApplication* app = QCoreApplication::instance())
        QMetaObject::invokeMethod(app, std::forward<Fn>(fn), Qt::QueuedConnection);
}

}  // namespace

ReportLoader::~ReportLoader() {
    // The worker owns everything it touches (shared state, the report) and reaches this object
    // only through a QPointer on the GUI thread, so it may outlive us: closing a tab never waits
    // for a read to notice the cancel or for the NVTX projection to finish.
    m_state->cancel = true;
    if (m_thread.joinable()) m_thread.detach();
}

void ReportLoader::start(const QString& path) {
    m_state->cancel = true;
    if (m_thread.joinable()) m_thread.detach();
    m_state = std::make_shared<State>();
    QPointer<ReportLoader> self(this);
    m_thread = std::thread([st = m_state, self, p = path.toStdString()] {
        const auto t0 = std::chrono::steady_clock::now();
        auto onProgress = [&st, &self](double f) {
            const int pc = static_cast<int>(f * 100);
            if (pc != st->lastPercent.exchange(pc))
                post([self, pc] {
                    if (self) emit self->progress(pc);
                });
            return !st->cancel.load();
        };
        auto r = openReportFile(p, onProgress);
        std::shared_ptr<Report> report;
        auto rows = std::make_shared<std::unique_ptr<Row>>();
        QString error;
        if (st->cancel)
            error = "Opening was cancelled";
        else if (!r)
            error = QString::fromStdString(r.error());
        else {
            report = std::move(r.value());
            *rows = buildRowTree(*report);
#if defined(__GLIBC__)
            // Reading frees large temporaries: give them back to the system instead of keeping
            // them in the worker's malloc arena.
            malloc_trim(0);
#endif
        }
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        post([self, report, rows, error, secs] {
            if (!self) return;
            self->m_seconds = secs;
            if (!error.isEmpty()) {
                emit self->failed(error);
                return;
            }
            self->m_report = report;
            self->m_rows = std::move(*rows);
            emit self->finished();
        });
        if (report && !st->cancel) {
            auto projected = std::make_shared<ProjectedNvtx>(*report);
#if defined(__GLIBC__)
            malloc_trim(0);
#endif
            post([self, projected] {
                if (!self) return;
                self->m_projection = projected;
                emit self->projectionReady();
            });
        }
        st->done = true;
    });
}

}  // namespace sl::viewer
