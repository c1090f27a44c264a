#include "viewer/window/ReportLoader.h"

#include <QCoreApplication>
#include <QPointer>
#include <chrono>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "viewer/jobs/JobTracker.h"
#include "viewer/timeline/ProjectedNvtxRow.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/window/ReportOpener.h"

namespace sl::viewer {
namespace {

const QString kLoad = QStringLiteral("load");
const QString kProjection = QStringLiteral("projection");

// Reading frees large temporaries: give them back to the system instead of keeping them in
// the worker's malloc arena.
void trimHeap() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

}  // namespace

struct ReportLoader::Loaded {
    std::shared_ptr<Report> report;
    std::unique_ptr<Row> rows;
    QString error;
    double seconds = 0;
};

void ReportLoader::start(const QString& path) {
    // Progress is posted to the application object and reaches this loader through a QPointer
    // checked on the GUI thread: the job never touches the loader, which may be gone.
    QPointer<ReportLoader> self(this);
    JobTracker::instance().start(
        this, kLoad,
        [self, p = path.toStdString()](const std::atomic<bool>& cancel) {
            const auto t0 = std::chrono::steady_clock::now();
            int lastPercent = -1;
            auto onProgress = [&](double f) {
                const int pc = static_cast<int>(f * 100);
                if (pc != lastPercent && QCoreApplication::instance()) {
                    lastPercent = pc;
                    QMetaObject::invokeMethod(
                        QCoreApplication::instance(),
                        [self, pc] {
                            if (self) emit self->progress(pc);
                        },
                        Qt::QueuedConnection);
                }
                return !cancel.load();
            };
            Loaded out;
            auto r = openReportFile(p, onProgress);
            if (!r) {
                out.error = QString::fromStdString(r.error());
            } else if (!cancel) {
                out.report = std::move(r.value());
                out.rows = buildRowTree(*out.report);
                trimHeap();
            }
            out.seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            return out;
        },
        [this](Loaded result) { loaded(std::move(result)); });
}

void ReportLoader::cancel() {
    if (!JobTracker::instance().busy(this, kLoad)) return;
    JobTracker::instance().cancel(this, kLoad);
    emit failed(QStringLiteral("Opening was cancelled"));
}

bool ReportLoader::running() const {
    auto* self = const_cast<ReportLoader*>(this);  // the tracker keys jobs by object
    return JobTracker::instance().busy(self, kLoad) ||
           JobTracker::instance().busy(self, kProjection);
}

void ReportLoader::loaded(Loaded result) {
    m_seconds = result.seconds;
    if (!result.error.isEmpty()) {
        emit failed(result.error);
        return;
    }
    m_report = std::move(result.report);
    m_rows = std::move(result.rows);
    emit finished();
    startProjection();
}

void ReportLoader::startProjection() {
    JobTracker::instance().start(
        this, kProjection,
        [report = m_report](const std::atomic<bool>& cancel) {
            auto projected = std::make_shared<ProjectedNvtx>(*report, &cancel);
            trimHeap();
            return projected;
        },
        [this](std::shared_ptr<ProjectedNvtx> projected) {
            m_projection = std::move(projected);
            emit projectionReady();
        });
}

}  // namespace sl::viewer
