#include "model/gen/SyntheticGenerator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <map>
#include <vector>

#include "model/core/ReportBuilder.h"

namespace sl {

namespace {

// splitmix64: portable and deterministic, unlike std:: distributions.
class Rng {
public:
    explicit Rng(uint64_t seed) : m_s(seed * 0x9E3779B97F4A7C15ULL + 1) {}
    uint64_t next() {
        uint64_t z = (m_s += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
    int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(uniform() * static_cast<double>(hi - lo)); }
    // Multiplicative jitter around 1 (roughly log-normal).
    double jitter(double spread) { return std::exp((uniform() + uniform() + uniform() - 1.5) * spread); }

private:
    uint64_t m_s;
};

struct KernelShape {
    const char* demangled;
    const char* mangled;
    int64_t meanNs;
    uint32_t grid, block, regs, smem;
};

constexpr KernelShape kKernels[] = {
    {"ampere_sgemm_128x64_tn", "ampere_sgemm_128x64_tn", 180'000, 432, 256, 122, 16384},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
     "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEENS_6detail5ArrayIPcLi3EEEEEviT0_T1_",
     9'000, 1024, 128, 24, 0},
    {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*)",
     "_ZN5cudnn19bn_fw_tr_1C11_kernel_NCHWIffiLi512ELb1ELi1EEEv17cudnnTensorStructPKf", 45'000, 256, 512, 40, 8192},
    {"void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10, false>(float*, float const*, int, int, int)",
     "_ZN2at6native12_GLOBAL__N_120softmax_warp_forwardIfffLi10ELb0EEEvPT0_PKT_iii", 22'000, 512, 128, 32, 0},
    {"sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
     "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
     320'000, 264, 128, 232, 65536},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float> > >(at::native::ReduceOp<float, at::native::MeanOps<float, float> >)",
     "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIffEEEEEEvT1_", 14'000, 128, 512, 30, 4096},
    {"nchwToNhwcKernel", "_Z16nchwToNhwcKernelPKfPfiiii", 6'000, 2048, 256, 18, 0},
    {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::half_t> >(Flash_fwd_params)",
     "_Z16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi128ELi128ELi64ELi4ELb0ELb0EN7cutlass6half_tEEEv16Flash_fwd_params",
     410'000, 216, 128, 255, 98304},
};
constexpr int kKernelCount = sizeof(kKernels) / sizeof(kKernels[0]);
constexpr const char* kLayerNames[] = {"embedding", "attention", "mlp", "layernorm", "attention", "mlp"};

// Where generated events go: the builder or a streaming writer.
using Sink = std::function<void(const TrackKey&, int64_t start, int64_t end, uint32_t name, const int64_t* extra)>;

struct Pending {
    TrackKey key;
    int64_t start, end;
    uint32_t name;
    int64_t extra[8];
};

class Generator {
public:
    Generator(const GeneratorOptions& o, Report& meta, std::function<uint32_t(std::string_view)> intern,
              std::function<uint32_t(const KernelLaunchInfo&)> launchId)
        : m_o(o), m_meta(meta), m_intern(std::move(intern)), m_launchId(std::move(launchId)) {}

    GeneratorStats run(const Sink& sink);

private:
    void metadata();
    void thread(int t, uint64_t budget, const Sink& sink);
    void flush(const Sink& sink);

    const GeneratorOptions& m_o;
    Report& m_meta;
    std::function<uint32_t(std::string_view)> m_intern;
    std::function<uint32_t(const KernelLaunchInfo&)> m_launchId;
    GeneratorStats m_stats;
    std::vector<Pending> m_pending;
    uint32_t m_correlation = 1;
    int64_t m_t0 = 1'000'000'000'000;  // 1000 s on the monotonic clock
};

void Generator::metadata() {
    Session& s = m_meta.session;
    s.argv = {"python3", "train.py", "--synthetic"};
    s.workingDirectory = "/workspace";
    s.hostName = "synthetic-host";
    s.os = "Linux";
    s.cpuModel = "Synthetic CPU";
    s.toolVersion = "0.1.0";
    s.source = "generated";
    s.captureOptions = "generated: events=" + std::to_string(m_o.events) + " seed=" + std::to_string(m_o.seed);
    s.startUtcNs = 1'780'000'000'000'000'000;
    s.startMonotonicNs = m_t0;
    Process p;
    p.pid = m_o.pid;
    p.parentPid = 1;
    p.name = "python3";
    p.commandLine = "python3 train.py --synthetic";
    p.start = m_t0;
    p.mpiRank = m_o.mpiRank;
    m_meta.processes.push_back(p);
    for (int g = 0; g < m_o.gpus; ++g) {
        Gpu gpu;
        gpu.deviceId = g;
        gpu.name = "Synthetic GPU (H100-like)";
        gpu.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(g);
        gpu.pciBusId = "0000:0" + std::to_string(g + 1) + ":00.0";
        gpu.smCount = 132;
        gpu.memoryBytes = 80LL << 30;
        gpu.computeMajor = 9;
        gpu.computeMinor = 0;
        gpu.smClockKHz = 1'980'000;
        gpu.memoryClockKHz = 2'619'000;
        m_meta.gpus.push_back(gpu);
        m_meta.contexts.push_back({m_o.pid, g, static_cast<uint32_t>(g + 1), ""});
        MetricSeries ms;
        ms.seriesId = static_cast<uint32_t>(g + 1);
        ms.name = "GPU utilization";
        ms.unit = "%";
        ms.source = "generated";
        ms.deviceId = g;
        m_meta.metricSeries.push_back(ms);
    }
    m_meta.nvtxDomains.push_back({m_o.pid, 0, ""});
    m_meta.nvtxDomains.push_back({m_o.pid, 1, "data"});
}

void Generator::flush(const Sink& sink) {
    std::stable_sort(m_pending.begin(), m_pending.end(), [](const Pending& a, const Pending& b) {
        if (a.key != b.key) return a.key < b.key;
        if (a.start != b.start) return a.start < b.start;
        return a.end > b.end;
    });
    for (const auto& p : m_pending) sink(p.key, p.start, p.end, p.name, p.extra);
    m_pending.clear();
}

void Generator::thread(int t, uint64_t budget, const Sink& sink) {
    Rng rng(m_o.seed * 1000003ULL + static_cast<uint64_t>(t));
    const int64_t pid = m_o.pid;
    const int64_t tid = pid + 1 + t;
    const int32_t device = t % std::max(1, m_o.gpus);
    const uint32_t context = static_cast<uint32_t>(device + 1);
    Thread th;
    th.pid = pid;
    th.tid = tid;
    th.name = t == 0 ? "python3" : "worker-" + std::to_string(t);
    th.start = m_t0;
    m_meta.threads.push_back(th);
    std::vector<uint32_t> streams;
    for (int s = 0; s < m_o.streamsPerThread; ++s) {
        uint32_t id = static_cast<uint32_t>(7 + t * m_o.streamsPerThread + s);
        streams.push_back(id);
        CudaStream cs;
        cs.pid = pid;
        cs.deviceId = device;
        cs.contextId = context;
        cs.streamId = id;
        cs.name = s == 0 ? "compute-" + std::to_string(t) : "copy-" + std::to_string(t);
        m_meta.streams.push_back(cs);
    }
    std::vector<int64_t> streamFree(streams.size(), m_t0);

    const uint32_t nLaunch = m_intern("cudaLaunchKernel");
    const uint32_t nMemcpy = m_intern("cudaMemcpyAsync");
    const uint32_t nSync = m_intern("cudaStreamSynchronize");
    uint32_t kernelName[kKernelCount], kernelLaunch[kKernelCount];
    for (int k = 0; k < kKernelCount; ++k) {
        kernelName[k] = m_intern(kKernels[k].demangled);
        KernelLaunchInfo li;
        li.mangledName = m_intern(kKernels[k].mangled);
        li.shortName = kernelName[k];
        li.grid[0] = kKernels[k].grid; li.grid[1] = li.grid[2] = 1;
        li.block[0] = kKernels[k].block; li.block[1] = li.block[2] = 1;
        li.registersPerThread = kKernels[k].regs;
        li.staticSharedBytes = kKernels[k].smem;
        kernelLaunch[k] = m_launchId(li);
    }
    const uint32_t nStep = m_intern("train_step");
    const uint32_t nFwd = m_intern("forward");
    const uint32_t nBwd = m_intern("backward");
    const uint32_t nLoad = m_intern("load_batch");
    uint32_t nLayer[6];
    for (int i = 0; i < 6; ++i) nLayer[i] = m_intern(kLayerNames[i]);

    auto push = [&](const TrackKey& key, int64_t s, int64_t e, uint32_t name, std::initializer_list<int64_t> x) {
        Pending p{key, s, e, name, {}};
        size_t i = 0;
        for (int64_t v : x) p.extra[i++] = v;
        m_pending.push_back(p);
        ++m_stats.events;
    };
    const TrackKey apiKey = TrackKey::forThread(EventKind::CudaApi, pid, tid);
    const TrackKey nvtxKey = TrackKey::forThread(EventKind::NvtxRange, pid, tid);
    const TrackKey dataKey = TrackKey::forThread(EventKind::NvtxRange, pid, tid, 1);
    auto nvtx = [&](const TrackKey& key, int64_t s, int64_t e, uint32_t name, uint32_t color) {
        push(key, s, e, name, {0, color, 0, 0, 0, 0});
        ++m_stats.nvtxRanges;
    };
    // One API call plus the GPU operation it launches.
    int64_t now = m_t0 + rng.range(10'000, 500'000) + t * 37'000;
    auto launch = [&](int k, size_t s) {
        const int64_t apiStart = now;
        const int64_t apiEnd = apiStart + static_cast<int64_t>(4'000 * rng.jitter(0.4));
        const uint32_t corr = m_correlation++;
        push(apiKey, apiStart, apiEnd, nLaunch, {corr, 211, 0, 0});
        ++m_stats.apiCalls;
        const int64_t kStart = std::max(apiEnd + 2'500, streamFree[s]) + rng.range(0, 1'500);
        const int64_t kEnd = kStart + static_cast<int64_t>(static_cast<double>(kKernels[k].meanNs) * rng.jitter(0.3));
        streamFree[s] = kEnd;
        push(TrackKey::forStream(EventKind::Kernel, pid, device, context, streams[s]), kStart, kEnd, kernelName[k],
             {corr, kernelLaunch[k]});
        ++m_stats.kernels;
        now = apiEnd + rng.range(500, 3'000);
    };
    auto copy = [&](CopyKind kind, uint64_t bytes, size_t s) {
        const int64_t apiStart = now;
        const int64_t apiEnd = apiStart + static_cast<int64_t>(6'000 * rng.jitter(0.4));
        const uint32_t corr = m_correlation++;
        push(apiKey, apiStart, apiEnd, nMemcpy, {corr, 41, 0, 0});
        ++m_stats.apiCalls;
        const int64_t cStart = std::max(apiEnd + 3'000, streamFree[s]);
        const int64_t cEnd = cStart + static_cast<int64_t>(static_cast<double>(bytes) / 25.0);  // ~25 GB/s
        streamFree[s] = cEnd;
        const auto src = kind == CopyKind::HtoD ? MemoryKind::Pinned : MemoryKind::Device;
        const auto dst = kind == CopyKind::HtoD ? MemoryKind::Device : MemoryKind::Pinned;
        push(TrackKey::forStream(EventKind::Memcpy, pid, device, context, streams[s]), cStart, cEnd, 0,
             {corr, static_cast<int64_t>(bytes), static_cast<int64_t>(kind), static_cast<int64_t>(src),
              static_cast<int64_t>(dst), device, device, 1});
        now = apiEnd + rng.range(500, 2'000);
    };

    uint64_t produced = 0;
    for (uint64_t step = 0; produced < budget; ++step) {
        const uint64_t before = m_stats.events;
        const int64_t stepStart = now;
        // Data loading: an NVTX range in the "data" domain, then the input copy.
        const int64_t loadEnd = now + static_cast<int64_t>(80'000 * rng.jitter(0.5));
        nvtx(dataKey, now, loadEnd, nLoad, 0xFF4CAF50);
        now = loadEnd + 1'000;
        copy(CopyKind::HtoD, 4u << 20, streams.size() > 1 ? 1 : 0);
        // Forward and backward: per-layer nested ranges with kernels inside.
        for (int phase = 0; phase < 2; ++phase) {
            const int64_t phaseStart = now;
            now += 1'000;
            for (int layer = 0; layer < 6; ++layer) {
                const int64_t layerStart = now;
                now += 500;
                const int launches = 2 + static_cast<int>(rng.range(0, 4));
                for (int i = 0; i < launches; ++i) launch(static_cast<int>(rng.range(0, kKernelCount)), 0);
                nvtx(nvtxKey, layerStart, now, nLayer[layer], 0);
                now += 800;
            }
            nvtx(nvtxKey, phaseStart, now, phase == 0 ? nFwd : nBwd, phase == 0 ? 0xFF2196F3 : 0xFFFF9800);
            now += 1'000;
        }
        // Loss back to the host, then a synchronize that waits for the GPU.
        copy(CopyKind::DtoH, 4096, 0);
        {
            const int64_t apiStart = now;
            const int64_t apiEnd = std::max(now + 3'000, streamFree[0] + 4'000);
            push(apiKey, apiStart, apiEnd, nSync, {m_correlation++, 131, 0, 0});
            ++m_stats.apiCalls;
            now = apiEnd;
        }
        nvtx(nvtxKey, stepStart, now + 500, nStep, 0xFF9C27B0);
        now += 500 + rng.range(20'000, 200'000) + m_o.extraHostGapNs;  // host-side gap: the GPU idles
        produced += m_stats.events - before;
        if (m_pending.size() > 65536) flush(sink);
    }
    flush(sink);
    m_meta.threads.back().end = now;
}

GeneratorStats Generator::run(const Sink& sink) {
    metadata();
    // Metric samples take about 1% of the budget; the rest is split across threads.
    const uint64_t metricBudget = m_o.events / 100;
    const uint64_t perThread = (m_o.events - metricBudget) / static_cast<uint64_t>(std::max(1, m_o.threads));
    for (int t = 0; t < m_o.threads; ++t) thread(t, perThread, sink);
    int64_t end = m_t0;
    for (const auto& th : m_meta.threads) end = std::max(end, th.end);
    const uint64_t perSeries = metricBudget / static_cast<uint64_t>(std::max(1, m_o.gpus));
    if (perSeries > 0) {
        for (int g = 0; g < m_o.gpus; ++g) {
            Rng rng(m_o.seed * 7919ULL + static_cast<uint64_t>(g));
            const int64_t period = std::max<int64_t>(1, (end - m_t0) / static_cast<int64_t>(perSeries));
            double value = 50;
            for (uint64_t i = 0; i < perSeries; ++i) {
                value = std::clamp(value + (rng.uniform() - 0.5) * 20, 0.0, 100.0);
                int64_t x[] = {std::bit_cast<int64_t>(value)};
                sink(TrackKey::forMetric(static_cast<uint32_t>(g + 1)), m_t0 + static_cast<int64_t>(i) * period, 0, 0, x);
                ++m_stats.events;
            }
        }
    }
    m_meta.session.durationNs = end - m_t0;
    m_meta.processes[0].end = end;
    return m_stats;
}

}  // namespace

std::shared_ptr<Report> generateReport(const GeneratorOptions& options, GeneratorStats* stats) {
    ReportBuilder b;
    Generator g(options, b.report(), [&](std::string_view s) { return b.intern(s); },
                [&](const KernelLaunchInfo& li) { return b.launchId(li); });
    GeneratorStats st = g.run([&](const TrackKey& k, int64_t s, int64_t e, uint32_t n, const int64_t* x) {
        b.addRaw(k, s, e, n, x);
    });
    if (stats) *stats = st;
    return b.finish();
}

Result<GeneratorStats> generateReportFile(const GeneratorOptions& options, const std::string& path,
                                          const WriteOptions& writeOptions) {
    auto created = RepWriter::create(path, writeOptions);
    if (!created) return std::move(created).takeError();
    RepWriter& w = **created;
    Report meta;
    std::map<TrackKey, RepWriter::TrackStream*> streams;
    std::unordered_map<KernelLaunchInfo, uint32_t, KernelLaunchInfoHash> launches;
    Status failed;
    Generator g(options, meta, [&](std::string_view s) { return meta.strings.intern(s); },
                [&](const KernelLaunchInfo& li) {
                    auto [it, inserted] = launches.try_emplace(li, static_cast<uint32_t>(meta.kernelLaunches.size()));
                    if (inserted) meta.kernelLaunches.push_back(li);
                    return it->second;
                });
    GeneratorStats st = g.run([&](const TrackKey& k, int64_t s, int64_t e, uint32_t n, const int64_t* x) {
        if (!failed) return;
        auto it = streams.find(k);
        if (it == streams.end()) it = streams.emplace(k, &w.beginTrack(k)).first;
        if (Status a = w.append(*it->second, s, e, n, x); !a) failed = a;
    });
    if (!failed) return makeError(failed.error());
    if (Status c = w.commit(meta); !c) return makeError(c.error());
    return st;
}

}  // namespace sl
