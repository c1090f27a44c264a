#include "capture/launcher/SchedTracer.h"

#include "capture/launcher/PerfRecord.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace sl::capture {
namespace {
constexpr size_t kDataPages = 64;
}

SchedTracer::~SchedTracer() {
    stop();
    for (auto& r : m_rings) {
        if (r.base) munmap(r.base, r.size + static_cast<size_t>(sysconf(_SC_PAGESIZE)));
        if (r.fd >= 0) close(r.fd);
    }
}

perf_event_attr SchedTracer::contextSwitchEvent(bool excludeKernel) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_DUMMY;
    attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
    attr.sample_id_all = 1;
    attr.context_switch = 1;
    // Exit records too: a thread's last period ends with its exit, for which the kernel writes
    // no switch-out record (the event is gone by then). Without them a thread that ran to its
    // end in one period had no row at all.
    attr.task = 1;
    // Exec records (comm with comm_exec): the name of every image, traced or not.
    attr.comm = 1;
    attr.comm_exec = 1;
    attr.inherit = 1;
    attr.use_clockid = 1;
    attr.clockid = CLOCK_MONOTONIC;
    attr.exclude_kernel = excludeKernel ? 1 : 0;
    return attr;
}

std::string SchedTracer::start(int64_t pid) {
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    for (int cpu = 0; cpu < cpus; ++cpu) {
        perf_event_attr attr = contextSwitchEvent(false);
        long fd = syscall(SYS_perf_event_open, &attr, static_cast<pid_t>(pid), cpu, -1,
                          PERF_FLAG_FD_CLOEXEC);
        if (fd < 0 && (errno == EACCES || errno == EPERM)) {
            // perf_event_paranoid 2 refuses events that count in the kernel; the switch records
            // of a user-space event still arrive.
            attr = contextSwitchEvent(true);
            fd = syscall(SYS_perf_event_open, &attr, static_cast<pid_t>(pid), cpu, -1,
                         PERF_FLAG_FD_CLOEXEC);
        }
        if (fd < 0) {
            int e = errno;
            std::string why = std::strerror(e);
            if (e == EACCES || e == EPERM)
                why +=
                    " (perf_event_open is not permitted: lower "
                    "/proc/sys/kernel/perf_event_paranoid to 2 or "
                    "less, or run with CAP_PERFMON)";
            for (auto& r : m_rings) close(r.fd);
            m_rings.clear();
            return "context switches are not traced: perf_event_open on CPU " +
                   std::to_string(cpu) + ": " + why;
        }
        Ring r;
        r.fd = static_cast<int>(fd);
        r.cpu = cpu;
        r.size = kDataPages * page;
        r.base = mmap(nullptr, r.size + page, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
        if (r.base == MAP_FAILED) {
            int e = errno;
            close(r.fd);
            for (auto& x : m_rings) close(x.fd);
            m_rings.clear();
            return std::string("context switches are not traced: mmap of the perf ring failed: ") +
                   std::strerror(e);
        }
        m_rings.push_back(r);
    }
    m_thread = std::thread([this] { run(); });
    return {};
}

void SchedTracer::stop() {
    if (m_thread.joinable()) {
        m_stop.set();
        m_thread.join();
        for (auto& r : m_rings) drain(r);
    } else if (!m_fromSampler) {
        return;  // never started, or stopped already
    }
    m_fromSampler = false;
    // Rings are per CPU: a thread that migrates switches out on one ring and in on another, so
    // pair the records in time order.
    std::stable_sort(m_records.begin(), m_records.end(),
                     [](const SwitchRecord& a, const SwitchRecord& b) { return a.time < b.time; });
    std::unordered_map<int64_t, std::pair<int64_t, int16_t>> in;  // tid -> (switch-in time, cpu)
    for (const auto& r : m_records) {
        if (!r.out) {
            in[r.tid] = {r.time, r.cpu};
            continue;
        }
        auto it = in.find(r.tid);
        if (it == in.end()) continue;
        m_periods.push_back({r.pid, r.tid, it->second.first, r.time, it->second.second});
        in.erase(it);
    }
    m_records.clear();
    m_records.shrink_to_fit();
}

void SchedTracer::run() {
    do {
        for (auto& r : m_rings) drain(r);
    } while (!m_stop.waitFor(std::chrono::milliseconds(10)));
}

void SchedTracer::drain(Ring& r) {
    auto* meta = static_cast<perf_event_mmap_page*>(r.base);
    auto* data = static_cast<uint8_t*>(r.base) + sysconf(_SC_PAGESIZE);
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = meta->data_tail;
    uint8_t tmp[256];
    while (tail < head) {
        perf_event_header h;
        size_t off = tail % r.size;
        for (size_t i = 0; i < sizeof h; ++i)
            reinterpret_cast<uint8_t*>(&h)[i] = data[(off + i) % r.size];
        if (h.size < sizeof h || h.size > sizeof tmp) break;
        for (size_t i = 0; i < h.size; ++i) tmp[i] = data[(off + i) % r.size];
        record(tmp, h.size);
        tail += h.size;
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

void SchedTracer::record(const uint8_t* rec, size_t size) {
    perf_event_header h;
    if (size < sizeof h) return;
    std::memcpy(&h, rec, sizeof h);
    if (h.size > size) return;
    // Record bodies start after the header; every one ends with the sample_id trailer.
    const uint8_t* b = rec + sizeof h;
    using perf::load;
    if (h.type == PERF_RECORD_LOST) {
        m_lost += load<uint64_t>(b + 8);
    } else if ((h.type == PERF_RECORD_FORK || h.type == PERF_RECORD_EXIT) &&
               h.size >= sizeof h + 24) {
        // Both: u32 pid, ppid, tid, ptid; u64 time (the event's clock); then sample_id.
        const uint32_t pid = load<uint32_t>(b), ppid = load<uint32_t>(b + 4),
                       tid = load<uint32_t>(b + 8);
        const auto time = static_cast<int64_t>(load<uint64_t>(b + 16));
        if (h.type == PERF_RECORD_EXIT) {
            m_records.push_back({time, pid, tid, -1, true});
            m_exits.push_back({pid, tid, time});
        } else if (pid == tid) {  // a new process (its main thread), not a thread
            m_forks.push_back({pid, ppid, time});
        }
    } else if (h.type == PERF_RECORD_COMM && (h.misc & PERF_RECORD_MISC_COMM_EXEC) &&
               h.size >= sizeof h + 8 + 1 + perf::kSampleIdBytes) {
        // u32 pid, tid (the thread that exec'd); char comm[] (NUL-padded to 8 bytes); then
        // sample_id.
        const char* comm = reinterpret_cast<const char*>(b + 8);
        const size_t room = h.size - sizeof h - 8 - perf::kSampleIdBytes;
        m_execs.push_back({load<uint32_t>(b), static_cast<int64_t>(perf::trailerTime(rec, h.size)),
                           std::string(comm, strnlen(comm, room))});
    } else if (h.type == PERF_RECORD_SWITCH && h.size >= sizeof h + 24) {
        // sample_id only: u32 pid, tid; u64 time; u32 cpu, res.
        ++m_switches;
        m_records.push_back({static_cast<int64_t>(load<uint64_t>(b + 8)), load<uint32_t>(b),
                             load<uint32_t>(b + 4), static_cast<int16_t>(load<uint32_t>(b + 16)),
                             (h.misc & PERF_RECORD_MISC_SWITCH_OUT) != 0});
    }
}

void SchedTracer::addTo(ReportBuilder& b, int64_t windowStart, int64_t windowEnd) const {
    for (const auto& p : m_periods) {
        if (p.start < windowStart || p.start > windowEnd) continue;
        ThreadRunning e;
        e.pid = p.pid;
        e.tid = p.tid;
        e.start = p.start;
        e.end = p.end;
        e.cpu = p.cpu;
        b.add(e);
    }
}

}  // namespace sl::capture
