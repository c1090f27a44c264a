#pragma once
// What this machine can capture, with the reason when it cannot: CUDA capture needs a `sightline`
// built with CUDA support and the NVIDIA driver (libcuda.so.1); GPU metrics need NVML
// (libnvidia-ml.so.1). The libraries are probed with dlopen-like loading (QLibrary), never
// linked. The CLI part comes from the text of `sightline profile --help`, read by the tab off the
// GUI thread.
#include <QString>

namespace sl::viewer {

struct CaptureCapabilities {
    bool cuda = false;
    QString cudaReason;        // why CUDA capture is unavailable; empty when available
    bool gpuMetrics = false;
    QString gpuMetricsReason;  // why GPU metrics are unavailable

    // Pure: from the CLI's help text and whether the driver libraries load ("" = loads,
    // otherwise the loader's message).
    static CaptureCapabilities evaluate(const QString& profileHelp, const QString& cudaDriverProblem,
                                        const QString& nvmlProblem);
    // "" when the library loads, else why not.
    static QString libraryProblem(const QString& soname);
    // Whether the help text says CUDA capture is built in.
    static bool helpOffersCuda(const QString& profileHelp);
};

}  // namespace sl::viewer
