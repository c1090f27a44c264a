#include "viewer/capture/CaptureTab.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include "viewer/capture/CaptureForm.h"
#include "viewer/capture/CapturePresets.h"
#include "viewer/capture/CaptureRunner.h"
#include "viewer/capture/EnvironmentChecksView.h"
#include "viewer/capture/HostKeyPrompt.h"
#include "viewer/capture/ProfileCommandBuilder.h"
#include "viewer/capture/RemoteBrowserDialog.h"
#include "viewer/capture/RemoteCli.h"
#include "viewer/capture/RemoteReportsDialog.h"
#include "viewer/capture/RemoteTargetBox.h"
#include "viewer/capture/SightlineLocator.h"

namespace sl::viewer {

namespace {
constexpr int kTickMs = 250;
constexpr int kMaxLogLines = 20000;
}  // namespace

CaptureTab::CaptureTab(QWidget* parent)
    : QWidget(parent),
      m_form(new CaptureForm),
      m_runner(new CaptureRunner(this)),
      m_presets(new CapturePresets) {
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->addWidget(buildPresetBar());
    m_target = new RemoteTargetBox;
    leftLayout->addWidget(m_target);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setWidget(m_form);
    // The form scrolls down, never sideways: the pane is at least as wide as the form needs.
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(m_form->minimumSizeHint().width() +
                            scroll->verticalScrollBar()->sizeHint().width() +
                            2 * scroll->frameWidth());
    leftLayout->addWidget(scroll, 1);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(buildRunPanel());
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split);

    m_tick = new QTimer(this);
    m_tick->setInterval(kTickMs);
    connect(m_tick, &QTimer::timeout, this, &CaptureTab::refreshStatus);
    connect(m_form, &CaptureForm::changed, this, &CaptureTab::refreshCommand);
    connect(m_target, &RemoteTargetBox::changed, this, [this] {
        refreshCommand();
        // Back to this computer: its own checks again (a remote target's run on "Check").
        if (m_wasRemote && !m_target->isRemote()) probeEnvironment();
        if (!m_wasRemote && m_target->isRemote())
            m_envChecks->setProblem("Press Check (under Target) to run the machine checks on the "
                                    "remote machine.");
        if (m_wasRemote != m_target->isRemote() && m_capsKnown) applyCapabilities();
        m_wasRemote = m_target->isRemote();
        updateBrowser();
    });
    connect(m_target, &RemoteTargetBox::checkRequested, this, &CaptureTab::probeRemoteEnvironment);
    connect(m_target, &RemoteTargetBox::reportsRequested, this, [this] { openRemoteReports(); });
    connect(m_target, &RemoteTargetBox::browseProgramRequested, this, [this] { openRemoteBrowser(true); });
    connect(m_target, &RemoteTargetBox::browseDirectoryRequested, this, [this] { openRemoteBrowser(false); });
    connect(m_runner, &CaptureRunner::outputLine, this, &CaptureTab::appendLog);
    connect(m_runner, &CaptureRunner::progressChanged, this, &CaptureTab::refreshStatus);
    connect(m_runner, &CaptureRunner::captureFinished, this, &CaptureTab::onFinished);
    connect(m_runner, &CaptureRunner::captureFailed, this, &CaptureTab::onFailed);

    if (auto last = m_presets->loadLast()) {
        m_form->setSettings(*last);
        m_target->setTarget(last->remote);
        m_wasRemote = last->remote.isRemote();
    }
    refreshPresets();
    updateBrowser();
    refreshCommand();
    setRunning(false);
    probeCapabilities();
}

CaptureTab::~CaptureTab() {
    // The probes would report into half-destroyed widgets otherwise.
    cancelProbe(m_envProbe);
    cancelProbe(m_probe);
    if (m_runner->isRunning()) {
        // Closing the tab mid-capture: stop as Ctrl+C does and let the profiler finish its report
        // in the background, without freezing the window. At exit the application deletes it,
        // which waits for the report (CaptureRunner's destructor).
        m_runner->disconnect(this);
        m_runner->setParent(QCoreApplication::instance());
        connect(m_runner, &CaptureRunner::captureFinished, m_runner, &QObject::deleteLater);
        connect(m_runner, &CaptureRunner::captureFailed, m_runner, &QObject::deleteLater);
        m_runner->stop();
    }
    delete m_presets;
}

