#include "viewer/capture/CaptureCapabilities.h"

#include <QDir>
#include <QFileInfo>
#include <QLibrary>
#include <QStringList>

namespace sl::viewer {

bool CaptureCapabilities::helpOffersCuda(const QString& help) {
    // A build without CUPTI says so in the --trace help ("cuda: not available in this build").
    if (help.contains("not available in this build", Qt::CaseInsensitive) ||
        help.contains("without CUDA", Qt::CaseInsensitive))
        return false;
    return help.contains("--cuda-memory-usage");
}

CaptureCapabilities CaptureCapabilities::evaluate(const QString& help, const QString& moduleProblem,
                                                  const QString& driverProblem,
                                                  const QString& nvmlProblem) {
    CaptureCapabilities c;
    if (help.isEmpty())
        c.cudaReason =
            "The sightline command-line tool did not answer, so CUDA capture cannot be checked.";
    else if (!helpOffersCuda(help))
        c.cudaReason =
            "This sightline has no CUDA capture (no --cuda-memory-usage in 'sightline profile "
            "--help').";
    else if (!moduleProblem.isEmpty())
        c.cudaReason = "This sightline was built without CUDA capture: " + moduleProblem;
    else if (!driverProblem.isEmpty())
        c.cudaReason = "No NVIDIA driver: " + driverProblem;
    c.cuda = c.cudaReason.isEmpty();
    if (!nvmlProblem.isEmpty())
        c.gpuMetricsReason = "No NVML (NVIDIA driver): " + nvmlProblem;
    else if (!help.contains("--gpu-metrics-devices"))
        c.gpuMetricsReason = "This sightline has no GPU metrics option.";
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
