#include "capture/launcher/ProcSampler.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "capture/common/Clock.h"
#include "capture/launcher/ProcTree.h"

namespace sl::capture {
namespace {

// Reads an open /proc file from its start into buf (NUL-terminated); returns its length (0 on
// failure: the process ended). A short read is the end: asking again at the offset reached would
// make the kernel format the whole file once more only to find nothing after it.
size_t readFromStart(int fd, char* buf, size_t cap) {
    size_t n = 0;
    while (n + 1 < cap) {
        const size_t want = cap - 1 - n;
        ssize_t r = ::pread(fd, buf + n, want, static_cast<off_t>(n));
        if (r <= 0) break;
        n += static_cast<size_t>(r);
        if (static_cast<size_t>(r) < want) break;
    }
    buf[n] = 0;
    return n;
}

}  // namespace

ProcSampler::ProcSampler(int64_t rootPid, int frequencyHz)
    : m_root(rootPid), m_hz(std::clamp(frequencyHz, 1, 10000)) {}

ProcSampler::~ProcSampler() {
    stop();
    closeFiles();
}

void ProcSampler::closeFiles() {
    if (m_statFd >= 0) ::close(m_statFd);
    m_statFd = -1;
    for (const auto& [pid, fd] : m_statmFds) ::close(fd);
    m_statmFds.clear();
}

void ProcSampler::start() {
    m_tree = {m_root};  // the launcher's descendants once the first refresh ran
    readCpuTimes(m_prev);
    m_thread = std::thread([this] { run(); });
}

void ProcSampler::stop() {
    m_stop.set();
    if (m_thread.joinable()) m_thread.join();
}

bool ProcSampler::readCpuTimes(std::vector<CpuTimes>& out) {
    static thread_local char buf[1 << 16];
    if (m_statFd < 0) m_statFd = ::open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (m_statFd < 0 || !readFromStart(m_statFd, buf, sizeof buf)) return false;
    out.clear();
    const char* p = buf;
    while ((p = std::strstr(p, "\ncpu")) != nullptr) {
        p += 4;
        if (*p < '0' || *p > '9') continue;
        char* end;
        std::strtol(p, &end, 10);
        unsigned long long v[8] = {};
        const char* q = end;
        for (auto& x : v) x = std::strtoull(q, const_cast<char**>(&q), 10);
        CpuTimes t;
        t.user = v[0] + v[1];
        t.system = v[2] + v[5] + v[6];
        t.total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
        out.push_back(t);
    }
    return !out.empty();
}

void ProcSampler::refreshTree() {
    m_tree = descendantsOf(getpid());
    // The files of processes that left the tree are closed (a descriptor of an ended process
    // reads nothing; a new process with its pid gets a file of its own).
    std::unordered_map<int64_t, int> kept;
    for (int64_t pid : m_tree)
        if (auto it = m_statmFds.find(pid); it != m_statmFds.end()) {
            kept.emplace(pid, it->second);
            m_statmFds.erase(it);
        }
    for (const auto& [pid, fd] : m_statmFds) ::close(fd);
    m_statmFds = std::move(kept);
}

int64_t ProcSampler::treeRssBytes() {
    static const long page = sysconf(_SC_PAGESIZE);
    int64_t total = 0;
    for (int64_t pid : m_tree) {
        char buf[256];
        auto it = m_statmFds.find(pid);
        if (it == m_statmFds.end()) {
            char path[64];
            std::snprintf(path, sizeof path, "/proc/%lld/statm", static_cast<long long>(pid));
            const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            it = m_statmFds.emplace(pid, fd).first;
        }
        if (!readFromStart(it->second, buf, sizeof buf)) {
            // Ended: a process that takes its pid later opens a file of its own.
            ::close(it->second);
            m_statmFds.erase(it);
            continue;
        }
        long long size = 0, resident = 0;
        if (std::sscanf(buf, "%lld %lld", &size, &resident) == 2) total += resident * page;
    }
    return total;
}

void ProcSampler::run() {
    const auto period = std::chrono::nanoseconds(1000000000 / m_hz);
    auto next = std::chrono::steady_clock::now() + period;
    std::vector<CpuTimes> cur;
    int n = 0;
    while (!m_stop.waitUntil(next)) {
        next += period;
        if (n++ % std::max(1, m_hz / 10) == 0) refreshTree();  // new processes: ~10 times a second
        if (!readCpuTimes(cur) || cur.size() != m_prev.size()) continue;
        int64_t now = nowNs();
        std::vector<float> user(cur.size()), sys(cur.size());
        for (size_t c = 0; c < cur.size(); ++c) {
            double dt = static_cast<double>(cur[c].total - m_prev[c].total);
            user[c] = dt > 0 ? static_cast<float>(
                                   100.0 * static_cast<double>(cur[c].user - m_prev[c].user) / dt)
                             : 0.f;
            sys[c] = dt > 0
                         ? static_cast<float>(
                               100.0 * static_cast<double>(cur[c].system - m_prev[c].system) / dt)
                         : 0.f;
        }
        m_prev = cur;
        m_times.push_back(now);
        m_user.push_back(std::move(user));
        m_system.push_back(std::move(sys));
        m_rss.push_back(treeRssBytes());
    }
}

void ProcSampler::addTo(ReportBuilder& b, uint32_t firstSeriesId, int64_t windowStart,
                        int64_t windowEnd) const {
    if (m_times.empty()) return;
    size_t cpus = m_user.front().size();
    Report& r = b.report();
    uint32_t id = firstSeriesId;
    auto addSeries = [&](std::string name, std::string unit, int64_t pid) {
        MetricSeries s;
        s.seriesId = id++;
        s.name = std::move(name);
        s.unit = std::move(unit);
        s.source = "proc";
        s.pid = pid;
        r.metricSeries.push_back(s);
        return s.seriesId;
    };
    for (size_t c = 0; c < cpus; ++c) {
        uint32_t u = addSeries("CPU " + std::to_string(c) + " user", "%", 0);
        uint32_t s = addSeries("CPU " + std::to_string(c) + " system", "%", 0);
        for (size_t i = 0; i < m_times.size(); ++i) {
            if (m_times[i] < windowStart || m_times[i] > windowEnd) continue;
            b.add(MetricSample{u, m_times[i], m_user[i][c]});
            b.add(MetricSample{s, m_times[i], m_system[i][c]});
        }
    }
    uint32_t rss = addSeries("Process tree resident memory", "bytes", m_root);
    for (size_t i = 0; i < m_times.size(); ++i)
        if (m_times[i] >= windowStart && m_times[i] <= windowEnd)
            b.add(MetricSample{rss, m_times[i], static_cast<double>(m_rss[i])});
}

}  // namespace sl::capture
