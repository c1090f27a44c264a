#pragma once
// Counts the processes seen in a process tree while a capture runs (the profiler's descendants:
// the traced program and everything it starts), from /proc on Linux, because the profiler only
// reports its counts when it merges. Polled by the runner once a second; a scan reads one small
// /proc/PID/stat file per process on the machine. GUI thread.
#include <QHash>
#include <QSet>

namespace sl::viewer {

class ProcessTreeWatcher {
public:
    void reset(qint64 rootPid);
    // Scans /proc and adds the root's current descendants to the seen set; returns its size.
    int poll();
    int seen() const { return int(m_seen.size()); }

    // Pure: the descendants of `root` (not root itself) in a pid -> parent pid map.
    static QSet<qint64> descendants(const QHash<qint64, qint64>& parentOf, qint64 root);
    // pid -> parent pid of every process in `procDir` (/proc/PID/stat, field 4).
    static QHash<qint64, qint64> readParents(const QString& procDir = "/proc");

private:
    qint64 m_root = -1;
    QSet<qint64> m_seen;
};

}  // namespace sl::viewer
