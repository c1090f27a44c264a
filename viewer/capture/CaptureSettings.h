#pragma once
// The state of the Capture tab's form: everything one `sightline profile` run needs, as plain
// values (no widgets), so that the command line, presets and validation are testable without a
// window. Defaults match the CLI's defaults except `traceCuda`, which the tab sets from what the
// machine can do.
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace sl::viewer {

enum class CaptureRangeKind { None, Nvtx, CudaProfilerApi };
enum class CaptureRangeEndKind { Stop, StopShutdown, Repeat };

struct CaptureSettings {
    QString program;
    QStringList arguments;
    QString workingDirectory;                    // empty: the GUI's current directory
    QList<QPair<QString, QString>> environment;  // --env-var NAME=VALUE, in order
    bool traceCuda = true, traceNvtx = true, traceOsrt = true;
    qint64 osrtThresholdNs = 1000;       // --osrt-threshold (ns)
    bool cudaMemoryUsage = false;        // --cuda-memory-usage
    QString gpuMetricsDevices = "none";  // none, all or "0,2"
    int gpuMetricsFrequencyHz = 10;      // --gpu-metrics-frequency
    bool cpuMetrics = true;              // --cpu-metrics
    bool sampleCpu = true;               // -s/--sample process-tree (false: none)
    int samplingFrequencyHz = 1000;      // --sampling-frequency of the CPU samples (100-8000)
    QString backtrace = "fp";            // -b/--backtrace: fp (frame pointers) or none
    double delaySeconds = 0;             // -y
    double durationSeconds = 0;          // -d; 0: until the program ends
    CaptureRangeKind captureRange = CaptureRangeKind::None;
    QString nvtxRange, nvtxDomain;  // -p RANGE[@DOMAIN]
    CaptureRangeEndKind rangeEnd = CaptureRangeEndKind::Stop;
    int repeatCount = 0;  // repeat:N; 0 = every range
    QString output;       // pattern with %p %h %q{ENV} %%; empty: reportN.rep
    bool forceOverwrite = false;

    bool operator==(const CaptureSettings&) const = default;
};

}  // namespace sl::viewer
