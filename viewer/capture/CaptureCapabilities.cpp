#include "viewer/capture/CaptureCapabilities.h"

#include <QLibrary>

namespace sl::viewer {

bool CaptureCapabilities::helpOffersCuda(const QString& help) {
    // A build without CUPTI says so in the --trace help ("cuda: not available in this build").
    if (help.contains("not available in this build", Qt::CaseInsensitive) ||
        help.contains("without CUDA", Qt::CaseInsensitive))
        return false;
    return help.contains("--cuda-memory-usage");
}

CaptureCapabilities CaptureCapabilities::evaluate(const QString& help, const QString& driverProblem,
                                                  const QString& nvmlProblem) {
    CaptureCapabilities c;
    if (help.isEmpty()) c.cudaReason = "The sightline command-line tool did not answer, so CUDA capture cannot be checked.";
    else if (!helpOffersCuda(help)) c.cudaReason = "This sightline was built without CUDA capture (no CUDA toolkit at build time).";
    else if (!driverProblem.isEmpty()) c.cudaReason = "No NVIDIA driver: " + driverProblem;
    c.cuda = c.cudaReason.isEmpty();
    if (!nvmlProblem.isEmpty()) c.gpuMetricsReason = "No NVML (NVIDIA driver): " + nvmlProblem;
    else if (!help.contains("--gpu-metrics-devices")) c.gpuMetricsReason = "This sightline has no GPU metrics option.";
    c.gpuMetrics = c.gpuMetricsReason.isEmpty();
    return c;
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
