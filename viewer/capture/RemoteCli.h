#pragma once
// Runs `sightline remote ...` (and other short CLI commands) for the Capture tab's remote parts
// without blocking the window: the CLI owns all SSH work (app/remote), the GUI only reads its
// JSON. One QProcess per call, deleted when done. GUI thread.
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

#include "viewer/capture/CaptureSettings.h"

namespace sl::viewer {

struct CliResult {
    int exitCode = -1;  // -1: it could not be started
    QString out, err;
    // The CLI's "sightline: error: ..." line(s), or the last stderr line.
    QString errorText() const;
};

// Starts `binary args` and calls `done` once with what it printed. The call dies with `owner`.
void runCli(QObject* owner, const QString& binary, const QStringList& args,
            const std::function<void(const CliResult&)>& done);
// The connection options of a target: --remote HOST [--remote-key ...] [--remote-jump ...].
QStringList connectionArguments(const RemoteTarget& t);

}  // namespace sl::viewer
