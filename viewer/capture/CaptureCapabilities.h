#pragma once
// What this machine can capture, with the reason when it cannot: CUDA capture needs a `sightline`
// with the CUDA options, its CUPTI module (libsightline-cuda.so next to libsightline-inject.so,
// which is what the launcher checks) and the NVIDIA driver (libcuda.so.1); GPU metrics need NVML
// (libnvidia-ml.so.1). The libraries are probed with dlopen-like loading (QLibrary), never
// linked. The CLI part comes from `sightline profile --list-options --format json` (generated
// from the option definition, model/options), read by the tab off the GUI thread.
#include <QString>

namespace sl::viewer {

struct CaptureCapabilities {
    bool cuda = false;
    QString cudaReason;  // why CUDA capture is unavailable; empty when available
    bool gpuMetrics = false;
    QString gpuMetricsReason;  // why GPU metrics are unavailable

    // Pure: from the CLI's JSON option listing and whether the driver libraries load ("" = loads,
    // otherwise the loader's message).
    static CaptureCapabilities evaluate(const QString& optionListing,
                                        const QString& cuptiModuleProblem,
                                        const QString& cudaDriverProblem,
                                        const QString& nvmlProblem);
    // Looks for the capture modules where the launcher does ($SIGHTLINE_INJECT_DIR, then
    // ../lib/sightline and the like next to the binary): "" when libsightline-cuda.so is there or
    // the module folder cannot be found (then the launcher has the last word), else why not.
    static QString cuptiModuleProblem(const QString& sightlineBinary, const QString& injectDirEnv);
    // "" when the library loads, else why not.
    static QString libraryProblem(const QString& soname);
    // Whether the listing says CUDA capture is built in.
    static bool helpOffersCuda(const QString& optionListing);
};

}  // namespace sl::viewer
