#pragma once
// Samples per-core CPU utilization (user and system, from /proc/stat) and the resident memory
// of the traced process tree (the root and its descendants, from /proc/<pid>/statm and the
// ppid field of /proc/<pid>/stat) at a fixed frequency on its own thread. The samples become
// metric series of source "proc" in the report.
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "capture/launcher/StopFlag.h"
#include "model/core/ReportBuilder.h"

namespace sl::capture {

class ProcSampler {
public:
    ProcSampler(int64_t rootPid, int frequencyHz);
    ~ProcSampler();
    void start();
    void stop();
    // Adds the series and samples to the report (series ids from `firstSeriesId`).
    void addTo(ReportBuilder& b, uint32_t firstSeriesId, int64_t windowStart,
               int64_t windowEnd) const;
    size_t sampleCount() const { return m_times.size(); }

private:
    struct CpuTimes {
        uint64_t user = 0, system = 0, total = 0;
    };
    void run();
    bool readCpuTimes(std::vector<CpuTimes>& out);
    void refreshTree();
    int64_t treeRssBytes();
    void closeFiles();

    int64_t m_root;
    int m_hz;
    StopFlag m_stop;
    std::thread m_thread;
    std::vector<int64_t> m_tree;
    // Open between ticks and read again from offset 0: opening a /proc file (a path walk, a pid
    // lookup) cost as much as reading it, 100 times a second per file.
    int m_statFd = -1;
    std::unordered_map<int64_t, int> m_statmFds;  // pid -> /proc/<pid>/statm
    std::vector<CpuTimes> m_prev;
    // Samples: m_times[i] with m_user[i][cpu], m_system[i][cpu], m_rss[i].
    std::vector<int64_t> m_times;
    std::vector<std::vector<float>> m_user, m_system;
    std::vector<int64_t> m_rss;
};

}  // namespace sl::capture
