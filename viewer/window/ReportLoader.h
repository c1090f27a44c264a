#pragma once
// Loads a report off the GUI thread: reads (or imports) the file and builds the timeline's
// row tree as a JobTracker job, reports progress, and can be cancelled. After finished(), a
// second job projects NVTX ranges onto the GPUs (seconds at 10M events, so it does not delay
// the first frame) and signals projectionReady(). Results arrive on the GUI thread through the
// signals. Destroying the loader cancels its jobs without waiting for them (they hold only
// shared state), so closing a tab never blocks the GUI. GUI thread.
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "model/core/Report.h"
#include "viewer/timeline/Row.h"

namespace sl::viewer {

class ProjectedNvtx;

class ReportLoader : public QObject {
    Q_OBJECT
public:
    explicit ReportLoader(QObject* parent = nullptr) : QObject(parent) {}

    void start(const QString& path);
    // Stops the read: failed("Opening was cancelled") follows at once, and the job's result,
    // should it still finish, is dropped.
    void cancel();
    bool running() const;
    // After finished(): the loaded report and its row tree (moved out).
    ReportPtr report() const { return m_report; }
    std::unique_ptr<Row> takeRows() { return std::move(m_rows); }
    // After projectionReady(): NVTX projected onto the GPUs, computed after the first frame.
    std::shared_ptr<ProjectedNvtx> projection() const { return m_projection; }
    double loadSeconds() const { return m_seconds; }

signals:
    void progress(int percent);
    void finished();
    void projectionReady();
    void failed(const QString& message);

private:
    struct Loaded;
    void loaded(Loaded result);
    void startProjection();

    ReportPtr m_report;
    std::unique_ptr<Row> m_rows;
    std::shared_ptr<ProjectedNvtx> m_projection;
    double m_seconds = 0;
};

}  // namespace sl::viewer
