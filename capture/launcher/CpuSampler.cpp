#include "capture/launcher/CpuSampler.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>
#include <unordered_map>

#include "capture/common/Clock.h"
#include "capture/launcher/PerfRecord.h"
#include "capture/launcher/PythonStacks.h"
#include "capture/launcher/SchedTracer.h"

namespace sl::capture {
namespace {

constexpr size_t kDataPages = 64;        // per CPU; halved (down to 8) when mlock limits refuse
// -b dwarf samples carry the stack copy (~8.3 KiB each): 512 KiB per CPU, within the default
// perf_event_mlock_kb (516), holds ~60 of them between two drains.
constexpr size_t kDwarfDataPages = 128;
// Rings that also take the context switches (two records per switch): the pages the separate
// context-switch events had.
constexpr size_t kWithSwitchesDataPages = 128;
// Frames kept per sample, as the kernel's frame-pointer walk (PERF_MAX_STACK_DEPTH).
constexpr size_t kMaxUserFrames = PERF_MAX_STACK_DEPTH;
// Records reach the rings when they happen; everything older than this is in hand after a
// drain of every ring and can be replayed in time order.
constexpr int64_t kReplayHorizonNs = 50'000'000;

using perf::kSampleIdBytes;
using perf::load;

std::string readSysctl(const char* path) {
    std::ifstream f(path);
    std::string s;
    f >> s;
    return s;
}

perf_event_attr sampleAttr(int frequency, CpuSampler::Backtrace backtrace, bool excludeKernel,
                           bool contextSwitches) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.freq = 1;
    a.sample_freq = static_cast<uint64_t>(frequency);
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
    if (backtrace == CpuSampler::Backtrace::FramePointers) a.sample_type |= PERF_SAMPLE_CALLCHAIN;
    if (backtrace == CpuSampler::Backtrace::Dwarf) {
        // What perf record --call-graph dwarf asks for: the user registers at the sample (or at
        // the kernel entry) and the stack above the user stack pointer.
        a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        a.sample_regs_user = DwarfUnwinder::kPerfRegsMask;
        a.sample_stack_user = CpuSampler::kDwarfStackBytes;
    }
    a.exclude_callchain_kernel = 1;  // kernel frames: one "[kernel]" frame, the user stack below
    a.exclude_kernel = excludeKernel;
    a.exclude_hv = 1;
    a.sample_id_all = 1;
    a.mmap = 1;  // executable mappings only (mmap_data = 0)
    a.mmap2 = 1;
    a.comm = 1;
    a.comm_exec = 1;
    a.task = 1;  // fork records: a forked child starts with its parent's mappings
    // The switch records SchedTracer pairs (its own event's settings otherwise: task and comm
    // with comm_exec are on here too, and the sample_id trailer is the same).
    a.context_switch = contextSwitches ? 1 : 0;
    a.inherit = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    return a;
}

std::string refused(int cpu, int e, int frequency) {
    std::string why = std::strerror(e);
    if (e == EACCES || e == EPERM) {
        // The fix depends on what refused it: the sysctl, or (when the sysctl allows it) a
        // container's seccomp profile or a security module.
        const std::string paranoid = readSysctl("/proc/sys/kernel/perf_event_paranoid");
        if (!paranoid.empty() && std::strtoll(paranoid.c_str(), nullptr, 10) > 2)
            why += " (perf_event_paranoid is " + paranoid +
                   "; run: sudo sysctl kernel.perf_event_paranoid=2, or run with CAP_PERFMON)";
        else
            why += " (perf_event_paranoid is " + (paranoid.empty() ? "unknown" : paranoid) +
                   ", which allows it: a container's seccomp profile or a security module blocks "
                   "perf_event_open; in Docker run with --cap-add PERFMON or a seccomp profile "
                   "that allows it)";
    }
    if (e == EINVAL) {
        const std::string max = readSysctl("/proc/sys/kernel/perf_event_max_sample_rate");
        if (!max.empty() && std::strtoll(max.c_str(), nullptr, 10) < frequency)
            why += " (--sampling-frequency " + std::to_string(frequency) +
                   " is above /proc/sys/kernel/perf_event_max_sample_rate = " + max + ")";
    }
    if (e == ENOENT || e == ENOSYS || e == EOPNOTSUPP)
        why += " (the kernel has no perf events here)";
    return "CPU sampling is off: perf_event_open on CPU " + std::to_string(cpu) + ": " + why;
}

}  // namespace

