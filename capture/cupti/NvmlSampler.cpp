#include "capture/cupti/NvmlSampler.h"

#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>

namespace sl::cuda {
namespace {

// The few NVML declarations we use (nvml.h is not part of the CUDA toolkit install).
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
struct nvmlUtilization_t {
    unsigned int gpu, memory;
};
struct nvmlMemory_t {
    unsigned long long total, free, used;
};
struct nvmlPciInfo_t {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
};
constexpr int NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2;
constexpr int NVML_TEMPERATURE_GPU = 0;
constexpr int NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1;

int64_t monotonicNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

enum Metric {
    GpuUtil,
    MemUtil,
    MemUsed,
    Power,
    SmClock,
    MemClock,
    Temperature,
    PcieTx,
    PcieRx,
    kMetricCount
};
struct MetricDef {
    const char* name;
    const char* unit;
};
constexpr MetricDef kMetrics[kMetricCount] = {
    {"GPU utilization", "%"}, {"Memory utilization", "%"}, {"Memory used", "bytes"},
    {"Power", "W"},           {"SM clock", "MHz"},         {"Memory clock", "MHz"},
    {"Temperature", "C"},     {"PCIe TX", "bytes/s"},      {"PCIe RX", "bytes/s"},
};
// NVML measures PCIe throughput over a 20 ms window per call: sample it at most every 100 ms.
constexpr int64_t kPcieMinPeriodNs = 100'000'000;

}  // namespace

struct NvmlSampler::Api {
    nvmlReturn_t (*init)();
    nvmlReturn_t (*shutdown)();
    const char* (*errorString)(nvmlReturn_t);
    nvmlReturn_t (*getCount)(unsigned int*);
    nvmlReturn_t (*getHandle)(unsigned int, nvmlDevice_t*);
    nvmlReturn_t (*getName)(nvmlDevice_t, char*, unsigned int);
    nvmlReturn_t (*getUuid)(nvmlDevice_t, char*, unsigned int);
    nvmlReturn_t (*getPci)(nvmlDevice_t, nvmlPciInfo_t*);
    nvmlReturn_t (*getUtil)(nvmlDevice_t, nvmlUtilization_t*);
    nvmlReturn_t (*getMemory)(nvmlDevice_t, nvmlMemory_t*);
    nvmlReturn_t (*getPower)(nvmlDevice_t, unsigned int*);
    nvmlReturn_t (*getClock)(nvmlDevice_t, int, unsigned int*);
    nvmlReturn_t (*getTemperature)(nvmlDevice_t, int, unsigned int*);
    nvmlReturn_t (*getPcie)(nvmlDevice_t, int, unsigned int*);
};

Result<GpuMetricsOptions> parseGpuMetricsDevices(std::string_view text) {
    GpuMetricsOptions o;
    if (text == "none") return o;
    if (text == "all") {
        o.all = true;
        return o;
    }
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t comma = text.find(',', pos);
        std::string_view item = text.substr(
            pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
        int v = -1;
        auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || ec != std::errc() || end != item.data() + item.size() || v < 0)
            return makeError("--gpu-metrics-devices: '" + std::string(text) +
                             "' is not 'none', 'all' or a comma-separated list of GPU indices");
        o.devices.push_back(v);
        if (comma == std::string_view::npos) break;
        pos = comma + 1;
    }
    return o;
}

Result<double> parseGpuMetricsFrequency(std::string_view text) {
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !(v >= 1 && v <= 200000))
        return makeError("--gpu-metrics-frequency: '" + std::string(text) +
                         "' is not a rate in Hz between 1 and 200000");
    return v;
}

NvmlSampler::NvmlSampler(GpuMetricsOptions options) : m_options(std::move(options)) {}

NvmlSampler::~NvmlSampler() {
    stop();
    if (m_initialized) m_api->shutdown();
    if (m_lib) dlclose(m_lib);
    delete m_api;
}

