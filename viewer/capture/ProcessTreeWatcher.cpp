#include "viewer/capture/ProcessTreeWatcher.h"

#include <QDir>
#include <QFile>

namespace sl::viewer {

void ProcessTreeWatcher::reset(qint64 rootPid) {
    m_root = rootPid;
    m_seen.clear();
}

int ProcessTreeWatcher::poll() {
    if (m_root <= 0) return seen();
    m_seen.unite(descendants(readParents(), m_root));
    return seen();
}

QSet<qint64> ProcessTreeWatcher::descendants(const QHash<qint64, qint64>& parentOf, qint64 root) {
    QHash<qint64, QList<qint64>> children;
    for (auto it = parentOf.cbegin(); it != parentOf.cend(); ++it)
        children[it.value()].append(it.key());
    QSet<qint64> out;
    QList<qint64> todo{root};
    while (!todo.isEmpty()) {
        const qint64 p = todo.takeLast();
        for (qint64 c : children.value(p))
            if (!out.contains(c) && c != root) out.insert(c), todo.append(c);
    }
    return out;
}

QHash<qint64, qint64> ProcessTreeWatcher::readParents(const QString& procDir) {
    QHash<qint64, qint64> out;
    const QDir dir(procDir);
    for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool ok = false;
        const qint64 pid = name.toLongLong(&ok);
        if (!ok) continue;
        QFile f(dir.filePath(name + "/stat"));
        if (!f.open(QIODevice::ReadOnly)) continue;  // the process just ended
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the
        // last ')'.
        const QByteArray stat = f.read(512);
        const qsizetype close = stat.lastIndexOf(')');
        if (close < 0) continue;
        const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
        if (fields.size() < 2) continue;
        out.insert(pid, fields[1].toLongLong());
    }
    return out;
}

}  // namespace sl::viewer