QWidget* CaptureTab::buildPresetBar() {
    auto* bar = new QWidget;
    auto* l = new QHBoxLayout(bar);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(new QLabel("Preset:"));
    m_presetBox = new QComboBox;
    m_presetBox->setObjectName("presetName");
    m_presetBox->setEditable(true);
    m_presetBox->setInsertPolicy(QComboBox::NoInsert);
    m_presetBox->lineEdit()->setPlaceholderText("name");
    l->addWidget(m_presetBox, 1);
    auto* load = new QPushButton("Load");
    load->setObjectName("loadPreset");
    auto* save = new QPushButton("Save");
    save->setObjectName("savePreset");
    auto* remove = new QPushButton("Delete");
    remove->setObjectName("deletePreset");
    l->addWidget(load);
    l->addWidget(save);
    l->addWidget(remove);
    connect(load, &QPushButton::clicked, this, [this] {
        auto s = m_presets->load(m_presetBox->currentText());
        if (!s) return showError(QString::fromStdString(s.error()));
        showError({});
        m_form->setSettings(*s);
        m_target->setTarget(s->remote);
        m_wasRemote = s->remote.isRemote();
        updateBrowser();
    });
    connect(save, &QPushButton::clicked, this, [this] {
        const QString name = m_presetBox->currentText().trimmed();
        if (name.isEmpty() || name == CapturePresets::kLast)
            return showError("Type a name for the preset, then press Save.");
        showError({});
        m_presets->save(name, settings());
        refreshPresets(name);
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        m_presets->remove(m_presetBox->currentText());
        refreshPresets();
    });
    return bar;
}

QWidget* CaptureTab::buildRunPanel() {
    auto* panel = new QWidget;
    auto* l = new QVBoxLayout(panel);
    l->addWidget(
        new QLabel("Equivalent command line (run it on a headless server for the same capture):"));
    auto* cmdRow = new QHBoxLayout;
    m_command = new QPlainTextEdit;
    m_command->setObjectName("commandLine");
    m_command->setReadOnly(true);
    m_command->setFont(QFont("monospace"));
    m_command->setFixedHeight(QFontMetrics(m_command->font()).lineSpacing() * 4 + 12);
    auto* copy = new QPushButton("Copy");
    copy->setObjectName("copyCommand");
    connect(copy, &QPushButton::clicked, this,
            [this] { QGuiApplication::clipboard()->setText(commandLine()); });
    cmdRow->addWidget(m_command, 1);
    cmdRow->addWidget(copy);
    l->addLayout(cmdRow);
    m_check = new QLabel;
    m_check->setObjectName("check");
    m_check->setWordWrap(true);
    m_check->setStyleSheet("color: #a05a00;");
    l->addWidget(m_check);
    m_envChecks = new EnvironmentChecksView;
    l->addWidget(m_envChecks);

    auto* runRow = new QHBoxLayout;
    m_start = new QPushButton("Start");
    m_start->setObjectName("start");
    m_stop = new QPushButton("Stop");
    m_stop->setObjectName("stop");
    m_stop->setToolTip(
        "Ends the capture as Ctrl+C does: the program is stopped and the report is kept.");
    connect(m_start, &QPushButton::clicked, this, &CaptureTab::start);
    connect(m_stop, &QPushButton::clicked, this, &CaptureTab::stop);
    m_status = new QLabel("Ready.");
    m_status->setObjectName("status");
    runRow->addWidget(m_start);
    runRow->addWidget(m_stop);
    runRow->addWidget(m_status, 1);
    l->addLayout(runRow);
    m_copyBar = new QProgressBar;
    m_copyBar->setObjectName("copyProgress");
    // Permille of the bytes: a report over 2 GiB would overflow the bar's int range.
    m_copyBar->setRange(0, 1000);
    m_copyBar->hide();
    l->addWidget(m_copyBar);

    m_error = new QLabel;
    m_error->setObjectName("error");
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet("color: #b00020; font-weight: bold;");
    m_error->hide();
    l->addWidget(m_error);

    m_log = new QPlainTextEdit;
    m_log->setObjectName("log");
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(kMaxLogLines);
    m_log->setFont(QFont("monospace"));
    m_log->setPlaceholderText("The program's output and the profiler's messages appear here.");
    l->addWidget(m_log, 1);
    return panel;
}

