#pragma once
// The Capture tab of sightline-ui: the form, named presets, the equivalent `sightline profile`
// command line (always shown, copyable), Start/Stop, live progress and the program's output.
// When a capture ends it emits reportReady(path) for the main window to open the report; errors
// stay in the tab with what to do. Runs the `sightline` CLI as a process (viewer/ never links
// capture/). GUI thread; nothing here blocks.
#include <functional>

#include <QWidget>

#include "viewer/capture/CaptureCapabilities.h"
#include "viewer/capture/CaptureSettings.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProcess;
class QProgressBar;
class QPushButton;
class QTimer;

namespace sl::viewer {

class CaptureForm;
class CapturePresets;
class EnvironmentChecksView;
class CaptureRunner;
class RemoteBrowserDialog;
class RemoteReportsDialog;
class RemoteTargetBox;

class CaptureTab : public QWidget {
    Q_OBJECT
public:
    explicit CaptureTab(QWidget* parent = nullptr);
    ~CaptureTab() override;

    CaptureForm* form() const { return m_form; }
    RemoteTargetBox* targetBox() const { return m_target; }
    // The form's settings with the target ("This computer" or a remote machine).
    CaptureSettings settings(QString* argumentsError = nullptr) const;
    // Remote target: the captures there, and a browser for the program / working directory.
    // Non-modal; they close with the tab.
    RemoteReportsDialog* openRemoteReports();
    RemoteBrowserDialog* openRemoteBrowser(bool program);
    CaptureRunner* runner() const { return m_runner; }
    // Runs this `sightline` instead of the one found next to the application; re-checks what
    // it can capture.
    void setProfilerPath(const QString& path);
    // The command line as shown (what Copy puts on the clipboard).
    QString commandLine() const;
    // The error shown in the tab; empty when none.
    QString errorText() const;
    QString statusText() const;
    // What would stop a start, checked while the form is edited; empty when ready.
    QString checkText() const;
    QString logText() const;
    // The remote report's copy to this computer: visible while it runs, bytes copied / total.
    QProgressBar* copyProgressBar() const { return m_copyBar; }
    bool capabilitiesKnown() const { return m_capsKnown; }
    // The machine checks (`sightline status -e`), once they have run: the summary line, then the
    // checks that are not OK with their fixes.
    bool environmentKnown() const { return m_envKnown; }
    QString environmentText() const;

public slots:
    void start();
    void stop();

signals:
    void reportReady(const QString& path);
    void capabilitiesChanged();
    void environmentChecked();

private:
    QWidget* buildPresetBar();
    QWidget* buildRunPanel();
    void probeCapabilities();
    // What the form offers: this computer's CUDA driver and NVML decide for a local capture; a
    // remote target's capture runs on a machine this one cannot see (a laptop without a GPU
    // capturing on a GPU server), so there only the option listing decides and the remote
    // machine's checks (Check) say what it lacks.
    void applyCapabilities();
    void probeEnvironment();
    // `sightline remote status --format json` for a remote target: the same checks, run there.
    void probeRemoteEnvironment();
    void updateBrowser();
    // Runs `sightline ARGS` as a child, never blocking the window; `done(stdout, started)` once,
    // unless the probe is replaced or cancelled first.
    void runProbe(QProcess*& slot, const QStringList& args,
                  const std::function<void(const QString&, bool)>& done);
    static void cancelProbe(QProcess*& probe);
    void refreshCommand();
    void refreshStatus();
    void refreshPresets(const QString& select = {});
    void setRunning(bool running);
    void showError(const QString& message);
    void onFinished(const QString& report);
    void onFailed(const QString& message);
    // A remote target's unknown host key: the fingerprint, and on Yes the same capture again,
    // trusting it (HostKeyPrompt.h).
    void offerToTrustHostKey();
    void appendLog(const QString& line, bool fromStderr);

    CaptureForm* m_form = nullptr;
    RemoteTargetBox* m_target = nullptr;
    bool m_wasRemote = false;
    CaptureRunner* m_runner = nullptr;
    CapturePresets* m_presets = nullptr;
    QProcess* m_probe = nullptr;
    QProcess* m_envProbe = nullptr;
    bool m_capsKnown = false, m_envKnown = false;
    QString m_optionListing;  // `sightline profile --list-options --format json`
    EnvironmentChecksView* m_envChecks = nullptr;
    QComboBox* m_presetBox = nullptr;
    QPlainTextEdit* m_command = nullptr;
    QPushButton *m_start = nullptr, *m_stop = nullptr;
    QLabel *m_status = nullptr, *m_error = nullptr, *m_check = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QProgressBar* m_copyBar = nullptr;
    QTimer* m_tick = nullptr;
};

}  // namespace sl::viewer
