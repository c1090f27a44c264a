#pragma once
// The captures on the remote machine (`sightline remote list --format json`): id, state, exit
// code, start, command, reports. "Fetch and open" copies the chosen capture's reports into a
// local folder (`sightline remote fetch ID -o FOLDER/ID.rep`) and emits each for a new tab; a
// capture whose connection was lost is fetched here once it has ended.
#include <QDialog>

#include "viewer/capture/CaptureSettings.h"

class QLabel;
class QLineEdit;
class QTableWidget;

namespace sl::viewer {

class RemoteReportsDialog : public QDialog {
    Q_OBJECT
public:
    RemoteReportsDialog(const QString& sightline, const RemoteTarget& target, const QString& folder,
                        QWidget* parent = nullptr);
    void refresh();
    // Fetches the capture in `row` of the table into the folder.
    void fetch(int row);
    bool isBusy() const { return m_busy; }
    int rows() const;
    QString idAt(int row) const;
    QString stateAt(int row) const;
    QString messageText() const;

signals:
    void reportFetched(const QString& path);

private:
    QString m_sightline;
    RemoteTarget m_target;
    bool m_busy = false;
    QTableWidget* m_table = nullptr;
    QLineEdit* m_folder = nullptr;
    QLabel* m_message = nullptr;
};

}  // namespace sl::viewer
