#include "viewer/capture/CaptureRunner.h"


#include <signal.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSysInfo>

#include "model/rep/ReportName.h"
#include "viewer/capture/ProfileCommandBuilder.h"
#include "viewer/capture/SightlineLocator.h"

namespace sl::viewer {

namespace {
// *.rep, *.nsys-rep, *.qdrep: the names a report of `sightline profile` may have.
QStringList reportNameFilters() {
    QStringList filters;
    for (std::string_view ext : kReportExtensions)
        filters << "*" + QString::fromUtf8(ext.data(), qsizetype(ext.size()));
    return filters;
}
}  // namespace

namespace {
constexpr int kTailLines = 20;
constexpr int kTreePollMs = 1000;
// Destroyed mid-capture (the application quits): how long the report may take to merge and write.
constexpr int kExitWaitMs = 30000;

// Where `sightline` runs here. Remote: the working directory is a directory there
// (--remote-workdir); the report is copied next to the GUI's current directory.
QDir workingDir(const CaptureSettings& s) {
    return QDir(s.workingDirectory.isEmpty() || s.remote.isRemote() ? QDir::currentPath()
                                                                    : s.workingDirectory);
}
}  // namespace

CaptureRunner::CaptureRunner(QObject* parent)
    : QObject(parent), m_profiler(SightlineLocator::findForApplication()) {
    connect(&m_process, &QProcess::readyReadStandardOutput, this,
            [this] { readChannel(QProcess::StandardOutput); });
    connect(&m_process, &QProcess::readyReadStandardError, this,
            [this] { readChannel(QProcess::StandardError); });
    connect(&m_process, &QProcess::finished, this, &CaptureRunner::onFinished);
    connect(&m_process, &QProcess::errorOccurred, this, &CaptureRunner::onError);
    connect(&m_pty, &PseudoTerminal::dataRead, this,
            [this](const QByteArray& d) { consume(d, false); });
    connect(&m_progressPipe, &ProgressPipe::lineRead, this, [this](const QByteArray& line) {
        if (m_progress.feedLine(QString::fromUtf8(line))) emit progressChanged();
    });
    connect(&m_process, &QProcess::started, this, [this] {
        m_pty.closeSlave();
        m_progressPipe.closeWriteEnd();
        // Remote: the program's processes are there; the progress channel counts them.
        if (!m_settings.remote.isRemote()) {
            m_tree.reset(m_process.processId());
            m_treeTimer.start();
        }
        emit started();
    });
    m_treeTimer.setInterval(kTreePollMs);
    connect(&m_treeTimer, &QTimer::timeout, this, &CaptureRunner::pollTree);
}

void CaptureRunner::pollTree() {
    const int before = m_tree.seen();
    if (m_tree.poll() != before) emit progressChanged();
}

CaptureRunner::~CaptureRunner() {
    if (!isRunning()) return;
    // Closing the window mid-capture: let the profiler finish its report, but not forever.
    m_process.disconnect(this);
    if (m_stopRequests == 0) ::kill(pid_t(m_process.processId()), SIGINT);
    if (!m_process.waitForFinished(kExitWaitMs)) m_process.kill(), m_process.waitForFinished(1000);
}

bool CaptureRunner::start(const CaptureSettings& settings, bool acceptNewHostKey) {
    m_sshFailure.reset();  // a failure to start below must not show the last run's host key
    if (isRunning()) {
        emit captureFailed("A capture is already running: stop it first.");
        return false;
    }
    const QFileInfo bin(m_profiler);
    if (m_profiler.isEmpty() || !bin.isFile() || !bin.isExecutable()) {
        emit captureFailed("The sightline command-line tool was not found (looked in " +
                           SightlineLocator::candidates(QCoreApplication::applicationDirPath(),
                                                        qEnvironmentVariable("SIGHTLINE_CLI"))
                               .join(", ") +
                           "). Install it next to sightline-ui, or set SIGHTLINE_CLI to its path.");
        return false;
    }
    m_settings = settings;
    m_progress = CaptureProgress();
    m_lines[0].takeRest();
    m_lines[1].takeRest();
    m_stderrTail.clear();
    m_stopRequests = 0;
    m_reported = false;
    m_tree.reset(-1);
    m_process.setProgram(m_profiler);
    QStringList args = ProfileCommandBuilder::arguments(settings);
    // Progress as JSON lines on a pipe of its own (processes, events, warnings, the report paths),
    // never parsed out of stderr, which also carries the program's output.
    const int progressFd = m_progressPipe.open() ? m_progressPipe.writeFd() : -1;
    if (progressFd >= 0) args.insert(1, "--progress-fd=" + QString::number(progressFd));
    if (acceptNewHostKey && settings.remote.isRemote()) args.insert(1, "--remote-accept-new-host-key");
    m_process.setArguments(args);
    // Where the CLI says why ssh could not connect (JSON, app/remote/SshErrors.h), for the
    // tab's host-key question; never the prose on stderr.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    m_sshFailureFile = std::make_unique<QTemporaryFile>();
    if (settings.remote.isRemote() && m_sshFailureFile->open())
        env.insert(kSshFailureFileVariable, m_sshFailureFile->fileName());
    m_process.setProcessEnvironment(env);
    m_process.setWorkingDirectory(workingDir(settings).absolutePath());
    m_process.setStandardInputFile(
        QProcess::nullDevice());  // a program waiting on stdin would hang the capture
    const int slave = m_pty.open() ? m_pty.slaveFd() : -1;
    m_process.setChildProcessModifier([slave, progressFd] {
        if (slave >= 0) ::dup2(slave, STDOUT_FILENO);
        ProgressPipe::inheritInChild(progressFd);
    });
    m_startTime = QDateTime::currentDateTime();
    m_before = snapshotReports();
    m_elapsed.start();
    m_process.start();
    return true;  // a failure to exec arrives through errorOccurred
}

void CaptureRunner::stop() {
    if (!isRunning()) return;
    ++m_stopRequests;
    // Remote: the second SIGINT is forwarded too, and there it kills the program (the report is
    // still written and copied); killing the local sightline would only leave it running there.
    if (m_stopRequests == 1 || (m_settings.remote.isRemote() && m_stopRequests == 2))
        ::kill(pid_t(m_process.processId()), SIGINT);
    else
        m_process.kill();
}

void CaptureRunner::readChannel(QProcess::ProcessChannel channel) {
    m_process.setReadChannel(channel);
    consume(m_process.readAll(), channel == QProcess::StandardError);
}

void CaptureRunner::consume(const QByteArray& data, bool err) {
    for (QByteArray raw : m_lines[err ? 1 : 0].append(data)) emitLine(raw, err);
}

void CaptureRunner::emitLine(QByteArray raw, bool err) {
    if (raw.endsWith('\r')) raw.chop(1);
    // A bare \r redraws a progress line in place: keep its last state.
    const QString line = QString::fromLocal8Bit(raw).section('\r', -1);
    if (err) {
        m_stderrTail << line;
        if (m_stderrTail.size() > kTailLines) m_stderrTail.removeFirst();
    }
    emit outputLine(line, err);
}

QString CaptureRunner::expectedReportPath(const CaptureSettings& s) {
    QString out;
    const QString p = s.value("output");
    for (qsizetype i = 0; i < p.size(); ++i) {
        if (p[i] != '%') {
            out += p[i];
            continue;
        }
        if (i + 1 >= p.size()) return {};
        const QChar k = p[++i];
        if (k == '%')
            out += '%';
        else if (k == 'h')
            out += QSysInfo::machineHostName();
        else if (k == 'q' && i + 1 < p.size() && p[i + 1] == '{') {
            const qsizetype close = p.indexOf('}', i + 2);
            if (close < 0) return {};
            out += qEnvironmentVariable(p.mid(i + 2, close - i - 2).toLocal8Bit().constData());
            i = close;
        } else
            return {};  // %p (known only after the start) or an unknown sequence
    }
    return reportBase(s).absoluteFilePath(QString::fromStdString(reportFileName(out.toStdString())));
}

QDir CaptureRunner::reportBase(const CaptureSettings& s) {
    // --output-dir holds reports whose name has no folder of its own (the CLI's rule).
    const QString dir = s.value("output-dir");
    return dir.isEmpty() ? workingDir(s) : QDir(workingDir(s).absoluteFilePath(dir));
}

QString CaptureRunner::outputDir() const {
    return QFileInfo(reportBase(m_settings).absoluteFilePath(m_settings.value("output")))
        .absolutePath();
}

QHash<QString, QDateTime> CaptureRunner::snapshotReports() const {
    QHash<QString, QDateTime> files;
    for (const QFileInfo& fi : QDir(outputDir()).entryInfoList(reportNameFilters(), QDir::Files))
        files.insert(fi.absoluteFilePath(), fi.lastModified());
    if (const QFileInfo e(expectedReportPath(m_settings)); e.isFile())
        files.insert(e.absoluteFilePath(), e.lastModified());
    return files;
}

QStringList CaptureRunner::locateReports() const {
    // The paths the profiler printed are the truth.
    const QDir wd = workingDir(m_settings);
    QStringList found;
    for (const QString& r : m_progress.reportPaths()) {
        const QString p = wd.absoluteFilePath(r);
        if (QFileInfo(p).isFile() && !found.contains(p)) found << p;
    }
    if (!found.isEmpty() || !m_progress.lastError().isEmpty()) return found;
    // Otherwise (a profiler that prints no paths): a file that is new or changed since the start,
    // the expected name first, else the newest in the output folder.
    auto isNew = [&](const QFileInfo& fi) {
        return fi.isFile() && (!m_before.contains(fi.absoluteFilePath()) ||
                               m_before.value(fi.absoluteFilePath()) != fi.lastModified());
    };
    if (const QString e = expectedReportPath(m_settings); !e.isEmpty())
        return isNew(QFileInfo(e)) ? QStringList{QFileInfo(e).absoluteFilePath()} : QStringList();
    QFileInfo best;
    for (const QFileInfo& fi : QDir(outputDir()).entryInfoList(reportNameFilters(), QDir::Files))
        if (isNew(fi) && (best.filePath().isEmpty() || fi.lastModified() > best.lastModified()))
            best = fi;
    return best.filePath().isEmpty() ? QStringList() : QStringList{best.absoluteFilePath()};
}

QString CaptureRunner::failureMessage(int exitCode, QProcess::ExitStatus status) const {
    QString why;
    if (status == QProcess::CrashExit)
        why = m_stopRequests > 1
                  ? "The capture was killed before it could write the report."
                  : "sightline ended abnormally (signal or crash) and wrote no report.";
    else if (!m_progress.lastError().isEmpty())
        why = "The capture failed: " + m_progress.lastError();
    else
        why = "The capture ended (exit code " + QString::number(exitCode) +
              ") without writing a report.";
    if (!why.endsWith('.')) why += '.';
    if (m_progress.lastError().isEmpty() && !m_stderrTail.isEmpty() &&
        !m_stderrTail.last().trimmed().isEmpty())
        why += " Its last message: " + m_stderrTail.last().trimmed();
    QString hint = " See the log below for the profiler's messages.";
    const QString e = m_progress.lastError().toLower();
    if (e.startsWith("writing ") || e.contains("not writable") || e.contains("permission") ||
        e.contains("already exists"))
        hint =
            " Choose another output path, or tick 'Overwrite an existing report' if the file "
            "exists.";
    else if (e.startsWith("cannot run") || e.contains("not found") || e.contains("no such file"))
        hint = " Check the program path and the working directory.";
    return why + hint;
}

void CaptureRunner::onFinished(int exitCode, QProcess::ExitStatus status) {
    m_pty.drainAndClose();
    m_progressPipe.drainAndClose();
    readChannel(QProcess::StandardOutput);
    readChannel(QProcess::StandardError);
    for (int c = 0; c < 2; ++c) {
        const QByteArray rest = m_lines[c].takeRest();
        if (!rest.isEmpty()) emitLine(rest, c == 1);
    }
    m_treeTimer.stop();
    if (m_reported) return;
    m_reported = true;
    const QStringList reports = locateReports();
    if (reports.isEmpty() && m_sshFailureFile && m_sshFailureFile->isOpen()) {
        QFile written(m_sshFailureFile->fileName());
        if (written.open(QIODevice::ReadOnly)) m_sshFailure = SshFailureInfo::parse(written.readAll());
    }
    if (reports.isEmpty()) emit captureFailed(failureMessage(exitCode, status));
    for (const QString& r : reports) emit captureFinished(r);
}

void CaptureRunner::onError(QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart || m_reported) return;
    m_reported = true;
    m_treeTimer.stop();
    m_pty.drainAndClose();
    m_progressPipe.drainAndClose();
    emit captureFailed("Cannot run " + m_profiler + ": " + m_process.errorString() +
                       ". Check that sightline is installed and executable, or set SIGHTLINE_CLI.");
}

}  // namespace sl::viewer
