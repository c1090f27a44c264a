#include "capture/launcher/ProcTree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace sl::capture {

namespace {

// The state and ppid fields of /proc/<pid>/stat; false when it is gone. Async-signal-safe
// (open, read and close, no allocation, no stdio): the stop-signal handler asks it who sent a
// signal.
bool readStat(long long pid, char* state, long long* ppid,
              unsigned long long* startTicks = nullptr) {
    if (pid <= 0) return false;
    char path[40] = "/proc/";
    char digits[24];
    int n = 0;
    for (unsigned long long v = static_cast<unsigned long long>(pid); v; v /= 10)
        digits[n++] = static_cast<char>('0' + v % 10);
    size_t at = 6;
    while (n > 0) path[at++] = digits[--n];
    for (const char* s = "/stat"; *s;) path[at++] = *s++;
    path[at] = 0;
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[512];
    const ssize_t got = ::read(fd, buf, sizeof buf);
    ::close(fd);
    if (got <= 0) return false;
    // "pid (name) S ppid ...": a name may hold spaces and ')', so the last ')' ends it.
    ssize_t close = -1;
    for (ssize_t i = 0; i < got; ++i)
        if (buf[i] == ')') close = i;
    ssize_t i = close + 1;
    if (close < 0 || i + 3 > got || buf[i] != ' ' || buf[i + 2] != ' ') return false;
    *state = buf[i + 1];
    i += 3;  // " S "
    long long value = 0;
    bool any = false;
    for (; i < got && buf[i] >= '0' && buf[i] <= '9'; ++i, any = true) value = value * 10 + (buf[i] - '0');
    *ppid = value;
    if (any && startTicks) {
        // Field 22, starttime: 18 fields after the ppid (4).
        for (int field = 4; field < 22 && i < got; ++i)
            if (buf[i] == ' ') ++field;
        unsigned long long ticks = 0;
        bool anyTick = false;
        for (; i < got && buf[i] >= '0' && buf[i] <= '9'; ++i, anyTick = true)
            ticks = ticks * 10 + static_cast<unsigned>(buf[i] - '0');
        if (!anyTick) return false;
        *startTicks = ticks;
    }
    return any;
}

// The ppid field of /proc/<pid>/stat; -1 when it is gone.
long long ppidOf(long long pid) {
    char state;
    long long ppid;
    return readStat(pid, &state, &ppid) ? ppid : -1;
}

// Every process of the machine with its parent, from the ppid fields of /proc/<pid>/stat: the
// way when the kernel has no children files (CONFIG_PROC_CHILDREN).
std::unordered_multimap<int64_t, int64_t> childrenByScan() {
    std::unordered_multimap<int64_t, int64_t> children;
    if (DIR* d = opendir("/proc")) {
        while (dirent* e = readdir(d)) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
            const long long pid = std::atoll(e->d_name);
            if (const long long ppid = ppidOf(pid); ppid >= 0) children.emplace(ppid, pid);
        }
        closedir(d);
    }
    return children;
}

std::vector<int64_t> descendantsByScan(int64_t root) {
    const auto children = childrenByScan();
    std::vector<int64_t> out;
    std::vector<int64_t> todo{root};
    while (!todo.empty()) {
        int64_t p = todo.back();
        todo.pop_back();
        auto [a, b] = children.equal_range(p);
        for (auto it = a; it != b; ++it) {
            if (std::find(out.begin(), out.end(), it->second) != out.end()) continue;
            out.push_back(it->second);
            todo.push_back(it->second);
        }
    }
    return out;
}

// Appends the children of every thread of `pid` (/proc/<pid>/task/<tid>/children: a forked
// child is listed under the thread that forked it, an orphan under any thread of its reaper).
// False when `pid` has no task directory any more (it ended: nothing to add).
bool appendChildren(int64_t pid, std::vector<int64_t>& out) {
    char dir[64];
    std::snprintf(dir, sizeof dir, "/proc/%lld/task", static_cast<long long>(pid));
    DIR* d = opendir(dir);
    if (!d) return false;
    while (dirent* e = readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[330], buf[4096];
        std::snprintf(path, sizeof path, "%s/%s/children", dir, e->d_name);
        int fd = ::open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        // "pid pid ... " (a space after each); a long list comes in more than one read.
        std::string text;
        ssize_t n;
        while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
        ::close(fd);
        const char* p = text.c_str();
        char* end = nullptr;
        for (long long v = std::strtoll(p, &end, 10); end != p; v = std::strtoll(p, &end, 10)) {
            out.push_back(v);
            p = end;
        }
    }
    closedir(d);
    return true;
}

bool haveChildrenFiles() {
    static const bool have = [] {
        char path[64];
        std::snprintf(path, sizeof path, "/proc/self/task/%ld/children",
                      static_cast<long>(::gettid()));
        return ::access(path, R_OK) == 0;
    }();
    return have;
}

}  // namespace

std::vector<int64_t> descendantsOf(int64_t root) {
    // From the root down through the children files: a few small reads per process of the
    // tree, where the scan read /proc/<pid>/stat of every process of the machine (1-2 ms with
    // a hundred processes, ten times a second while the CPU metrics were sampled).
    if (!haveChildrenFiles()) return descendantsByScan(root);
    std::vector<int64_t> out, found;
    std::unordered_set<int64_t> seen{root};  // a pid reused while we walk is listed once
    appendChildren(root, found);
    while (!found.empty()) {
        const int64_t pid = found.back();
        found.pop_back();
        if (!seen.insert(pid).second) continue;
        out.push_back(pid);
        appendChildren(pid, found);
    }
    return out;
}

std::vector<int64_t> childrenOf(int64_t pid) {
    std::vector<int64_t> out;
    if (haveChildrenFiles()) {
        appendChildren(pid, out);
        return out;
    }
    const auto children = childrenByScan();
    auto [a, b] = children.equal_range(pid);
    for (auto it = a; it != b; ++it) out.push_back(it->second);
    return out;
}

int64_t parentOf(int64_t pid) {
    const long long ppid = ppidOf(pid);
    return ppid > 0 ? ppid : 0;
}

bool isDescendantOf(int64_t pid, int64_t root) {
    // Bounded: a chain longer than any real tree, or one that changes while it is read.
    for (int step = 0; step < 4096 && pid > 1; ++step) {
        const long long ppid = ppidOf(pid);
        if (ppid == root) return true;
        if (ppid <= 0 || ppid == pid) return false;
        pid = ppid;
    }
    return false;
}

bool isStopped(int64_t pid) {
    char state = 0;
    long long ppid;
    return readStat(pid, &state, &ppid) && state == 'T';
}

bool runsSince(int64_t pid, int64_t startMono) {
    char state = 0;
    long long ppid;
    unsigned long long startTicks = 0;
    if (!readStat(pid, &state, &ppid, &startTicks) || state == 'Z' || state == 'X') return false;
    if (startMono <= 0) return true;
    // starttime counts from boot including suspended time; CLOCK_MONOTONIC does not.
    timespec boot{}, mono{};
    clock_gettime(CLOCK_BOOTTIME, &boot);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    const int64_t suspended =
        (boot.tv_sec - mono.tv_sec) * 1'000'000'000ll + (boot.tv_nsec - mono.tv_nsec);
    const int64_t started =
        static_cast<int64_t>(startTicks) * (1'000'000'000ll / sysconf(_SC_CLK_TCK));
    return std::llabs(started - (startMono + suspended)) < 2'000'000'000ll;
}

void killTree(int sig) {
    for (int64_t pid : descendantsOf(getpid())) kill(static_cast<pid_t>(pid), sig);
}

}  // namespace sl::capture
