#include "tests/gpu/GpuCaptureCheck.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

namespace sl::gpucheck {

Result<Expectations> Expectations::parse(const std::string& text, const std::string& name) {
    Expectations e;
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line[0] == '#') continue;
        size_t eq = line.find('=');
        if (eq == std::string::npos || eq == 0)
            return makeError(name + ":" + std::to_string(n) + ": expected key=value, got '" + line +
                             "'");
        e.m_kv[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return e;
}

Result<Expectations> Expectations::read(const std::string& path) {
    std::ifstream in(path);
    if (!in) return makeError(path + ": cannot open the expectations file");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse(ss.str(), path);
}

int64_t Expectations::num(const std::string& key, int64_t fallback) const {
    auto it = m_kv.find(key);
    return it == m_kv.end() ? fallback : std::stoll(it->second);
}

std::vector<std::string> Expectations::list(const std::string& key) const {
    std::vector<std::string> out;
    auto it = m_kv.find(key);
    if (it == m_kv.end()) return out;
    std::stringstream ss(it->second);
    std::string item;
    while (std::getline(ss, item, ',')) out.push_back(item);
    return out;
}

namespace {

struct Op {
    int64_t start, end;
    EventKind kind;
    int64_t correlation;  // a graph launch's nodes share their launch's
};

class Checker {
public:
    Checker(const Report& r, CheckResult& out) : m_r(r), m_out(out) {}

    void expect(bool ok, const std::string& what) {
        (ok ? m_out.passed : m_out.failed).push_back(what);
    }
    void equal(int64_t got, int64_t want, const std::string& what) {
        expect(got == want,
               what + ": captured " + std::to_string(got) + ", expected " + std::to_string(want));
    }

    int64_t count(EventKind k) const { return static_cast<int64_t>(m_r.eventCount(k)); }

    int64_t memcpyBytes(CopyKind kind) const {
        int64_t sum = 0;
        for (const Track* t : m_r.tracksOfKind(EventKind::Memcpy))
            for (size_t i = 0; i < t->size(); ++i)
                if (t->intAt(cols::Memcpy::CopyKind, i) == int64_t(kind))
                    sum += t->intAt(cols::Memcpy::Bytes, i);
        return sum;
    }

    int64_t memsetBytes() const {
        int64_t sum = 0;
        for (const Track* t : m_r.tracksOfKind(EventKind::Memset))
            for (size_t i = 0; i < t->size(); ++i) sum += t->intAt(cols::Memset::Bytes, i);
        return sum;
    }

    // Every kernel has the API call that launched it (same process and correlation id), and the
    // call started before the kernel.
    void kernelsHaveApiCalls() {
        std::unordered_map<int64_t, std::unordered_map<uint32_t, int64_t>>
            apiStart;  // pid -> corr -> start
        for (const Track* t : m_r.tracksOfKind(EventKind::CudaApi))
            for (size_t i = 0; i < t->size(); ++i)
                apiStart[t->key.pid]
                        [static_cast<uint32_t>(t->intAt(cols::CudaApi::Correlation, i))] =
                            t->start[i];
        int64_t kernels = 0, missing = 0, late = 0;
        for (const Track* t : m_r.tracksOfKind(EventKind::Kernel)) {
            for (size_t i = 0; i < t->size(); ++i) {
                ++kernels;
                auto& calls = apiStart[t->key.pid];
                auto it = calls.find(static_cast<uint32_t>(t->intAt(cols::Kernel::Correlation, i)));
                if (it == calls.end())
                    ++missing;
                else if (!(it->second < t->start[i]))
                    ++late;
            }
        }
        expect(kernels > 0 && missing == 0,
               "every kernel has its API call: " + std::to_string(missing) + " of " +
                   std::to_string(kernels) + " kernels without one");
        expect(kernels > 0 && late == 0,
               "API call starts before its kernel: " + std::to_string(late) + " of " +
                   std::to_string(kernels) + " kernels start first");
    }

    static int correlationColumn(EventKind k) {
        switch (k) {
            case EventKind::Memcpy: return cols::Memcpy::Correlation;
            case EventKind::Memset: return cols::Memset::Correlation;
            default: return cols::Kernel::Correlation;
        }
    }

    // The correlation ids of graph launches (cudaGraphLaunch, cuGraphLaunch), per process.
    std::set<std::pair<int64_t, int64_t>> graphLaunches() const {
        std::set<std::pair<int64_t, int64_t>> out;
        for (const Track* t : m_r.tracksOfKind(EventKind::CudaApi))
            for (size_t i = 0; i < t->size(); ++i)
                if (m_r.str(t->name[i]).find("GraphLaunch") != std::string_view::npos)
                    out.insert({t->key.pid, t->intAt(cols::CudaApi::Correlation, i)});
        return out;
    }

