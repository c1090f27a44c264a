#pragma once
// Finds the `sightline` CLI that the Capture tab runs. The places, in order: $SIGHTLINE_CLI (an
// explicit override), next to `sightline-ui` (installed: both in bin/), then ../cli/sightline
// (the build tree: build/app/gui/sightline-ui and build/app/cli/sightline). Pure apart from
// looking at the file system; GUI thread or any.
#include <QString>
#include <QStringList>

namespace sl::viewer {

class SightlineLocator {
public:
    // The candidate paths for an application directory, in the order they are tried.
    static QStringList candidates(const QString& appDir, const QString& envOverride);
    // The first candidate that is an executable file; empty when none is.
    static QString find(const QString& appDir, const QString& envOverride);
    // find() with QCoreApplication::applicationDirPath() and $SIGHTLINE_CLI.
    static QString findForApplication();
    // "sightline" when that name in PATH is this binary (so the command line is portable),
    // otherwise the absolute path.
    static QString displayName(const QString& binary);
};

}  // namespace sl::viewer
