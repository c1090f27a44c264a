#pragma once
// The Capture tab's target: "This computer" or "Remote (SSH)" with user@host[:port], a key file
// (empty: the SSH agent), a jump host and the remote sightline's path. With a remote target the
// tab's command line becomes `sightline profile --remote ...`: the CLI does the work, the tab
// shows its output. Buttons: check the remote machine (`remote status`), its reports (`remote
// list`/`fetch`) and a browser for the program and working directory there (`remote ls`).
#include <QWidget>

#include "viewer/capture/CaptureSettings.h"

class QComboBox;
class QLineEdit;
class QPushButton;

namespace sl::viewer {

class RemoteTargetBox : public QWidget {
    Q_OBJECT
public:
    explicit RemoteTargetBox(QWidget* parent = nullptr);
    RemoteTarget target() const;  // host empty for "This computer"
    void setTarget(const RemoteTarget& t);
    bool isRemote() const;

signals:
    void changed();
    void checkRequested();    // "Check": run the environment checks there
    void reportsRequested();  // "Remote reports..."
    void browseProgramRequested();
    void browseDirectoryRequested();

private:
    void updateEnabled();
    QComboBox* m_kind = nullptr;
    QLineEdit *m_host = nullptr, *m_key = nullptr, *m_jump = nullptr, *m_sightline = nullptr;
    QWidget* m_fields = nullptr;
};

}  // namespace sl::viewer