    std::map<TrackKey, std::vector<Op>> opsByStream() const {
        std::map<TrackKey, std::vector<Op>> streams;
        for (EventKind k : {EventKind::Kernel, EventKind::Memcpy, EventKind::Memset}) {
            for (const Track* t : m_r.tracksOfKind(k)) {
                TrackKey s = t->key;
                s.kind = EventKind::Kernel;  // one key per stream whatever the kind
                for (size_t i = 0; i < t->size(); ++i)
                    streams[s].push_back({t->start[i], t->endAt(i), k, t->intAt(correlationColumn(k), i)});
            }
        }
        return streams;
    }

    // A stream runs its work in order: sorted by start, each operation starts after every one
    // before it ended. Nodes of one graph launch are ordered by the graph's edges, not by the
    // stream: two of them may overlap (on an H200, 29 of 958,464 chained empty-kernel nodes
    // started up to 1.4 us before the node before them ended), so an operation that overlaps
    // only nodes of its own graph launch is counted and shown, not failed.
    void streamsInOrder() {
        const auto launches = graphLaunches();
        int64_t bad = 0, streams = 0, inLaunch = 0, inLaunchMax = 0;
        for (auto& [key, ops] : opsByStream()) {
            ++streams;
            std::sort(ops.begin(), ops.end(),
                      [](const Op& a, const Op& b) { return a.start < b.start; });
            // The latest end so far and its correlation (e1, c1), and the latest end of the
            // operations of every other correlation (e2).
            int64_t e1 = INT64_MIN, c1 = INT64_MIN, e2 = INT64_MIN;
            for (const Op& op : ops) {
                const int64_t otherEnd = op.correlation != c1 ? e1 : e2;
                if (otherEnd > op.start) {
                    ++bad;  // overlaps an operation of another launch
                } else if (op.correlation == c1 && e1 > op.start) {
                    if (launches.count({key.pid, op.correlation})) {
                        ++inLaunch;
                        inLaunchMax = std::max(inLaunchMax, e1 - op.start);
                    } else {
                        ++bad;  // one launch, but not of a graph
                    }
                }
                if (op.correlation == c1) {
                    e1 = std::max(e1, op.end);
                } else if (op.end > e1) {
                    e2 = e1;
                    e1 = op.end;
                    c1 = op.correlation;
                } else {
                    e2 = std::max(e2, op.end);
                }
            }
        }
        std::string note;
        if (inLaunch > 0)
            note = " (" + std::to_string(inLaunch) +
                   " nodes of one graph launch overlap the node before them, by up to " +
                   std::to_string(inLaunchMax) + " ns)";
        expect(streams > 0 && bad == 0, "timestamps monotonic per stream: " + std::to_string(bad) +
                                            " operations overlap their predecessor on " +
                                            std::to_string(streams) + " streams" + note);
    }

    // Some copy on one stream runs while a kernel runs on another.
    void copyComputeOverlap() {
        auto streams = opsByStream();
        bool found = false;
        for (auto a = streams.begin(); a != streams.end() && !found; ++a)
            for (auto b = streams.begin(); b != streams.end() && !found; ++b) {
                if (a == b || a->first.pid != b->first.pid) continue;
                for (const Op& c : a->second) {
                    if (c.kind != EventKind::Memcpy) continue;
                    for (const Op& k : b->second)
                        if (k.kind == EventKind::Kernel && c.start < k.end && k.start < c.end) {
                            found = true;
                            break;
                        }
                    if (found) break;
                }
            }
        expect(found, "a copy overlaps a kernel on another stream");
    }

    void hostThreads(int64_t want) {
        std::set<std::pair<int64_t, int64_t>> tids;
        for (const Track* t : m_r.tracksOfKind(EventKind::CudaApi))
            if (!t->empty()) tids.insert({t->key.pid, t->key.tid});
        expect(static_cast<int64_t>(tids.size()) >= want,
               "CUDA API calls on " + std::to_string(tids.size()) +
                   " host threads, expected at least " + std::to_string(want));
    }

    // Every GPU has an NVML "GPU utilization" series with at least two samples.
    void gpuMetrics() {
        int gpus = 0, withSeries = 0;
        for (const auto& g : m_r.gpus) {
            ++gpus;
            for (const auto& s : m_r.metricSeries) {
                if (s.source != "nvml" || s.deviceId != g.deviceId || s.name != "GPU utilization")
                    continue;
                const Track* t = m_r.findTrack(TrackKey::forMetric(s.seriesId));
                if (t && t->size() >= 2) ++withSeries;
            }
        }
        expect(gpus > 0 && withSeries == gpus, "GPU utilization sampled on " +
                                                   std::to_string(withSeries) + " of " +
                                                   std::to_string(gpus) + " GPUs");
    }

    void nvtxRanges(const std::vector<std::string>& names) {
        std::set<std::string> seen;
        for (const Track* t : m_r.tracksOfKind(EventKind::NvtxRange))
            for (size_t i = 0; i < t->size(); ++i) seen.insert(std::string(m_r.str(t->name[i])));
        for (const auto& n : names) expect(seen.count(n) != 0, "NVTX range '" + n + "' captured");
    }