CpuSampler::~CpuSampler() {
    resolved();
    stop();
}

std::string CpuSampler::start(int64_t pid, int frequency, Backtrace backtrace,
                              SchedTracer* switches) {
    const long cpus = sysconf(_SC_NPROCESSORS_CONF);
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    bool excludeKernel = false;
    size_t pages = backtrace == Backtrace::Dwarf ? kDwarfDataPages
                   : switches                    ? kWithSwitchesDataPages
                                                 : kDataPages;
    m_backtrace = backtrace;
    auto closeAll = [this] {
        for (auto& r : m_rings) {
            if (r.base) munmap(r.base, r.size + static_cast<size_t>(sysconf(_SC_PAGESIZE)));
            close(r.fd);
        }
        m_rings.clear();
    };
    for (int cpu = 0; cpu < cpus; ++cpu) {
        perf_event_attr attr = sampleAttr(frequency, backtrace, excludeKernel, switches != nullptr);
        long fd = syscall(SYS_perf_event_open, &attr, static_cast<pid_t>(pid), cpu, -1,
                          PERF_FLAG_FD_CLOEXEC);
        if (fd < 0 && (errno == EACCES || errno == EPERM) && !excludeKernel && cpu == 0) {
            // perf_event_paranoid 2 allows user-space sampling only.
            excludeKernel = true;
            attr = sampleAttr(frequency, backtrace, true, switches != nullptr);
            fd = syscall(SYS_perf_event_open, &attr, static_cast<pid_t>(pid), cpu, -1,
                         PERF_FLAG_FD_CLOEXEC);
        }
        if (fd < 0 && errno == ENODEV && cpu > 0) continue;  // an offline CPU
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
    m_switches = switches;
    if (m_switches) m_switches->startFromSampler();
    seedMappings(pid);
    m_scratch.resize(65536);
    m_prefetch = std::make_unique<SymbolPrefetch>();
    m_thread = std::thread([this] { run(); });
    return {};
}

void CpuSampler::seedMappings(int64_t pid) {
    // Mappings made before the events were opened are never reported: take them from /proc
    // (for the launcher's forked child, its copy of the launcher until it execs).
    std::ifstream f("/proc/" + std::to_string(pid) + "/maps");
    std::string line;
    while (std::getline(f, line)) {
        // start-end perms offset dev inode path
        unsigned long long start = 0, end = 0, offset = 0;
        char perms[8] = {};
        int pathAt = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &offset,
                        &pathAt) < 4 ||
            !std::strchr(perms, 'x') || pathAt <= 0 || static_cast<size_t>(pathAt) >= line.size())
            continue;
        addMapping(INT64_MIN, pid, start, end - start, offset,
                   line.substr(static_cast<size_t>(pathAt)));
    }
}

void CpuSampler::stop() {
    if (!m_thread.joinable()) return;
    stopRecording();
    resolve();
}

void CpuSampler::stopRecording() {
    if (!m_thread.joinable()) return;
    m_stop.set();
    m_thread.join();
    for (auto& r : m_rings) {
        drain(r);
        munmap(r.base, r.size + static_cast<size_t>(sysconf(_SC_PAGESIZE)));
        close(r.fd);
    }
    m_rings.clear();
}

void CpuSampler::quiesce() {
    if (m_prefetch) m_prefetch->finish();
    if (m_kallsyms.valid()) m_kallsyms.wait();
}

void CpuSampler::resolveInBackground() {
    if (m_resolved || m_resolving.joinable()) return;
    try {
        m_resolving = std::thread([this] { resolve(); });
    } catch (const std::system_error&) {
        resolve();  // no thread to be had (a process or thread limit): here, then
    }
}

const CpuSampler& CpuSampler::resolved() const {
    if (m_resolving.joinable()) m_resolving.join();
    return *this;
}

