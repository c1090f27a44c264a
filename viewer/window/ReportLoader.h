#pragma once
// Loads a report off the GUI thread: reads (or imports) the file and builds the timeline's
// row tree on a worker thread, reports progress, and can be cancelled. After finished(), the
// same worker projects NVTX ranges onto the GPUs (seconds at 10M events, so it does not
// delay the first frame) and signals projectionReady(). Results arrive on the
// GUI thread through the signals. Destroying the loader cancels the worker and lets it finish
// on its own (it holds only shared state), so closing a tab never blocks the GUI.
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <thread>

#include "model/core/Report.h"
#include "viewer/timeline/Row.h"

namespace sl::viewer {

class ProjectedNvtx;

class ReportLoader : public QObject {
    Q_OBJECT
public:
    explicit ReportLoader(QObject* parent = nullptr) : QObject(parent) {}
    ~ReportLoader() override;

    void start(const QString& path);
    void cancel() { m_state->cancel = true; }
    bool running() const { return m_thread.joinable() && !m_state->done; }
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
    // Shared with the worker thread, which may outlive the loader (it is detached then).
    struct State {
        std::atomic<bool> cancel{false};
        std::atomic<bool> done{false};
        std::atomic<int> lastPercent{-1};
    };
    std::shared_ptr<State> m_state = std::make_shared<State>();
    std::thread m_thread;
    ReportPtr m_report;
    std::unique_ptr<Row> m_rows;
    std::shared_ptr<ProjectedNvtx> m_projection;
    double m_seconds = 0;
};

}  // namespace sl::viewer
