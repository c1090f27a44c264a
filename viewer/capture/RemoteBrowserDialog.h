#pragma once
// Chooses a program or a directory on the remote machine: a listing of one directory at a time
// (`sightline remote ls DIR --format json` over the CLI's SSH connection), double-click to enter
// a directory, ".." to go up.
#include <QDialog>

#include "viewer/capture/CaptureSettings.h"

class QLabel;
class QLineEdit;
class QListWidget;

namespace sl::viewer {

class RemoteBrowserDialog : public QDialog {
    Q_OBJECT
public:
    enum class Pick { Program, Directory };
    RemoteBrowserDialog(const QString& sightline, const RemoteTarget& target, Pick pick,
                        const QString& start, QWidget* parent = nullptr);
    QString chosen() const { return m_chosen; }
    QString directory() const { return m_dir; }
    // Lists `dir` ("" : the remote home); the list fills when the CLI answers.
    void list(const QString& dir);
    bool isLoading() const { return m_loading; }
    QString errorText() const;
    // "Choose": the selected program (or this directory); refuses a directory as a program.
    void accept() override;

private:
    QString m_sightline;
    RemoteTarget m_target;
    Pick m_pick;
    QString m_dir, m_chosen;
    bool m_loading = false;
    QLineEdit* m_path = nullptr;
    QListWidget* m_list = nullptr;
    QLabel* m_error = nullptr;
};

}  // namespace sl::viewer
