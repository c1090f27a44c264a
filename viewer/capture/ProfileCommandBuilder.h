#pragma once
// Turns the Capture tab's settings into the `sightline profile` argument list and its
// shell-quoted display form, and parses such an argument list back (presets store the argv, so a
// preset is exactly a command line). Pure functions: no widgets, no processes, no file system
// except `validate`, which checks the program and the working directory.
#include <QString>
#include <QStringList>

#include "model/core/Result.h"
#include "viewer/capture/CaptureSettings.h"

namespace sl::viewer {

class ProfileCommandBuilder {
public:
    // The arguments after the `sightline` binary: "profile", options, the program, its arguments.
    // Options at their defaults, and those that do not apply (their onlyWhen condition is not
    // met), are left out, except --trace, which is always given.
    static QStringList arguments(const CaptureSettings& s);
    // What a user pastes into a shell: "cd DIR && sightline profile ..." (the cd only when a
    // working directory is set), every word quoted only when it needs it.
    static QString displayCommand(const QString& binary, const CaptureSettings& s);
    // The inverse of arguments(), through the CLI's own parser (model/options): every spelling
    // the CLI accepts ("-o X", "--output X", "-s cpu", "-w true"). Options that are not capture
    // settings (--help, --progress-fd) are dropped. The working directory is not part of the
    // argv; it stays empty.
    static Result<CaptureSettings> parse(const QStringList& args);
    // Problems that stop a start, as one sentence each with what to do; empty when fine. Every
    // option value is checked as the CLI will check it.
    static QStringList validate(const CaptureSettings& s);
    // The --remote* options of a remote target (none for this computer); the working directory
    // goes as --remote-workdir, a directory there.
    static QStringList remoteArguments(const CaptureSettings& s);
    // Problems of the target's fields (host syntax, a key file that cannot be read).
    static QStringList validateTarget(const RemoteTarget& t);

    // POSIX-shell word quoting: ' when needed, ' inside written as '\''.
    static QString shellQuote(const QString& word);
    static QString shellJoin(const QStringList& words);
    // Splits a line typed into the Arguments field the way sh would (quotes, backslashes).
    static Result<QStringList> shellSplit(const QString& line);
};

}  // namespace sl::viewer
