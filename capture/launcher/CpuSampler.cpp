#include "capture/launcher/CpuSampler.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <unordered_map>

#include "capture/launcher/FrameSymbolizer.h"

namespace sl::capture {
namespace {

constexpr size_t kDataPages = 64;  // per CPU; 16 when the mlock allowance is smaller
constexpr uint64_t kSampleIdBytes = 24;  // sample_id_all trailer: pid, tid, time, cpu, res

template <class T>
T load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

std::string readSysctl(const char* path) {
    std::ifstream f(path);
    std::string s;
    f >> s;
    return s;
}

perf_event_attr sampleAttr(int frequency, bool callchains, bool excludeKernel) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.freq = 1;
    a.sample_freq = static_cast<uint64_t>(frequency);
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                    (callchains ? PERF_SAMPLE_CALLCHAIN : 0);
    a.exclude_callchain_kernel = 1;  // kernel frames: one "[kernel]" frame, the user stack below
    a.exclude_kernel = excludeKernel;
    a.exclude_hv = 1;
    a.sample_id_all = 1;
    a.mmap = 1;  // executable mappings only (mmap_data = 0)
    a.mmap2 = 1;
    a.comm = 1;
    a.comm_exec = 1;
    a.task = 1;  // fork records: a forked child starts with its parent's mappings
    a.inherit = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    return a;
}

std::string refused(int cpu, int e, int frequency) {
    std::string why = std::strerror(e);
    if (e == EACCES || e == EPERM)
        why += " (lower /proc/sys/kernel/perf_event_paranoid to 2 or less, or run with "
               "CAP_PERFMON)";
    if (e == EINVAL) {
        const std::string max = readSysctl("/proc/sys/kernel/perf_event_max_sample_rate");
        if (!max.empty() && std::stoll(max) < frequency)
            why += " (--sampling-frequency " + std::to_string(frequency) +
                   " is above /proc/sys/kernel/perf_event_max_sample_rate = " + max + ")";
    }
    if (e == ENOENT || e == ENOSYS || e == EOPNOTSUPP)
        why += " (the kernel has no perf events here)";
    return "CPU sampling is off: perf_event_open on CPU " + std::to_string(cpu) + ": " + why;
}

}  // namespace

CpuSampler::~CpuSampler() {
    stop();
}

