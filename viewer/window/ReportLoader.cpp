#include "viewer/window/ReportLoader.h"

#include <QPointer>
#include <chrono>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "viewer/timeline/ProjectedNvtxRow.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/window/ReportOpener.h"

namespace sl::viewer {

ReportLoader::~ReportLoader() {
    m_cancel = true;
    if (m_thread.joinable()) m_thread.join();
}

void ReportLoader::start(const QString& path) {
    if (m_thread.joinable()) {
        m_cancel = true;
        m_thread.join();
    }
    m_cancel = false;
    m_done = false;
    m_lastPercent = -1;
    QPointer<ReportLoader> self(this);
    m_thread = std::thread([this, self, p = path.toStdString()] {
        const auto t0 = std::chrono::steady_clock::now();
        auto onProgress = [this, self](double f) {
            const int pc = static_cast<int>(f * 100);
            if (pc != m_lastPercent.exchange(pc))
                QMetaObject::invokeMethod(this, [self, pc] { if (self) emit self->progress(pc); }, Qt::QueuedConnection);
            return !m_cancel.load();
        };
        auto r = openReportFile(p, onProgress);
        std::shared_ptr<Report> report;
        std::unique_ptr<Row> rows;
        QString error;
        if (m_cancel) error = "Opening was cancelled";
        else if (!r) error = QString::fromStdString(r.error());
        else {
            report = std::move(r.value());
            rows = buildRowTree(*report);
#if defined(__GLIBC__)
            // Reading and the NVTX projection free large temporaries: give them back to the
            // system instead of keeping them in the worker's malloc arena.
            malloc_trim(0);
#endif
        }
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        auto* shared = new std::pair<ReportPtr, std::unique_ptr<Row>>(report, std::move(rows));
        QMetaObject::invokeMethod(
            this,
            [self, shared, error, secs] {
                std::unique_ptr<std::pair<ReportPtr, std::unique_ptr<Row>>> owned(shared);
                if (!self) return;
                self->m_seconds = secs;
                if (!error.isEmpty()) {
                    emit self->failed(error);
                    return;
                }
                self->m_report = owned->first;
                self->m_rows = std::move(owned->second);
                emit self->finished();
            },
            Qt::QueuedConnection);
        if (report && !m_cancel) {
            auto projected = std::make_shared<ProjectedNvtx>(*report);
#if defined(__GLIBC__)
            malloc_trim(0);
#endif
            QMetaObject::invokeMethod(
                this,
                [self, projected] {
                    if (!self) return;
                    self->m_projection = projected;
                    emit self->projectionReady();
                },
                Qt::QueuedConnection);
        }
        m_done = true;
    });
}

}  // namespace sl::viewer
