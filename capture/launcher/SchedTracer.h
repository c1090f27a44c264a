#pragma once
// Thread scheduling of the traced tree from context-switch records (perf_event_open, a software
// dummy event with context_switch=1 on every CPU, inherited by all threads and children of the
// root, timestamps on CLOCK_MONOTONIC). A reader thread drains the ring buffers; the result is
// one ThreadState (Running) event per period a traced thread ran on a CPU. With CPU sampling on,
// the sampling events carry the switches instead (CpuSampler::start with this tracer): every
// inherited event costs each task of the tree at its fork and exit, and every fork, exit and exec
// was recorded in both rings. When the kernel refuses (perf_event_paranoid, seccomp,
// containers), start() returns the reason and the capture goes on without it.
#include <linux/perf_event.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "capture/launcher/StopFlag.h"
#include "model/core/ReportBuilder.h"

namespace sl::capture {

class SchedTracer {
public:
    ~SchedTracer();
    // The event whose side-band records are the context switches, as start() opens it (and as
    // `sightline status --environment` probes it). excludeKernel: the form perf_event_paranoid 2
    // allows to non-root users; the switch records still arrive.
    static perf_event_attr contextSwitchEvent(bool excludeKernel);
    // Opens the events for `pid` (before it runs anything of interest). Empty string: success.
    std::string start(int64_t pid);
    // Takes its records from CpuSampler's events instead (called by CpuSampler::start): no
    // events or thread of its own; record() is called on the sampler's reader thread, and stop()
    // after the sampler's stop().
    void startFromSampler() { m_fromSampler = true; }
    // The record types record() reads.
    static bool wants(uint32_t type) {
        return type == PERF_RECORD_SWITCH || type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT ||
               type == PERF_RECORD_COMM || type == PERF_RECORD_LOST;
    }
    // One record of `size` bytes (its perf_event_header first, a sample_id trailer of TID, TIME
    // and CPU last).
    void record(const uint8_t* rec, size_t size);
    // Pairs the switches into running periods (after the events were drained).
    void stop();
    void addTo(ReportBuilder& b, int64_t windowStart, int64_t windowEnd) const;
    uint64_t switchCount() const { return m_switches; }
    uint64_t lostRecords() const { return m_lost; }
    // Processes the tree created (the kernel's fork records): the real parent of each, also of
    // children of processes our module is not in. After stop().
    struct Fork {
        int64_t pid, parentPid, time;
    };
    const std::vector<Fork>& forks() const { return m_forks; }
    // Execs the kernel saw (comm records): the new image's name (15 characters) for every
    // process, also those our module is not in (static, setuid, fexecve, a raw execve).
    struct Exec {
        int64_t pid, time;
        std::string name;
    };
    const std::vector<Exec>& execs() const { return m_execs; }
    // Threads' exits the kernel saw (pid, tid, time): when each thread and so each process really
    // ended, which its reaping can follow much later (a zombie nobody waited for).
    struct Exit {
        int64_t pid, tid, time;
    };
    const std::vector<Exit>& exits() const { return m_exits; }

private:
    struct Ring {
        int fd = -1;
        void* base = nullptr;
        size_t size = 0;  // data area bytes
        int cpu = 0;
    };
    struct Running {
        int64_t pid, tid, start, end;
        int16_t cpu;
    };
    void run();
    void drain(Ring& r);

    std::vector<Ring> m_rings;
    StopFlag m_stop;
    std::thread m_thread;
    struct SwitchRecord {
        int64_t time;
        uint32_t pid, tid;
        int16_t cpu;
        bool out;
    };
    std::vector<SwitchRecord> m_records;
    std::vector<Running> m_periods;
    std::vector<Fork> m_forks;
    std::vector<Exec> m_execs;
    std::vector<Exit> m_exits;
    uint64_t m_switches = 0, m_lost = 0;
    bool m_fromSampler = false;
};

}  // namespace sl::capture
