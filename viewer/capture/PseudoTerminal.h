#pragma once
// A pseudo-terminal that stands in for the traced program's stdout, so that programs which buffer
// their output in blocks when it goes to a pipe (C stdio, Python) write it line by line, as in a
// terminal, and the log pane stays live. Output post-processing is off (no "\r\n"). The parent
// reads the master side through a QSocketNotifier; the slave side is handed to the child and
// closed here once the child has started. GUI thread.
#include <QByteArray>
#include <QObject>

class QSocketNotifier;

namespace sl::viewer {

class PseudoTerminal : public QObject {
    Q_OBJECT
public:
    explicit PseudoTerminal(QObject* parent = nullptr);
    ~PseudoTerminal() override;

    // Opens a new master/slave pair (closing any previous one); false when the system has none.
    bool open();
    int slaveFd() const { return m_slave; }
    // After the child started: the parent keeps only the master.
    void closeSlave();
    // Reads what is buffered now (used when the child has exited) and closes the master.
    void drainAndClose();

signals:
    void dataRead(const QByteArray& data);

private:
    void readAvailable();
    void closeAll();

    int m_master = -1, m_slave = -1;
    QSocketNotifier* m_notifier = nullptr;
};

}  // namespace sl::viewer