std::string CpuSampler::start(int64_t pid, int frequency, bool callchains) {
    const long cpus = sysconf(_SC_NPROCESSORS_CONF);
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    bool excludeKernel = false;
    size_t pages = kDataPages;
    auto closeAll = [this] {
        for (auto& r : m_rings) {
            if (r.base) munmap(r.base, r.size + static_cast<size_t>(sysconf(_SC_PAGESIZE)));
            close(r.fd);
        }
        m_rings.clear();
    };
    for (int cpu = 0; cpu < cpus; ++cpu) {
        perf_event_attr attr = sampleAttr(frequency, callchains, excludeKernel);
        long fd = syscall(SYS_perf_event_open, &attr, static_cast<pid_t>(pid), cpu, -1,
                          PERF_FLAG_FD_CLOEXEC);
        if (fd < 0 && (errno == EACCES || errno == EPERM) && !excludeKernel && cpu == 0) {
            // perf_event_paranoid 2 allows user-space sampling only.
            excludeKernel = true;
            attr = sampleAttr(frequency, callchains, true);
            fd = syscall(SYS_perf_event_open, &attr, static_cast<pid_t>(pid), cpu, -1,
                         PERF_FLAG_FD_CLOEXEC);
        }
        if (fd < 0) {
            const int e = errno;
            closeAll();
            return refused(cpu, e, frequency);
        }
        Ring r;
        r.fd = static_cast<int>(fd);
        void* base = MAP_FAILED;
        for (; pages >= 8 && base == MAP_FAILED; pages = base == MAP_FAILED ? pages / 2 : pages)
            base = mmap(nullptr, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
        if (base == MAP_FAILED) {
            const int e = errno;
            close(r.fd);
            closeAll();
            return std::string("CPU sampling is off: mmap of the perf ring failed: ") +
                   std::strerror(e) + " (see /proc/sys/kernel/perf_event_mlock_kb)";
        }
        r.base = base;
        r.size = pages * page;
        m_rings.push_back(r);
    }
    m_stats.kernelSamples = !excludeKernel;
    m_scratch.resize(65536);
    m_thread = std::thread([this] { run(); });
    return {};
}

void CpuSampler::stop() {
    if (!m_thread.joinable()) return;
    m_stop.store(true);
    m_thread.join();
    for (auto& r : m_rings) {
        drain(r);
        munmap(r.base, r.size + static_cast<size_t>(sysconf(_SC_PAGESIZE)));
        close(r.fd);
    }
    m_rings.clear();
    resolve();
}

void CpuSampler::run() {
    while (!m_stop.load()) {
        for (auto& r : m_rings) drain(r);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

void CpuSampler::drain(Ring& r) {
    auto* meta = static_cast<perf_event_mmap_page*>(r.base);
    const auto* data = static_cast<const uint8_t*>(r.base) + sysconf(_SC_PAGESIZE);
    const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = meta->data_tail;
    uint8_t* tmp = m_scratch.data();
    while (tail + sizeof(perf_event_header) <= head) {
        // Copy the record out of the ring (it may wrap around the end).
        const size_t off = tail % r.size;
        perf_event_header h;
        for (size_t i = 0; i < sizeof h; ++i)
            reinterpret_cast<uint8_t*>(&h)[i] = data[(off + i) % r.size];
        if (h.size < sizeof h || tail + h.size > head) break;
        const size_t first = std::min<size_t>(h.size, r.size - off);
        std::memcpy(tmp, data + off, first);
        std::memcpy(tmp + first, data, h.size - first);
        record(tmp, h.size);
        tail += h.size;
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

void CpuSampler::record(const uint8_t* rec, size_t size) {
    const auto* h = reinterpret_cast<const perf_event_header*>(rec);
    const uint8_t* p = rec + sizeof *h;
    const size_t body = size - sizeof *h;
    auto trailerTime = [&] { return load<int64_t>(rec + size - kSampleIdBytes + 8); };
    switch (h->type) {
        case PERF_RECORD_SAMPLE: {
            // ip; pid, tid; time; cpu, res; [nr; ips[nr]]
            if (body < 32) return;
            const uint64_t ip = load<uint64_t>(p);
            const int64_t time = load<int64_t>(p + 16);
            uint64_t chain[PERF_MAX_STACK_DEPTH + 2];
            size_t n = 0;
            if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
                chain[n++] = kKernelIp;
            if (body >= 40) {
                const uint64_t nr = std::min<uint64_t>(load<uint64_t>(p + 32), (body - 40) / 8);
                for (uint64_t i = 0; i < nr && n < PERF_MAX_STACK_DEPTH + 2; ++i) {
                    const uint64_t a = load<uint64_t>(p + 40 + 8 * i);
                    if (a >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) continue;  // context marker
                    chain[n++] = a;
                }
            }
            if (n == 0) chain[n++] = ip;  // -b none (or an empty chain): the sampled address
            addSample(time, load<uint32_t>(p + 8), load<uint32_t>(p + 12),
                      static_cast<int>(load<uint32_t>(p + 24)), chain, n);
            return;
        }
        case PERF_RECORD_MMAP2:
        case PERF_RECORD_MMAP: {
            const size_t nameAt = h->type == PERF_RECORD_MMAP2 ? 64 : 32;
            if (body < nameAt + kSampleIdBytes) return;
            const char* name = reinterpret_cast<const char*>(p + nameAt);
            const size_t maxLen = body - nameAt - kSampleIdBytes;
            addMapping(trailerTime(), load<uint32_t>(p), load<uint64_t>(p + 8),
                       load<uint64_t>(p + 16), load<uint64_t>(p + 24),
                       std::string(name, strnlen(name, maxLen)));
            return;
        }
        case PERF_RECORD_FORK:
            // pid, ppid, tid, ptid; time. A new thread has pid == ppid.
            if (body < 24) return;
            m_mapEvents.push_back({load<int64_t>(p + 16), MapKind::Fork, load<uint32_t>(p),
                                   load<uint32_t>(p + 4), 0, 0, 0, 0});
            return;
        case PERF_RECORD_COMM:
            if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC) || body < 8 + kSampleIdBytes) return;
            m_mapEvents.push_back(
                {trailerTime(), MapKind::Exec, load<uint32_t>(p), 0, 0, 0, 0, 0});
            return;
        case PERF_RECORD_LOST:
            if (body >= 16) m_stats.lost += load<uint64_t>(p + 8);
            return;
        case PERF_RECORD_LOST_SAMPLES:
            if (body >= 8) m_stats.lost += load<uint64_t>(p);
            return;
        case PERF_RECORD_THROTTLE:
            ++m_stats.throttles;
            return;
        default:
            return;
    }
}

void CpuSampler::addMapping(int64_t time, int64_t pid, uint64_t start, uint64_t length,
                            uint64_t pgoff, const std::string& path) {
    m_mapEvents.push_back({time, MapKind::Mmap, pid, 0, start, length, pgoff,
                           static_cast<uint32_t>(m_paths.size())});
    m_paths.push_back(path);
}

void CpuSampler::addSample(int64_t time, int64_t pid, int64_t tid, int cpu, const uint64_t* ips,
                           size_t n) {
    m_samples.push_back({time, static_cast<int32_t>(pid), static_cast<int32_t>(tid),
                         static_cast<int16_t>(cpu), static_cast<uint32_t>(n), m_ips.size()});
    m_ips.insert(m_ips.end(), ips, ips + n);
}

void CpuSampler::resolve() {
    if (m_resolved) return;
    m_resolved = true;
    const auto t0 = std::chrono::steady_clock::now();
    // Step 1: everything in time order (rings are per CPU); at equal times mappings first.
    std::stable_sort(m_mapEvents.begin(), m_mapEvents.end(),
                     [](const MapEvent& a, const MapEvent& b) { return a.time < b.time; });
    std::stable_sort(m_samples.begin(), m_samples.end(),
                     [](const Sample& a, const Sample& b) { return a.time < b.time; });
    // Step 2: replay the mappings; addresses become frames, sample stacks distinct stacks.
    std::vector<bool> isCaller = internStacks();
    // Step 3: symbolize each distinct frame once; one ELF parse per module.
    const auto t1 = std::chrono::steady_clock::now();
    symbolize(isCaller);
    m_stats.symbolizeNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - t1)
                              .count();
    m_stats.samples = m_samples.size();
    m_stats.distinctFrames = m_frames.size();
    m_stackUnresolved.assign(m_stackBegin.size() - 1, 0);
    for (size_t st = 0; st + 1 < m_stackBegin.size(); ++st)
        for (uint64_t i = m_stackBegin[st]; i < m_stackBegin[st + 1]; ++i)
            m_stackUnresolved[st] += unresolved(m_frames[m_stackFrames[i]]);
    for (const Sample& smp : m_samples) {
        m_stats.frames += m_stackBegin[smp.begin + 1] - m_stackBegin[smp.begin];
        m_stats.unresolvedFrames += m_stackUnresolved[smp.begin];
    }
    m_stats.resolveNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now() - t0)
                            .count();
}

std::vector<bool> CpuSampler::internStacks() {
    struct Key {
        uint32_t module;
        uint64_t offset;
        bool caller;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        size_t operator()(const Key& k) const noexcept {
            return (k.offset * 0x9E3779B97F4A7C15ULL) ^ (uint64_t{k.module} << 1 | k.caller);
        }
    };
    struct StackHash {
        size_t operator()(const std::vector<uint32_t>& v) const noexcept {
            uint64_t h = 1469598103934665603ULL;
            for (uint32_t f : v) h = (h ^ f) * 1099511628211ULL;
            return static_cast<size_t>(h);
        }
    };
    std::unordered_map<Key, uint32_t, KeyHash> frameIndex;
    std::unordered_map<std::vector<uint32_t>, uint32_t, StackHash> stackIndex;
    std::vector<bool> isCaller;
    std::vector<uint32_t> stack;
    m_stackBegin.assign(1, 0);
    size_t next = 0;
    for (Sample& s : m_samples) {
        for (; next < m_mapEvents.size() && m_mapEvents[next].time <= s.time; ++next) {
            const MapEvent& e = m_mapEvents[next];
            if (e.kind == MapKind::Mmap)
                m_maps.map(e.pid, e.start, e.length, e.pgoff, m_paths[e.path]);
            else if (e.kind == MapKind::Fork)
                m_maps.fork(e.parent, e.pid);
            else
                m_maps.exec(e.pid);
        }
        stack.clear();
        bool userLeaf = true;
        for (uint32_t i = 0; i < s.count; ++i) {
            const uint64_t ip = m_ips[s.begin + i];
            Key k{kKernel, 0, false};
            if (ip != kKernelIp) {
                const ModuleMaps::Location l = m_maps.lookup(s.pid, ip);
                // Every user frame but the first is a return address: symbolize the call.
                k = {l.module, l.offset, !userLeaf};
                userLeaf = false;
            }
            auto [it, inserted] = frameIndex.try_emplace(k, static_cast<uint32_t>(m_frames.size()));
            if (inserted) {
                m_frames.push_back({k.module, k.offset, 0});
                isCaller.push_back(k.caller);
            }
            stack.push_back(it->second);
        }
        auto [st, inserted] =
            stackIndex.try_emplace(stack, static_cast<uint32_t>(m_stackBegin.size() - 1));
        if (inserted) {
            m_stackFrames.insert(m_stackFrames.end(), stack.begin(), stack.end());
            m_stackBegin.push_back(m_stackFrames.size());
        }
        s.begin = st->second;
    }
    m_ips.clear();
    m_ips.shrink_to_fit();
    return isCaller;
}

void CpuSampler::symbolize(const std::vector<bool>& isCaller) {
    FrameSymbolizer symbolizer;
    std::unordered_map<std::string_view, uint32_t> functionIndex;
    const auto& modules = m_maps.modules();
    for (size_t i = 0; i < m_frames.size(); ++i) {
        Frame& f = m_frames[i];
        if (f.module >= modules.size()) continue;
        const uint64_t at = isCaller[i] && f.offset > 0 ? f.offset - 1 : f.offset;
        std::string_view name = symbolizer.function(modules[f.module], at);
        if (name.empty()) continue;
        auto [it, inserted] =
            functionIndex.try_emplace(name, static_cast<uint32_t>(m_functions.size()));
        if (inserted) m_functions.emplace_back(name);
        f.function = it->second;
    }
    for (const auto& [path, why] : symbolizer.unreadable())
        if (m_unreadableCount++ < 3) m_unreadable += (m_unreadable.empty() ? "" : "; ") + why;
}

std::string CpuSampler::summary() const {
    return "CPU sampling: " + std::to_string(m_stats.samples) + " samples, " +
           std::to_string(m_stats.distinctFrames) + " distinct frames resolved in " +
           std::to_string(m_stats.resolveNs / 1'000'000) + " ms" +
           (m_stats.kernelSamples ? "" : " (user space only: perf_event_paranoid)");
}

void CpuSampler::addTo(ReportBuilder& b, int64_t windowStart, int64_t windowEnd) const {
    // Frames and stacks are interned into the builder on first use (a report per window).
    std::vector<uint32_t> frameIds(m_frames.size(), UINT32_MAX);
    std::vector<uint32_t> stackIds(m_stackBegin.empty() ? 0 : m_stackBegin.size() - 1, UINT32_MAX);
    std::vector<uint32_t> leafNames(stackIds.size(), 0);
    const auto& modules = m_maps.modules();
    const uint32_t kernelName = b.intern("[kernel]");
    const uint32_t unknownModule = b.intern("[unknown]");
    uint64_t unresolvedFrames = 0, samples = 0;
    std::vector<uint32_t> stack;
    for (const Sample& s : m_samples) {
        if (s.time < windowStart || s.time > windowEnd) continue;
        const uint64_t st = s.begin;
        if (stackIds[st] == UINT32_MAX) {
            stack.clear();
            for (uint64_t i = m_stackBegin[st]; i < m_stackBegin[st + 1]; ++i) {
                const uint32_t fi = m_stackFrames[i];
                if (frameIds[fi] == UINT32_MAX) {
                    const Frame& f = m_frames[fi];
                    StackFrame sf;
                    if (f.module == kKernel) {
                        sf.function = kernelName;
                        sf.module = kernelName;
                    } else {
                        sf.function = f.function ? b.intern(m_functions[f.function]) : 0;
                        sf.module =
                            f.module < modules.size() ? b.intern(modules[f.module]) : unknownModule;
                        sf.offset = f.offset;
                    }
                    frameIds[fi] = b.frameId(sf);
                }
                stack.push_back(frameIds[fi]);
            }
            leafNames[st] = stack.empty() ? 0 : b.report().stackFrames[stack.front()].function;
            stackIds[st] = b.stackId(stack);
        }
        unresolvedFrames += m_stackUnresolved[st];
        CpuSampleEvent e;
        e.pid = s.pid;
        e.tid = s.tid;
        e.time = s.time;
        e.cpu = s.cpu;
        e.name = leafNames[st];
        e.stack = stackIds[st];
        b.add(e);
        ++samples;
    }
    if (m_stats.lost)
        b.addDiagnostic("sampling.samples_lost", static_cast<int64_t>(m_stats.lost),
                        "CPU samples the kernel dropped (ring buffer full: the profiler could not "
                        "keep up; try a lower --sampling-frequency)");
    if (m_stats.throttles)
        b.addDiagnostic("sampling.throttled", static_cast<int64_t>(m_stats.throttles),
                        "times the kernel throttled sampling (see "
                        "/proc/sys/kernel/perf_event_max_sample_rate)");
    if (unresolvedFrames)
        b.addDiagnostic("sampling.frames_unresolved", static_cast<int64_t>(unresolvedFrames),
                        "stack frames of CPU samples without a function name (no symbol covers "
                        "the address: stripped module, JIT or anonymous code, [vdso]); shown as "
                        "module+offset");
    if (m_unreadableCount && samples)
        b.addDiagnostic("sampling.modules_unreadable", static_cast<int64_t>(m_unreadableCount),
                        "modules whose symbols could not be read: " + m_unreadable);
}

}  // namespace sl::capture