Status NvmlSampler::start() {
    // Step 1: load NVML and resolve its entry points.
    m_lib = dlopen(m_options.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!m_lib) {
        const char* e = dlerror();
        return makeError(m_options.library +
                         " could not be loaded (no NVIDIA driver?): " + (e ? e : "unknown error"));
    }
    m_api = new Api{};
    bool missing = false;
    std::string missingName;
    auto sym = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(m_lib, name));
        if (!fn && !missing) {
            missing = true;
            missingName = name;
        }
    };
    sym(m_api->init, "nvmlInit_v2");
    sym(m_api->shutdown, "nvmlShutdown");
    sym(m_api->errorString, "nvmlErrorString");
    sym(m_api->getCount, "nvmlDeviceGetCount_v2");
    sym(m_api->getHandle, "nvmlDeviceGetHandleByIndex_v2");
    sym(m_api->getName, "nvmlDeviceGetName");
    sym(m_api->getUuid, "nvmlDeviceGetUUID");
    sym(m_api->getPci, "nvmlDeviceGetPciInfo_v3");
    sym(m_api->getUtil, "nvmlDeviceGetUtilizationRates");
    sym(m_api->getMemory, "nvmlDeviceGetMemoryInfo");
    sym(m_api->getPower, "nvmlDeviceGetPowerUsage");
    sym(m_api->getClock, "nvmlDeviceGetClockInfo");
    sym(m_api->getTemperature, "nvmlDeviceGetTemperature");
    sym(m_api->getPcie, "nvmlDeviceGetPcieThroughput");
    if (missing) return makeError(m_options.library + " lacks " + missingName + " (NVML too old)");

    // Step 2: initialize and open the requested devices.
    nvmlReturn_t rc = m_api->init();
    if (rc != NVML_SUCCESS)
        return makeError(std::string("nvmlInit failed: ") + m_api->errorString(rc));
    m_initialized = true;
    unsigned int count = 0;
    rc = m_api->getCount(&count);
    if (rc != NVML_SUCCESS)
        return makeError(std::string("nvmlDeviceGetCount failed: ") + m_api->errorString(rc));
    std::vector<unsigned> wanted;
    if (m_options.all) {
        for (unsigned i = 0; i < count; ++i) wanted.push_back(i);
    } else {
        for (int d : m_options.devices) {
            if (static_cast<unsigned>(d) >= count)
                return makeError("--gpu-metrics-devices: GPU " + std::to_string(d) +
                                 " does not exist (NVML sees " + std::to_string(count) + ")");
            wanted.push_back(static_cast<unsigned>(d));
        }
    }
    if (wanted.empty()) return makeError("NVML sees no GPU");
    for (unsigned i : wanted) {
        Device d{i, nullptr, {}};
        rc = m_api->getHandle(i, &d.handle);
        if (rc != NVML_SUCCESS) {
            // One GPU this process may not read (another container's, no permission) leaves
            // the others sampled; the report says which and why.
            m_unsupported.emplace_back("all metrics", "GPU " + std::to_string(i) +
                                                          ": NVML cannot open it: " +
                                                          m_api->errorString(rc));
            continue;
        }
        char buf[96] = {};
        d.gpu.deviceId = static_cast<int32_t>(i);
        if (m_api->getName(d.handle, buf, sizeof buf) == NVML_SUCCESS) d.gpu.name = buf;
        std::memset(buf, 0, sizeof buf);
        if (m_api->getUuid(d.handle, buf, sizeof buf) == NVML_SUCCESS) d.gpu.uuid = buf;
        nvmlPciInfo_t pci{};
        if (m_api->getPci(d.handle, &pci) == NVML_SUCCESS)
            d.gpu.pciBusId.assign(pci.busId, strnlen(pci.busId, sizeof pci.busId));
        nvmlMemory_t mem{};
        if (m_api->getMemory(d.handle, &mem) == NVML_SUCCESS)
            d.gpu.memoryBytes = static_cast<int64_t>(mem.total);
        m_devices.push_back(d);
    }
    if (m_devices.empty())
        return makeError("NVML cannot open any of the GPUs asked for (" +
                         m_unsupported.front().second + ")");
    // Step 3: keep the metrics each device answers; say why the others are left out.
    for (const auto& d : m_devices) {
        for (int m = 0; m < kMetricCount; ++m) {
            double v;
            if (!read(d, m, v)) {
                m_unsupported.emplace_back(
                    kMetrics[m].name, "GPU " + std::to_string(d.index) + ": NVML does not report " +
                                          kMetrics[m].name + " on this GPU or without privileges");
                continue;
            }
            MetricSeries s;
            s.seriesId = static_cast<uint32_t>(m_series.size() + 1);
            s.name = kMetrics[m].name;
            s.unit = kMetrics[m].unit;
            s.source = "nvml";
            s.deviceId = static_cast<int32_t>(d.index);
            m_series.push_back({d.index, m, s});
        }
    }
    // Step 4: sample on a thread.
    sampleOnce();
    m_thread = std::thread([this] { run(); });
    return {};
}

