#pragma once
// The state of the Capture tab's form: everything one `sightline profile` run needs, as plain
// values (no widgets), so that the command line, presets and validation are testable without a
// window. The options are kept by their long name with their value as the CLI reads it
// ("--sampling-frequency" -> "500"); which options exist, their values, ranges and defaults come
// from the one option definition (model/options), so nothing here repeats them.
#include <QList>
#include <QMap>
#include <QPair>
#include <QString>
#include <QStringList>

namespace sl::viewer {

// Where the capture runs: this computer (host empty) or a remote machine over SSH, where the
// CLI does the work (`sightline profile --remote ...`, docs/remote.md).
struct RemoteTarget {
    QString host;           // user@host[:port]; empty: this computer
    QString keyFile;        // --remote-key; empty: the SSH agent's keys and ~/.ssh
    QString jumpHost;       // --remote-jump
    QString sightlinePath;  // --remote-sightline; empty: the remote PATH's
    bool isRemote() const { return !host.isEmpty(); }  // " ": remote, host not typed yet
    bool operator==(const RemoteTarget&) const = default;
};

struct CaptureSettings {
    QString program;
    QStringList arguments;
    QString workingDirectory;                    // empty: the GUI's current directory
    QList<QPair<QString, QString>> environment;  // --env-var NAME=VALUE, in order
    // Options set to something other than their default, by long name (no "--env-var": that is
    // `environment`). An option not here has the definition's default.
    QMap<QString, QString> options;
    // Remote: the program and working directory are paths on that machine.
    RemoteTarget remote;

    // The value in effect: the one set, else the definition's default ("" for none).
    QString value(const QString& option) const;
    bool isTrue(const QString& option) const { return value(option) == "true"; }
    // Sets an option; its default value (or "" for an option without one) removes it.
    void set(const QString& option, const QString& value);
    // Whether a list option ("trace") contains an item ("nvtx").
    bool has(const QString& listOption, const QString& item) const;
    // Adds or removes one item of a list option, keeping the others ("none" when none is left).
    void setItem(const QString& listOption, const QString& item, bool on);
    // Whether the option matters with the other values (its definition's onlyWhen condition).
    bool applies(const QString& option) const;

    bool operator==(const CaptureSettings&) const = default;
};

}  // namespace sl::viewer
