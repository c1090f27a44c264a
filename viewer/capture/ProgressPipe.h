#pragma once
// The pipe that carries `sightline profile --progress-fd N`'s JSON lines to the Capture tab: the
// write end is inherited by the profiler only (it is close-on-exec here and made inheritable in
// the child between fork and exec), the read end is watched with a QSocketNotifier and cut into
// complete lines (LineCutter). GUI thread.
#include <QByteArray>
#include <QObject>

#include "viewer/capture/LineCutter.h"

class QSocketNotifier;

namespace sl::viewer {

class ProgressPipe : public QObject {
    Q_OBJECT
public:
    explicit ProgressPipe(QObject* parent = nullptr);
    ~ProgressPipe() override;

    // Opens a new pipe (closing any previous one); false when the system has no descriptors left.
    bool open();
    // The descriptor number the child writes to (the one to pass as --progress-fd).
    int writeFd() const { return m_write; }
    // In the child, between fork and exec: keeps the write end across exec. Async-signal-safe.
    static void inheritInChild(int writeFd);
    // After the child started: the parent keeps only the read end.
    void closeWriteEnd();
    // Reads what is left (the child has exited), emits the last lines, and closes the pipe.
    void drainAndClose();

signals:
    void lineRead(const QByteArray& line);

private:
    void readAvailable();
    void closeAll();

    int m_read = -1, m_write = -1;
    QSocketNotifier* m_notifier = nullptr;
    // The channel's JSON lines are short (the longest, a report path, is at most PATH_MAX
    // escaped): a line of a MiB is not one of them and is dropped.
    LineCutter m_lines{qsizetype(1) << 20, LineCutter::OverLong::Drop};
};

}  // namespace sl::viewer