void CaptureTab::setProfilerPath(const QString& path) {
    m_runner->setProfilerPath(path);
    refreshCommand();
    probeCapabilities();
}

void CaptureTab::cancelProbe(QProcess*& probe) {
    if (!probe) return;
    probe->disconnect();
    probe->kill();
    probe->waitForFinished(1000);
    delete probe;
    probe = nullptr;
}

void CaptureTab::runProbe(QProcess*& slot, const QStringList& args,
                          const std::function<void(const QString&, bool)>& done) {
    cancelProbe(slot);
    auto* probe = new QProcess(this);
    slot = probe;
    // `slot` is a member of this tab; the connections die with the tab.
    auto finish = [this, probe, &slot, done] {
        if (slot != probe) return;
        const bool started = probe->error() != QProcess::FailedToStart;
        const QString out = started ? QString::fromUtf8(probe->readAllStandardOutput()) : QString();
        slot = nullptr;
        probe->deleteLater();
        done(out, started);
    };
    connect(probe, &QProcess::finished, this, finish);
    connect(probe, &QProcess::errorOccurred, this, [finish](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) finish();
    });
    probe->start(m_runner->profilerPath().isEmpty() ? QString("sightline-not-found")
                                                    : m_runner->profilerPath(),
                 args);
}

void CaptureTab::probeCapabilities() {
    // A new binary: what it can capture first, then the machine checks (which it also runs).
    cancelProbe(m_envProbe);
    m_capsKnown = false;
    m_envKnown = false;
    runProbe(m_probe, {"profile", "--list-options", "--format", "json"},
             [this](const QString& listing, bool) {
                 m_optionListing = listing;
                 applyCapabilities();
                 m_capsKnown = true;
                 emit capabilitiesChanged();
                 probeEnvironment();
             });
}

void CaptureTab::applyCapabilities() {
    if (m_target->isRemote()) {
        m_form->setCapabilities(CaptureCapabilities::evaluate(m_optionListing, {}, {}, {}));
        return;
    }
    m_form->setCapabilities(CaptureCapabilities::evaluate(
        m_optionListing,
        CaptureCapabilities::cuptiModuleProblem(m_runner->profilerPath(),
                                                qEnvironmentVariable("SIGHTLINE_INJECT_DIR")),
        CaptureCapabilities::libraryProblem("libcuda.so.1"),
        CaptureCapabilities::libraryProblem("libnvidia-ml.so.1")));
}

void CaptureTab::probeEnvironment() {
    // The same checks as `sightline status -e`, from the same code, before any Start.
    m_envKnown = false;
    runProbe(m_envProbe, {"status", "--environment", "--format", "json"},
             [this](const QString& out, bool started) {
                 m_envKnown = true;
                 // The target became remote meanwhile: this computer's checks do not apply there
                 // (the remote machine's run on Check).
                 if (m_target->isRemote()) {
                     emit environmentChecked();
                     return;
                 }
                 if (auto checks = EnvironmentChecksView::parse(out))
                     m_envChecks->setChecks(*checks);
                 else
                     m_envChecks->setProblem(started ? "'sightline status -e --format json' gave "
                                                       "no checks; run it in a terminal"
                                                     : "sightline was not found");
                 emit environmentChecked();
             });
}

void CaptureTab::updateBrowser() {
    // A remote program and directory are chosen there: the form's "..." browse the remote side.
    m_form->setBrowser(m_target->isRemote() ? std::function<void(bool)>([this](bool program) {
        openRemoteBrowser(program);
    })
                                            : std::function<void(bool)>());
}

CaptureSettings CaptureTab::settings(QString* argumentsError) const {
    CaptureSettings s = m_form->settings(argumentsError);
    s.remote = m_target->target();
    return s;
}

