#include "viewer/capture/SightlineLocator.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace sl::viewer {

QStringList SightlineLocator::candidates(const QString& appDir, const QString& envOverride) {
    QStringList c;
    if (!envOverride.isEmpty()) c << envOverride;
    const QDir dir(appDir);
    c << QDir::cleanPath(dir.filePath("sightline"))
      << QDir::cleanPath(dir.filePath("../cli/sightline"));
    return c;
}

QString SightlineLocator::find(const QString& appDir, const QString& envOverride) {
    for (const QString& p : candidates(appDir, envOverride)) {
        const QFileInfo fi(p);
        if (fi.isFile() && fi.isExecutable()) return fi.absoluteFilePath();
    }
    return {};
}

QString SightlineLocator::findForApplication() {
    return find(QCoreApplication::applicationDirPath(), qEnvironmentVariable("SIGHTLINE_CLI"));
}

QString SightlineLocator::displayName(const QString& binary) {
    const QString inPath = QStandardPaths::findExecutable("sightline");
    if (!inPath.isEmpty() &&
        QFileInfo(inPath).canonicalFilePath() == QFileInfo(binary).canonicalFilePath())
        return "sightline";
    return binary;
}

}  // namespace sl::viewer
