#include "viewer/capture/CaptureCapabilities.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLibrary>
#include <QStringList>

namespace sl::viewer {

namespace {

// The support of one option in the listing ("implemented", "different", "not available"), or ""
// when the listing does not have it.
QString optionSupport(const QJsonObject& listing, const QString& name) {
    for (const QJsonValue& v : listing.value("options").toArray())
        if (v.toObject().value("name").toString() == name)
            return v.toObject().value("support").toString();
    return {};
}

bool available(const QString& support) {
    return !support.isEmpty() && support != "not available";
}

}  // namespace

bool CaptureCapabilities::helpOffersCuda(const QString& listing) {
    const QJsonObject o = QJsonDocument::fromJson(listing.toUtf8()).object();
    return o.value("cuda").toBool() && available(optionSupport(o, "cuda-memory-usage"));
}

CaptureCapabilities CaptureCapabilities::evaluate(const QString& listing,
                                                  const QString& moduleProblem,
                                                  const QString& driverProblem,
                                                  const QString& nvmlProblem) {
    CaptureCapabilities c;
    const QJsonObject o = QJsonDocument::fromJson(listing.toUtf8()).object();
    if (o.isEmpty())
        c.cudaReason =
            "The sightline command-line tool did not answer, so CUDA capture cannot be checked.";
    else if (!helpOffersCuda(listing))
        c.cudaReason =
            "This sightline has no CUDA capture ('sightline profile --list-options' lists CUDA "
            "as not available).";
    else if (!moduleProblem.isEmpty())
        c.cudaReason = "This sightline was built without CUDA capture: " + moduleProblem;
    else if (!driverProblem.isEmpty())
        c.cudaReason = "No NVIDIA driver: " + driverProblem;
    c.cuda = c.cudaReason.isEmpty();
    if (!nvmlProblem.isEmpty())
        c.gpuMetricsReason = "No NVML (NVIDIA driver): " + nvmlProblem;
    else if (!available(optionSupport(o, "gpu-metrics-devices")))
        c.gpuMetricsReason = "This sightline has no GPU metrics.";
    c.gpuMetrics = c.gpuMetricsReason.isEmpty();
    return c;
}

QString CaptureCapabilities::cuptiModuleProblem(const QString& binary,
                                                const QString& injectDirEnv) {
    const QString inject = "libsightline-inject.so", cupti = "libsightline-cuda.so";
    QStringList dirs;
    if (!injectDirEnv.isEmpty()) dirs << injectDirEnv;
    const QDir bin = QFileInfo(binary).absoluteDir();
    for (const char* rel : {"../lib/sightline", "../lib64/sightline",
                            "../lib/x86_64-linux-gnu/sightline", "../../lib/sightline"})
        dirs << QDir::cleanPath(bin.filePath(rel));
    for (const QString& d : dirs) {
        if (!QFileInfo(QDir(d).filePath(inject)).isFile()) continue;
        if (QFileInfo(QDir(d).filePath(cupti)).isFile()) return {};
        return cupti + " is not in " + d + " (the CUDA toolkit was missing when it was built).";
    }
    return {};
}

QString CaptureCapabilities::libraryProblem(const QString& soname) {
    QLibrary lib(soname);
    if (lib.load()) {
        lib.unload();
        return {};
    }
    return soname + " cannot be loaded (" + lib.errorString() + ")";
}

}  // namespace sl::viewer
