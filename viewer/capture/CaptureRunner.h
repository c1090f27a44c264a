#pragma once
// Runs one `sightline profile` process for the Capture tab: builds its argv from the settings,
// forwards its stdout/stderr (the traced program's output and the profiler's messages) line by
// line, reads its progress from `--progress-fd` (JSON lines on a pipe of its own), and on exit
// finds the report. The program's stdout is a pseudo-terminal
// (line-buffered output, a live log) when the system has one, else a pipe. Stop sends SIGINT, as
// Ctrl+C in a terminal does, so the profiler ends the program and still writes a complete report.
// Never blocks: all work is driven by QProcess signals on the GUI thread. One capture at a time.
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QProcess>
#include <QTemporaryFile>
#include <QTimer>
#include <memory>
#include <optional>

#include "viewer/capture/CaptureProgress.h"
#include "viewer/capture/CaptureSettings.h"
#include "viewer/capture/LineCutter.h"
#include "viewer/capture/ProcessTreeWatcher.h"
#include "viewer/capture/ProgressPipe.h"
#include "viewer/capture/PseudoTerminal.h"
#include "viewer/capture/RemoteCli.h"

namespace sl::viewer {

class CaptureRunner : public QObject {
    Q_OBJECT
public:
    explicit CaptureRunner(QObject* parent = nullptr);
    ~CaptureRunner() override;

    // The `sightline` binary to run (SightlineLocator::findForApplication() by default).
    void setProfilerPath(const QString& path) { m_profiler = path; }
    QString profilerPath() const { return m_profiler; }

    // Starts the capture; false (and captureFailed) when it cannot start. `acceptNewHostKey`:
    // --remote-accept-new-host-key (the user trusted the key HostKeyPrompt showed).
    bool start(const CaptureSettings& settings, bool acceptNewHostKey = false);
    const CaptureSettings& settings() const { return m_settings; }
    // After captureFailed: why ssh could not connect to the remote target, as the CLI classified it.
    const std::optional<SshFailureInfo>& sshFailure() const { return m_sshFailure; }
    // First call: SIGINT (keep the report). A second call while still running: SIGKILL.
    void stop();
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    bool isStopping() const { return m_stopRequests > 0; }
    qint64 elapsedMs() const { return m_elapsed.isValid() ? m_elapsed.elapsed() : 0; }
    const CaptureProgress& progress() const { return m_progress; }
    // Processes of the traced tree seen so far (from /proc; the profiler reports counts only at the
    // end).
    int processesSeen() const { return m_tree.seen(); }
    // The report path the settings will produce when it is known before the start (no %p).
    static QString expectedReportPath(const CaptureSettings& settings);

signals:
    void started();
    void outputLine(const QString& line, bool fromStderr);
    void progressChanged();
    // Once per report written (a repeated capture range writes several), in order.
    void captureFinished(const QString& reportPath);
    void captureFailed(const QString& message);

private:
    void readChannel(QProcess::ProcessChannel channel);
    void consume(const QByteArray& data, bool fromStderr);
    void emitLine(QByteArray raw, bool fromStderr);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    QStringList locateReports() const;
    QString outputDir() const;
    // The folder a report name without a folder lands in (the working directory or --output-dir).
    static QDir reportBase(const CaptureSettings& settings);
    // *.rep files (and the expected report) with their modification times, before the start, so
    // that a report that was already there is never taken for the new one.
    QHash<QString, QDateTime> snapshotReports() const;
    void pollTree();
    QString failureMessage(int exitCode, QProcess::ExitStatus status) const;

    QProcess m_process;
    PseudoTerminal m_pty;
    ProgressPipe m_progressPipe;
    QString m_profiler;
    CaptureSettings m_settings;
    CaptureProgress m_progress;
    QElapsedTimer m_elapsed;
    QTimer m_treeTimer;
    ProcessTreeWatcher m_tree;
    QDateTime m_startTime;
    QHash<QString, QDateTime> m_before;
    // Per channel (stdout, stderr): the program's own output, where a line without end (binary
    // output, `yes | tr -d '\n'`) comes out in 64 KiB pieces instead of growing without bound.
    LineCutter m_lines[2] = {{64 << 10, LineCutter::OverLong::Split}, {64 << 10, LineCutter::OverLong::Split}};
    std::unique_ptr<QTemporaryFile> m_sshFailureFile;  // $SIGHTLINE_SSH_FAILURE_FILE of the run
    std::optional<SshFailureInfo> m_sshFailure;
    QStringList m_stderrTail;  // the last lines of stderr, for error messages
    int m_stopRequests = 0;
    bool m_reported = false;  // captureFinished/Failed emitted for this run
};

}  // namespace sl::viewer