bool NvmlSampler::read(const Device& d, int metric, double& value) const {
    unsigned int u = 0;
    switch (metric) {
        case GpuUtil:
        case MemUtil: {
            nvmlUtilization_t util{};
            if (m_api->getUtil(d.handle, &util) != NVML_SUCCESS) return false;
            value = metric == GpuUtil ? util.gpu : util.memory;
            return true;
        }
        case MemUsed: {
            nvmlMemory_t mem{};
            if (m_api->getMemory(d.handle, &mem) != NVML_SUCCESS) return false;
            value = static_cast<double>(mem.used);
            return true;
        }
        case Power:
            if (m_api->getPower(d.handle, &u) != NVML_SUCCESS) return false;
            value = u / 1000.0;  // mW
            return true;
        case SmClock:
        case MemClock:
            if (m_api->getClock(d.handle, metric == SmClock ? NVML_CLOCK_SM : NVML_CLOCK_MEM, &u) !=
                NVML_SUCCESS)
                return false;
            value = u;
            return true;
        case Temperature:
            if (m_api->getTemperature(d.handle, NVML_TEMPERATURE_GPU, &u) != NVML_SUCCESS)
                return false;
            value = u;
            return true;
        case PcieTx:
        case PcieRx:
            if (m_api->getPcie(d.handle,
                               metric == PcieTx ? NVML_PCIE_UTIL_TX_BYTES : NVML_PCIE_UTIL_RX_BYTES,
                               &u) != NVML_SUCCESS)
                return false;
            value = u * 1024.0;  // KB/s
            return true;
    }
    return false;
}

void NvmlSampler::sampleOnce() {
    if (m_series.empty()) return;
    int64_t period = static_cast<int64_t>(1e9 / m_options.frequencyHz);
    int64_t pcieEvery = std::max<int64_t>(1, (kPcieMinPeriodNs + period - 1) / period);
    bool pcie = m_ticks++ % static_cast<uint64_t>(pcieEvery) == 0;
    std::vector<MetricSample> batch;
    batch.reserve(m_series.size());
    for (size_t i = 0; i < m_series.size(); ++i) {
        const Series& s = m_series[i];
        if ((s.metric == PcieTx || s.metric == PcieRx) && !pcie) continue;
        const Device* d = nullptr;
        for (const auto& x : m_devices)
            if (x.index == s.device) d = &x;
        double v;
        if (d && read(*d, s.metric, v))
            batch.push_back({static_cast<uint32_t>(i + 1), monotonicNs(), v});
    }
    std::lock_guard lock(m_mutex);
    m_samples.insert(m_samples.end(), batch.begin(), batch.end());
}

void NvmlSampler::run() {
    auto period = std::chrono::nanoseconds(static_cast<int64_t>(1e9 / m_options.frequencyHz));
    auto next = std::chrono::steady_clock::now() + period;
    std::unique_lock lock(m_stopMutex);
    while (!m_stopCv.wait_until(lock, next, [this] { return m_stopping; })) {
        lock.unlock();
        sampleOnce();
        lock.lock();
        next += period;
        auto now = std::chrono::steady_clock::now();
        if (next < now) next = now + period;  // a slow NVML call: skip ticks rather than burst
    }
}

void NvmlSampler::stop() {
    {
        std::lock_guard lock(m_stopMutex);
        m_stopping = true;
    }
    m_stopCv.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

size_t NvmlSampler::sampleCount() const {
    std::lock_guard lock(m_mutex);
    return m_samples.size();
}

void NvmlSampler::addTo(CudaSink& sink, const std::vector<Gpu>& cudaGpus, int64_t t0,
                        int64_t t1) const {
    // Step 1: NVML index -> CUDA device id by UUID (NVML and CUDA may order GPUs differently);
    // GPUs the CUDA capture did not see get the lowest ids no CUDA GPU uses.
    std::vector<int32_t> ids(m_devices.size(), -1);
    std::vector<int32_t> used;
    for (const auto& g : cudaGpus) used.push_back(g.deviceId);
    for (size_t i = 0; i < m_devices.size(); ++i)
        for (const auto& g : cudaGpus)
            if (!m_devices[i].gpu.uuid.empty() && g.uuid == m_devices[i].gpu.uuid)
                ids[i] = g.deviceId;
    for (size_t i = 0; i < m_devices.size(); ++i) {
        if (ids[i] >= 0) continue;
        int32_t id = cudaGpus.empty() ? m_devices[i].gpu.deviceId : 0;
        while (std::find(used.begin(), used.end(), id) != used.end()) ++id;
        ids[i] = id;
        used.push_back(id);
    }
    auto cudaId = [&](const Device& d) { return ids[static_cast<size_t>(&d - m_devices.data())]; };
    for (const auto& d : m_devices) {
        Gpu g = d.gpu;
        g.deviceId = cudaId(d);
        sink.addGpu(g);
    }
    for (const auto& s : m_series) {
        MetricSeries info = s.info;
        for (const auto& d : m_devices)
            if (d.index == s.device) info.deviceId = cudaId(d);
        sink.addSeries(info);
    }
    for (const auto& [metric, reason] : m_unsupported)
        sink.addDiagnostic("gpu_metrics.unsupported", 1, reason, 0);
    std::lock_guard lock(m_mutex);
    for (const auto& m : m_samples)
        if (m.time >= t0 && m.time < t1) sink.add(m);
}

}  // namespace sl::cuda