void CpuSampler::run() {
    do {
        const int64_t drainStart = nowNs();
        for (auto& r : m_rings) drain(r);
        const auto t0 = std::chrono::steady_clock::now();
        replay(drainStart - kReplayHorizonNs);
        for (uint32_t module : m_resolver.takeNewModules())
            m_prefetch->want(m_resolver.modules()[module]);
        m_stats.resolveNs += std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now() - t0)
                                 .count();
    } while (!m_stop.waitFor(std::chrono::milliseconds(10)));
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
    auto trailerTime = [&] { return static_cast<int64_t>(perf::trailerTime(rec, size)); };
    if (m_switches && SchedTracer::wants(h->type)) m_switches->record(rec, size);
    switch (h->type) {
        case PERF_RECORD_SAMPLE: {
            // ip; pid, tid; time; cpu, res; [nr; ips[nr]]
            if (body < 32) return;
            const uint64_t ip = load<uint64_t>(p);
            const int64_t time = load<int64_t>(p + 16);
            uint64_t chain[PERF_MAX_STACK_DEPTH + 2];
            size_t n = 0;
            if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
                chain[n++] = ip;  // a kernel address: the leaf, above the user stack
                // Only kernel leaves need the kernel's symbols: captures without any (user-only
                // sampling) never pay for reading /proc/kallsyms.
                if (!m_kallsyms.valid())
                    m_kallsyms = std::async(std::launch::async, [] { return KernelSymbols::loadForThisBoot(); });
            }
            if (m_backtrace == Backtrace::Dwarf) {
                recordDwarf(p, body, chain, n);
                return;
            }
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
            m_mapEvents.push_back({trailerTime(), MapKind::Exec, load<uint32_t>(p), 0, 0, 0, 0, 0});
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
    m_mapEvents.push_back(
        {time, MapKind::Mmap, pid, 0, start, length, pgoff, static_cast<uint32_t>(m_paths.size())});
    m_paths.push_back(path);
}

void CpuSampler::addSample(int64_t time, int64_t pid, int64_t tid, int cpu, const uint64_t* ips,
                           size_t n) {
    m_pending.push_back({time, static_cast<int32_t>(pid), static_cast<int32_t>(tid),
                         static_cast<int16_t>(cpu), false, static_cast<uint32_t>(n), m_ips.size()});
    m_ips.insert(m_ips.end(), ips, ips + n);
}

void CpuSampler::recordDwarf(const uint8_t* p, size_t body, const uint64_t* kernel, size_t n) {
    // ip; pid, tid; time; cpu, res; abi, [regs]; size, [stack[size], dyn_size]
    const auto pid = load<uint32_t>(p + 8), tid = load<uint32_t>(p + 12);
    const auto time = load<int64_t>(p + 16);
    const int cpu = static_cast<int>(load<uint32_t>(p + 24));
    const uint64_t ip = load<uint64_t>(p);
    constexpr size_t kRegs = DwarfUnwinder::kRegs;
    size_t at = 32;
    const uint64_t abi = body >= at + 8 ? load<uint64_t>(p + at)
                                        : uint64_t{PERF_SAMPLE_REGS_ABI_NONE};
    at += 8;
    // No 64-bit user registers (a kernel thread, a 32-bit process): the sampled address only.
    if (abi != PERF_SAMPLE_REGS_ABI_64 || body < at + 8 * kRegs + 8) {
        if (n == 0) kernel = &ip, n = 1;
        addSample(time, pid, tid, cpu, kernel, n);
        return;
    }
    uint64_t regs[kRegs];
    std::memcpy(regs, p + at, sizeof regs);
    at += sizeof regs;
    const uint64_t size = load<uint64_t>(p + at);
    at += 8;
    uint64_t copied = 0;
    if (size > 0 && body >= at + size + 8)
        copied = std::min(size, load<uint64_t>(p + at + size));  // dyn_size: what was readable
    addDwarfSample(time, pid, tid, cpu, kernel, n, regs, p + at, copied);
}

