#pragma once
// Runs `sightline remote ...` (and other short CLI commands) for the Capture tab's remote parts
// without blocking the window: the CLI owns all SSH work (app/remote), the GUI only reads its
// JSON. One QProcess per call, deleted when done. GUI thread.
#include <QObject>
#include <QString>
#include <QStringList>
#include <QList>
#include <functional>
#include <optional>

#include "viewer/capture/CaptureSettings.h"

namespace sl::viewer {

// Why ssh could not connect, as the CLI classified it (app/remote/SshErrors.h): the JSON it writes
// to $SIGHTLINE_SSH_FAILURE_FILE, never its prose.
struct SshFailureInfo {
    QString failure;  // "unknown_host_key", "changed_host_key", "authentication", "unreachable", "other"
    QString host, target, knownHostsName;
    int port = 0;
    struct Key {
        int bits = 0;
        QString fingerprint, type;  // "SHA256:...", "ED25519"
    };
    QList<Key> keys;  // the keys an unknown host presents (ssh-keyscan); never for a changed key
    // A host seen for the first time whose keys could be fetched: the user may trust it.
    bool canTrustHostKey() const { return failure == "unknown_host_key" && !keys.isEmpty(); }
    // Reads the file's JSON; none when it is empty or not the CLI's object.
    static std::optional<SshFailureInfo> parse(const QByteArray& json);
};

// The environment variable a child `sightline` writes its SshFailureInfo to (a file path).
inline constexpr const char* kSshFailureFileVariable = "SIGHTLINE_SSH_FAILURE_FILE";

struct CliResult {
    int exitCode = -1;  // -1: it could not be started
    QString out, err;
    std::optional<SshFailureInfo> ssh;  // set when ssh could not connect
    // The CLI's "sightline: error: ..." line(s), or the last stderr line.
    QString errorText() const;
};

// Starts `binary args` and calls `done` once with what it printed. The call dies with `owner`.
void runCli(QObject* owner, const QString& binary, const QStringList& args,
            const std::function<void(const CliResult&)>& done);
// The connection options of a target: --remote HOST [--remote-key ...] [--remote-jump ...].
QStringList connectionArguments(const RemoteTarget& t);

}  // namespace sl::viewer