    // --pytorch and --python-sampling on a real PyTorch training loop of `steps` steps (the
    // warm-up's included) whose model has `linears` Linear layers.
    void pytorchAnnotations(int64_t steps, int64_t linears) {
        int64_t aten = 0, forward = 0, backward = 0;
        for (const Track* t : m_r.tracksOfKind(EventKind::NvtxRange))
            for (size_t i = 0; i < t->size(); ++i) {
                const std::string_view name = m_r.str(t->name[i]);
                aten += name.starts_with("aten::");
                forward += name == "Linear.forward";
                backward += name == "backward";
            }
        expect(aten >= steps, "PyTorch operator ranges (emit_nvtx): " + std::to_string(aten) +
                                  ", expected at least one per step (" + std::to_string(steps) + ")");
        equal(forward, steps * linears, "Linear.forward ranges (--pytorch=functions-trace)");
        // (the program names a range "backward" too)
        expect(backward >= steps, "backward ranges (--pytorch=functions-trace): " +
                                      std::to_string(backward) + ", expected at least " +
                                      std::to_string(steps));
        int64_t pythonSamples = 0;
        for (const Track* t : m_r.tracksOfKind(EventKind::CpuSample))
            for (size_t i = 0; i < t->size(); ++i) {
                const auto& frames = m_r.callStacks[size_t(t->intAt(cols::CpuSample::Stack, i))].frames;
                bool py = false;
                for (uint32_t f : frames) py = py || m_r.isPythonFrame(m_r.stackFrames[f]);
                pythonSamples += py;
            }
        expect(pythonSamples > 0, "CPU samples with Python frames (--python-sampling): " +
                                      std::to_string(pythonSamples));
    }

private:
    const Report& m_r;
    CheckResult& m_out;
};

}  // namespace

CheckResult checkGpuCapture(const Report& r, const Expectations& e, const CheckOptions& o) {
    CheckResult out;
    Checker c(r, out);
    const bool range = o.profilerRangeOnly;
    // Step 1: counts.
    if (o.minimumKernels) {
        int64_t want = e.num("min_kernels");
        c.expect(c.count(EventKind::Kernel) >= want,
                 "kernels captured: " + std::to_string(c.count(EventKind::Kernel)) +
                     ", expected at least " + std::to_string(want));
    } else if (range) {
        c.equal(c.count(EventKind::Kernel), e.num("kernels_in_profiler_range"),
                "kernels inside cudaProfilerStart/Stop");
        c.equal(c.count(EventKind::GraphTrace), 0, "graph launches inside cudaProfilerStart/Stop");
        c.equal(c.memcpyBytes(CopyKind::HtoD), e.num("memcpy_htod_bytes_in_profiler_range"),
                "HtoD bytes in range");
        c.equal(c.memcpyBytes(CopyKind::DtoH), 0, "DtoH bytes in range");
    } else {
        int64_t graphKernels = e.num("graph_launches") * e.num("kernels_per_graph");
        int64_t want = e.num("kernels") + (o.graphMode == GraphMode::Node ? graphKernels : 0);
        c.equal(c.count(EventKind::Kernel), want, "kernels launched == kernels captured");
        if (o.graphMode == GraphMode::Graph)
            c.equal(c.count(EventKind::GraphTrace), e.num("graph_launches"),
                    "graph launches captured");
        if (e.has("memcpy_htod_bytes"))
            c.equal(c.memcpyBytes(CopyKind::HtoD), e.num("memcpy_htod_bytes"), "HtoD bytes");
        if (e.has("memcpy_dtoh_bytes"))
            c.equal(c.memcpyBytes(CopyKind::DtoH), e.num("memcpy_dtoh_bytes"), "DtoH bytes");
        if (e.has("memcpy_dtod_bytes"))
            c.equal(c.memcpyBytes(CopyKind::DtoD), e.num("memcpy_dtod_bytes"), "DtoD bytes");
        // Memsets inside graphs are records of their own only at node level.
        if (e.has("memset_bytes") || e.has("graph_memset_bytes"))
            c.equal(c.memsetBytes(),
                    e.num("memset_bytes") +
                        (o.graphMode == GraphMode::Node ? e.num("graph_memset_bytes") : 0),
                    "memset bytes");
        if (e.num("overlap")) c.copyComputeOverlap();
        if (e.has("host_threads_with_cuda")) c.hostThreads(e.num("host_threads_with_cuda"));
    }
    // Step 2: joins and order, where kernels are expected (at graph level a program that
    // launches only graphs has none).
    const bool kernelsExpected =
        o.minimumKernels || range || e.num("kernels") > 0 || o.graphMode == GraphMode::Node;
    if (kernelsExpected) c.kernelsHaveApiCalls();
    if (kernelsExpected || !c.opsByStream().empty()) c.streamsInOrder();
    if (o.checkNvtx && !range) c.nvtxRanges(e.list("nvtx_ranges"));
    if (o.gpuMetrics) c.gpuMetrics();
    if (o.pytorch) c.pytorchAnnotations(e.num("total_steps"), e.num("linear_layers"));
    return out;
}

}  // namespace sl::gpucheck
