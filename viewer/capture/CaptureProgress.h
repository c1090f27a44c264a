#pragma once
// Reads the progress that `sightline profile` writes to stderr (events so far, processes seen,
// the report it generated) out of the mixed stderr stream, which also carries the traced
// program's own stderr. Fed line by line; keeps the latest values. Pure; any thread.
#include <QString>

namespace sl::viewer {

class CaptureProgress {
public:
    // Takes one complete line (without the newline). Returns whether a value changed.
    bool feedLine(const QString& line);

    qint64 events() const { return m_events; }        // -1 until reported
    int processes() const { return m_processes; }     // -1 until reported
    QString reportPath() const { return m_reportPath; }  // empty until reported
    QString lastError() const { return m_lastError; }  // the last "error" line of the profiler

private:
    qint64 m_events = -1;
    int m_processes = -1;
    QString m_reportPath, m_lastError;
    bool m_expectPath = false;  // nsys style: "Generated:" then the path on the next line
};

}  // namespace sl::viewer