void CpuSampler::addDwarfSample(int64_t time, int64_t pid, int64_t tid, int cpu,
                                const uint64_t* ips, size_t n, const uint64_t* perfRegs,
                                const uint8_t* stack, size_t stackSize) {
    m_pending.push_back({time, static_cast<int32_t>(pid), static_cast<int32_t>(tid),
                         static_cast<int16_t>(cpu), true, static_cast<uint32_t>(n), m_ips.size()});
    m_ips.insert(m_ips.end(), ips, ips + n);
    uint64_t regs[DwarfUnwinder::kRegs];
    DwarfUnwinder::toDwarf(perfRegs, regs);
    m_ips.insert(m_ips.end(), regs, regs + DwarfUnwinder::kRegs);
    m_ips.push_back(stackSize);
    const size_t at = m_ips.size();
    m_ips.resize(at + (stackSize + 7) / 8);
    std::memcpy(m_ips.data() + at, stack, stackSize);
}

uint64_t CpuSampler::rawWords(const Sample& s) const {
    if (!s.dwarf) return s.count;
    const uint64_t stackSize = m_ips[s.begin + s.count + DwarfUnwinder::kRegs];
    return s.count + DwarfUnwinder::kRegs + 1 + (stackSize + 7) / 8;
}

void CpuSampler::unwind(const Sample& s, std::vector<uint64_t>& frames) {
    const uint64_t* raw = m_ips.data() + s.begin;
    frames.assign(raw, raw + s.count);
    const uint64_t* regs = raw + s.count;
    const uint64_t stackSize = regs[DwarfUnwinder::kRegs];
    const auto t0 = std::chrono::steady_clock::now();
    const bool complete =
        m_unwinder.unwind(s.pid, s.tid, regs, reinterpret_cast<const uint8_t*>(regs + DwarfUnwinder::kRegs + 1),
                          stackSize, frames, kMaxUserFrames);
    m_stats.unwindNs += std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now() - t0)
                            .count();
    ++m_stats.dwarfSamples;
    m_stats.dwarfIncomplete += !complete;
}

void CpuSampler::replay(int64_t upTo) {
    // Rings are per CPU: order what was read; at equal times mappings go first.
    auto byTime = [](const auto& a, const auto& b) { return a.time < b.time; };
    std::stable_sort(m_mapEvents.begin(), m_mapEvents.end(), byTime);
    std::stable_sort(m_pending.begin(), m_pending.end(), byTime);
    size_t next = 0;
    auto applyUpTo = [&](int64_t t) {
        for (; next < m_mapEvents.size() && m_mapEvents[next].time <= t; ++next) {
            const MapEvent& e = m_mapEvents[next];
            if (e.kind == MapKind::Mmap)
                m_resolver.maps().map(e.pid, e.start, e.length, e.pgoff, m_paths[e.path]);
            else if (e.kind == MapKind::Fork)
                m_resolver.maps().fork(e.parent, e.pid);
            else {
                m_resolver.maps().exec(e.pid);
                m_unwinder.exec(e.pid);
            }
        }
    };
    size_t done = 0;
    for (; done < m_pending.size() && m_pending[done].time <= upTo; ++done) {
        Sample s = m_pending[done];
        applyUpTo(s.time);
        if (s.dwarf) {
            // Unwound now, with the mappings of its time; the stack copy goes with m_ips.
            unwind(s, m_unwound);
            s.begin = m_resolver.stackOf(s.pid, m_unwound.data(), m_unwound.size());
            s.count = static_cast<uint32_t>(m_unwound.size());
            s.dwarf = false;
        } else {
            s.begin = m_resolver.stackOf(s.pid, m_ips.data() + s.begin, s.count);
        }
        m_samples.push_back(s);
    }
    applyUpTo(upTo);
    // Keep what is newer than upTo for the next round.
    m_mapEvents.erase(m_mapEvents.begin(), m_mapEvents.begin() + static_cast<ptrdiff_t>(next));
    std::vector<uint64_t> ips;
    for (size_t i = done; i < m_pending.size(); ++i) {
        Sample& s = m_pending[i];
        const uint64_t begin = ips.size();
        ips.insert(ips.end(), m_ips.begin() + static_cast<ptrdiff_t>(s.begin),
                   m_ips.begin() + static_cast<ptrdiff_t>(s.begin + rawWords(s)));
        s.begin = begin;
    }
    m_pending.erase(m_pending.begin(), m_pending.begin() + static_cast<ptrdiff_t>(done));
    m_ips = std::move(ips);
    if (m_pending.empty() && m_mapEvents.empty()) m_paths.clear();
}