void CaptureTab::probeRemoteEnvironment() {
    const RemoteTarget t = m_target->target();
    if (const QStringList problems = ProfileCommandBuilder::validateTarget(t); !problems.isEmpty()) {
        m_envChecks->setProblem(problems.join(' '));
        return;
    }
    cancelProbe(m_envProbe);
    m_envKnown = false;
    m_envChecks->setProblem("Checking " + t.host.trimmed() + "...");
    QStringList args = QStringList{"remote", "status"} + connectionArguments(t);
    if (!t.sightlinePath.isEmpty()) args << "--remote-sightline" << t.sightlinePath;
    args << "--format" << "json";
    runCliTrustingNewHostKey(this, m_runner->profilerPath(), args, [this, t](const CliResult& r) {
        if (m_target->target() != t) return;  // the target changed meanwhile
        if (auto checks = EnvironmentChecksView::parse(r.out))
            m_envChecks->setChecks(*checks, t.host.trimmed());
        else
            m_envChecks->setProblem(t.host.trimmed() + ": " + r.errorText());
        m_envKnown = true;
        emit environmentChecked();
    });
}

RemoteReportsDialog* CaptureTab::openRemoteReports() {
    const RemoteTarget t = m_target->target();
    if (const QStringList problems = ProfileCommandBuilder::validateTarget(t); !problems.isEmpty()) {
        showError(problems.join('\n'));
        return nullptr;
    }
    auto* d = new RemoteReportsDialog(m_runner->profilerPath(), t, QDir::currentPath(), this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    connect(d, &RemoteReportsDialog::reportFetched, this, &CaptureTab::reportReady);
    d->show();
    return d;
}

RemoteBrowserDialog* CaptureTab::openRemoteBrowser(bool program) {
    const RemoteTarget t = m_target->target();
    if (const QStringList problems = ProfileCommandBuilder::validateTarget(t); !problems.isEmpty()) {
        showError(problems.join('\n'));
        return nullptr;
    }
    const CaptureSettings now = settings();
    const QString start = program && now.program.contains('/') ? now.program.section('/', 0, -2)
                                                               : now.workingDirectory;
    auto* d = new RemoteBrowserDialog(m_runner->profilerPath(), t,
                                      program ? RemoteBrowserDialog::Pick::Program
                                              : RemoteBrowserDialog::Pick::Directory,
                                      start, this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    connect(d, &QDialog::accepted, this, [this, d, program] {
        CaptureSettings s = m_form->settings();
        (program ? s.program : s.workingDirectory) = d->chosen();
        m_form->setSettings(s);
    });
    d->show();
    return d;
}

QString CaptureTab::environmentText() const {
    return m_envChecks->summaryText() + "\n" + m_envChecks->problemsText();
}

QString CaptureTab::commandLine() const {
    return m_command->toPlainText();
}
QString CaptureTab::checkText() const {
    return m_check->text();
}
QString CaptureTab::errorText() const {
    return m_error->isVisible() || !m_error->text().isEmpty() ? m_error->text() : QString();
}
QString CaptureTab::statusText() const {
    return m_status->text();
}
QString CaptureTab::logText() const {
    return m_log->toPlainText();
}

void CaptureTab::refreshCommand() {
    const QString bin = m_runner->profilerPath().isEmpty()
                            ? QString("sightline")
                            : SightlineLocator::displayName(m_runner->profilerPath());
    QString argsError;
    const CaptureSettings s = settings(&argsError);
    m_command->setPlainText(argsError.isEmpty() ? ProfileCommandBuilder::displayCommand(bin, s)
                                                : "(" + argsError + ")");
    QStringList problems = ProfileCommandBuilder::validate(s);
    if (!argsError.isEmpty()) problems << "Arguments: " + argsError + ".";
    m_check->setText(problems.join('\n'));
    m_check->setVisible(!problems.isEmpty());
}

void CaptureTab::refreshPresets(const QString& select) {
    const QString current = select.isEmpty() ? m_presetBox->currentText() : select;
    m_presetBox->clear();
    m_presetBox->addItems(m_presets->names());
    m_presetBox->setCurrentText(current);
}

void CaptureTab::refreshStatus() {
    if (!m_runner->isRunning()) return;
    const QLocale loc;
    const CaptureProgress& p = m_runner->progress();
    QString text = (m_runner->isStopping() ? "Stopping... " : "Capturing... ") +
                   QString::number(m_runner->elapsedMs() / 1000.0, 'f', 1) + " s";
    if (p.copyTotal() > 0) {  // a remote capture's report on its way here
        m_status->setText("Copying the report from " + m_target->target().host.trimmed() + ": " +
                          QString::number(p.copiedBytes() * 100 / p.copyTotal()) + "% of " +
                          loc.formattedDataSize(p.copyTotal()));
        m_copyBar->setValue(int(p.copiedBytes() * 1000 / p.copyTotal()));
        m_copyBar->setFormat(loc.formattedDataSize(p.copiedBytes()) + " of " +
                             loc.formattedDataSize(p.copyTotal()));
        m_copyBar->show();
        return;
    }
    if (p.events() >= 0) text += ", " + loc.toString(p.events()) + " events";
    // The profiler's count from its progress channel; until its first report, from /proc.
    const int processes = p.processes() >= 0 ? p.processes() : m_runner->processesSeen();
    text += ", " + QString::number(processes) + (processes == 1 ? " process" : " processes");
    m_status->setText(text);
}

void CaptureTab::setRunning(bool running) {
    m_start->setEnabled(!running);
    m_stop->setEnabled(running);
    m_stop->setText("Stop");
    m_form->setEnabled(!running);
    m_target->setEnabled(!running);
    m_presetBox->parentWidget()->setEnabled(!running);
    running ? m_tick->start() : m_tick->stop();
    // Shown by the first copy event of a run (refreshStatus), gone when the run ends.
    m_copyBar->hide();
    m_copyBar->setValue(0);
}

void CaptureTab::showError(const QString& message) {
    m_error->setText(message);
    m_error->setVisible(!message.isEmpty());
}

void CaptureTab::start() {
    if (m_runner->isRunning()) return;
    QString argsError;
    const CaptureSettings s = settings(&argsError);
    QStringList problems = ProfileCommandBuilder::validate(s);
    if (!argsError.isEmpty()) problems << "Arguments: " + argsError + ".";
    if (!problems.isEmpty()) {
        showError(problems.join('\n'));
        m_status->setText("Not started.");
        return;
    }
    showError({});
    m_presets->saveLast(s);
    m_log->clear();
    appendLog("$ " + commandLine(), false);
    setRunning(true);
    refreshStatus();
    if (!m_runner->start(s)) setRunning(false);
}

void CaptureTab::stop() {
    m_runner->stop();
    // The first Stop asks for the report; a second one kills the profiler without one.
    if (m_runner->isRunning()) {
        m_stop->setText("Kill");
        m_stop->setToolTip("Kills the profiler now: the report is lost.");
    }
    refreshStatus();
}

void CaptureTab::onFinished(const QString& report) {
    setRunning(false);
    const CaptureProgress& p = m_runner->progress();
    QString text = "Report written: " + report;
    // The count is the live one of the last progress tick: a short capture ends before a tick
    // sees its events, and "(0 events)" would contradict the merge's line in the log.
    if (p.events() > 0) text += " (" + QLocale().toString(p.events()) + " events)";
    m_status->setText(text);
    emit reportReady(report);
}

void CaptureTab::onFailed(const QString& message) {
    setRunning(false);
    m_status->setText("Capture failed.");
    showError(message);
    if (const auto& ssh = m_runner->sshFailure(); ssh && ssh->canTrustHostKey()) offerToTrustHostKey();
}

void CaptureTab::offerToTrustHostKey() {
    const CaptureSettings s = m_runner->settings();
    askToTrustHostKey(this, *m_runner->sshFailure(), [this, s](bool yes) {
        // No: the error stays. The tab may be running another capture by now (never two).
        if (!yes || m_runner->isRunning()) return;
        showError({});
        appendLog("$ " + commandLine() + " " + kAcceptNewHostKeyOption, false);
        setRunning(true);
        refreshStatus();
        if (!m_runner->start(s, true)) setRunning(false);
    });
}

void CaptureTab::appendLog(const QString& line, bool fromStderr) {
    // Both streams go to one pane, in arrival order; the profiler's own lines are dimmed so the
    // program's output stands out, and its errors are red.
    const bool profiler = fromStderr && line.startsWith("sightline");
    if (!profiler && !line.startsWith("$ ")) {
        m_log->appendPlainText(line);
        return;
    }
    const char* color = line.contains(": error: ") ? "#b00020" : "#707070";
    m_log->appendHtml(
        QString("<span style=\"color:%1\">%2</span>").arg(color, line.toHtmlEscaped()));
}

}  // namespace sl::viewer
