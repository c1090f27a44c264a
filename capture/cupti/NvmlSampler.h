#pragma once
// GPU metrics from NVML (--gpu-metrics-devices, --gpu-metrics-frequency): GPU and memory
// utilization, memory used, power, SM and memory clocks, temperature, PCIe throughput.
// libnvidia-ml.so.1 is loaded at run time (dlopen), so Sightline runs where no driver is
// installed; when NVML or a metric is unavailable, start() / the diagnostics say why and the
// capture goes on. Runs in the launcher: one sampling thread; samples stay in memory until
// addTo() after stop().
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "capture/cupti/CudaSink.h"
#include "model/core/Result.h"

namespace sl::cuda {

struct GpuMetricsOptions {
    bool all = false;          // --gpu-metrics-devices=all
    std::vector<int> devices;  // explicit NVML indices; empty and !all means none
    double frequencyHz = 10;   // --gpu-metrics-frequency
    std::string library = "libnvidia-ml.so.1";
    bool enabled() const { return all || !devices.empty(); }
};

// "none", "all" or a comma-separated list of device indices ("0,2").
Result<GpuMetricsOptions> parseGpuMetricsDevices(std::string_view text);
// NVML is read at most this often: its counters change about every 1/6 s, and each read of every
// metric takes tens of microseconds of the launcher's CPU.
constexpr double kMaxGpuMetricsHz = 10000;
// Hz in [1, 200000] (nsys's range); rates above kMaxGpuMetricsHz are sampled at that rate.
Result<double> parseGpuMetricsFrequency(std::string_view text);

class NvmlSampler {
public:
    explicit NvmlSampler(GpuMetricsOptions options);
    ~NvmlSampler();
    NvmlSampler(const NvmlSampler&) = delete;
    NvmlSampler& operator=(const NvmlSampler&) = delete;

    // Loads NVML, opens the devices, probes every metric and starts sampling. An error says
    // why GPU metrics are unavailable ("libnvidia-ml.so.1 not found: ...").
    Status start();
    // Takes one sample of every metric now (also used by the thread).
    void sampleOnce();
    void stop();
    // Adds GPUs, series, the samples taken in [t0, t1) and diagnostics to the sink; the samples
    // stay (a capture with several ranges makes one report per range). `cudaGpus` (may be
    // empty) maps NVML devices to CUDA device ids by UUID, so metrics sit with the GPU rows of
    // the CUDA capture. Call after stop().
    void addTo(CudaSink& sink, const std::vector<Gpu>& cudaGpus = {}, int64_t t0 = INT64_MIN,
               int64_t t1 = INT64_MAX) const;

    size_t seriesCount() const { return m_series.size(); }
    size_t sampleCount() const;

private:
    struct Api;
    struct Series {
        unsigned device;  // NVML index
        int metric;       // index into the metric table
        MetricSeries info;
    };
    struct Device {
        unsigned index;
        void* handle;
        Gpu gpu;
    };
    bool read(const Device& d, int metric, double& value) const;
    void run();

    GpuMetricsOptions m_options;
    Api* m_api = nullptr;
    void* m_lib = nullptr;
    bool m_initialized = false;
    std::vector<Device> m_devices;
    std::vector<Series> m_series;
    std::vector<std::pair<std::string, std::string>> m_unsupported;  // metric label, reason
    mutable std::mutex m_mutex;                                      // guards m_samples
    std::vector<MetricSample> m_samples;  // series = index into m_series + 1
    uint64_t m_ticks = 0;
    std::thread m_thread;
    std::mutex m_stopMutex;
    std::condition_variable m_stopCv;
    bool m_stopping = false;
};

}  // namespace sl::cuda