void CpuSampler::resolve() {
    if (m_resolved) return;
    m_resolved = true;
    const auto t0 = std::chrono::steady_clock::now();
    replay(INT64_MAX);
    m_ips.shrink_to_fit();
    KernelSymbols kernel;
    if (m_resolver.hasKernelFrames()) {
        if (!m_kallsyms.valid())  // records given by addSample (tests, benchmarks)
            m_kallsyms = std::async(std::launch::deferred, [] { return KernelSymbols::loadForThisBoot(); });
        kernel = m_kallsyms.get();
    }
    const auto t1 = std::chrono::steady_clock::now();
    // The modules read while the program ran (waiting for the last of them), and the rest.
    const std::unique_ptr<FrameSymbolizer> symbolizer = m_prefetch ? m_prefetch->take() : nullptr;
    m_resolver.symbolize(&kernel, symbolizer.get());
    const auto t2 = std::chrono::steady_clock::now();
    m_stats.symbolizeNs = std::chrono::duration_cast<std::chrono::nanoseconds>(t2 - t1).count();
    m_stats.resolveNs += std::chrono::duration_cast<std::chrono::nanoseconds>(t2 - t0).count();
    m_stats.samples = m_samples.size();
    m_stats.distinctFrames = m_resolver.frames().size();
    for (const Sample& s : m_samples) {
        const auto st = static_cast<uint32_t>(s.begin);
        m_stats.frames +=
            static_cast<uint64_t>(m_resolver.stackEnd(st) - m_resolver.stackBegin(st));
        m_stats.unresolvedFrames += m_resolver.unresolvedIn(st);
    }
}

std::string CpuSampler::unwindPerSample() const {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f",
                  m_stats.dwarfSamples ? static_cast<double>(m_stats.unwindNs) / 1000.0 /
                                             static_cast<double>(m_stats.dwarfSamples)
                                       : 0.0);
    return text;
}

std::string CpuSampler::summary() const {
    // Taken over the whole run; a --delay, --duration or capture range keeps those inside it.
    return "CPU sampling: " + std::to_string(m_stats.samples) + " samples taken, " +
           std::to_string(m_stats.distinctFrames) + " distinct frames resolved in " +
           std::to_string(m_stats.resolveNs / 1'000'000) + " ms" +
           (m_stats.dwarfSamples
                ? ", " + std::to_string(m_stats.dwarfSamples - m_stats.dwarfIncomplete) + " of " +
                      std::to_string(m_stats.dwarfSamples) +
                      " DWARF-unwound to the outermost frame (" + unwindPerSample() +
                      " us per sample)"
                : std::string()) +
           (m_stats.kernelSamples ? "" : " (user space only: perf_event_paranoid)");
}

void CpuSampler::addTo(ReportBuilder& b, int64_t windowStart, int64_t windowEnd,
                       const PythonStacks* python, int64_t pythonTolerance) const {
    // Frames and stacks are interned into the builder on first use (a report per window).
    const auto& frames = m_resolver.frames();
    const auto& modules = m_resolver.modules();
    std::vector<uint32_t> frameIds(frames.size(), UINT32_MAX);
    std::vector<uint32_t> stackIds(m_resolver.stackCount(), UINT32_MAX);
    std::vector<uint32_t> leafNames(stackIds.size(), 0);
    const uint32_t kernelName = b.intern("[kernel]");
    const uint32_t unknownModule = b.intern("[unknown]");
    uint64_t unresolvedFrames = 0, samples = 0, joinedSamples = 0;
    std::vector<uint32_t> stack;
    std::unordered_map<uint64_t, uint32_t> joined;  // (native stack << 32 | Python stack) -> stack
    std::vector<bool> interpreter(modules.size());
    if (python)
        for (size_t m = 0; m < modules.size(); ++m)
            interpreter[m] = PythonStacks::isInterpreterModule(modules[m]);
    for (const Sample& s : m_samples) {
        if (s.time < windowStart || s.time > windowEnd) continue;
        const auto st = static_cast<uint32_t>(s.begin);
        if (stackIds[st] == UINT32_MAX) {
            stack.clear();
            for (const uint32_t* fi = m_resolver.stackBegin(st); fi != m_resolver.stackEnd(st);
                 ++fi) {
                if (frameIds[*fi] == UINT32_MAX) {
                    const SampleResolver::Frame& f = frames[*fi];
                    StackFrame sf;
                    if (f.module == SampleResolver::kKernel) {
                        // Named from /proc/kallsyms when the kernel shows addresses.
                        sf.function =
                            f.function ? b.intern(m_resolver.functions()[f.function]) : kernelName;
                        sf.module = kernelName;
                        sf.offset = f.offset;
                    } else {
                        sf.function = f.function ? b.intern(m_resolver.functions()[f.function]) : 0;
                        sf.module =
                            f.module < modules.size() ? b.intern(modules[f.module]) : unknownModule;
                        sf.offset = f.offset;
                    }
                    frameIds[*fi] = b.frameId(sf);
                }
                stack.push_back(frameIds[*fi]);
            }
            leafNames[st] = stack.empty() ? 0 : b.report().stackFrames[stack.front()].function;
            stackIds[st] = b.stackId(stack);
        }
        unresolvedFrames += m_resolver.unresolvedIn(st);
        CpuSampleEvent e;
        e.pid = s.pid;
        e.tid = s.tid;
        e.time = s.time;
        e.cpu = s.cpu;
        e.name = leafNames[st];
        e.stack = stackIds[st];
        if (python) {
            const uint32_t py = python->nearest(s.pid, s.tid, s.time, pythonTolerance);
            if (py != UINT32_MAX) {
                // Joined stacks are interned once per (native stack, Python stack).
                auto [it, isNew] = joined.try_emplace((uint64_t{st} << 32) | py, 0);
                if (isNew) {
                    const uint32_t* nb = m_resolver.stackBegin(st);
                    std::vector<uint32_t> native;
                    for (const uint32_t* fi = nb; fi != m_resolver.stackEnd(st); ++fi)
                        native.push_back(frameIds[*fi]);
                    const auto& pyFrames = b.report().callStacks[py].frames;
                    auto merged = PythonStacks::splice(native, pyFrames, [&](size_t i) {
                        const uint32_t module = frames[nb[i]].module;
                        return module < modules.size() && interpreter[module];
                    });
                    it->second = b.stackId(std::move(merged));
                }
                e.stack = it->second;
                e.name = b.report().stackFrames[b.report().callStacks[e.stack].frames[0]].function;
                ++joinedSamples;
            }
        }
        b.add(e);
        ++samples;
    }
    if (joinedSamples)
        b.addDiagnostic("python.samples_joined", static_cast<int64_t>(joinedSamples),
                        "CPU samples of Python threads shown with the Python stack of the "
                        "nearest Python sample of their thread (--python-sampling)");
    if (m_stats.lost)
        b.addDiagnostic("sampling.samples_lost", static_cast<int64_t>(m_stats.lost),
                        "records the kernel dropped, almost all CPU samples (ring buffer full: the "
                        "profiler could not keep up; try a lower --sampling-frequency); a lost "
                        "mapping record leaves that module's frames unresolved");
    if (m_stats.throttles)
        b.addDiagnostic("sampling.throttled", static_cast<int64_t>(m_stats.throttles),
                        "times the kernel throttled sampling (see "
                        "/proc/sys/kernel/perf_event_max_sample_rate)");
    if (m_stats.dwarfIncomplete)
        b.addDiagnostic("sampling.unwind_incomplete", static_cast<int64_t>(m_stats.dwarfIncomplete),
                        "CPU samples whose DWARF unwinding (-b dwarf) stopped before the outermost "
                        "frame (code without CFI such as JIT or [vdso], a stack deeper than the " +
                            std::to_string(kDwarfStackBytes) +
                            " bytes copied per sample); their stacks end at the last frame found");
    if (unresolvedFrames)
        b.addDiagnostic("sampling.frames_unresolved", static_cast<int64_t>(unresolvedFrames),
                        "stack frames of CPU samples without a function name (no symbol covers "
                        "the address: stripped module, JIT or anonymous code, [vdso]); shown as "
                        "module+offset");
    if (m_resolver.unreadableCount() && samples)
        b.addDiagnostic("sampling.modules_unreadable",
                        static_cast<int64_t>(m_resolver.unreadableCount()),
                        "modules whose symbols could not be read: " + m_resolver.unreadable());
}

}  // namespace sl::capture
