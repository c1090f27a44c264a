#include "capture/launcher/EnvironmentChecks.h"

#include "model/util/JsonWriter.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "capture/launcher/SchedTracer.h"
#include "model/options/OptionDef.h"

namespace sl::capture {
namespace {

constexpr uint64_t kMiB = 1024ull * 1024;
constexpr uint64_t kGiB = 1024 * kMiB;
constexpr int kCapSysAdmin = 21, kCapSyslog = 34, kCapPerfmon = 38;
constexpr unsigned long kInitialPidNamespace = 4026531836ul;  // PROC_PID_INIT_INO

// The file's first `limit` bytes; false (and errno in `err`) when it cannot be read.
bool readFile(const std::string& path, std::string& out, int& err, size_t limit = 1 << 20) {
    out.clear();
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        err = errno;
        return false;
    }
    char buf[4096];
    while (out.size() < limit) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            err = errno;
            ::close(fd);
            return false;
        }
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    if (out.size() > limit) out.resize(limit);
    err = 0;
    return true;
}

std::string trim(std::string s) {
    const char* ws = " \t\r\n";
    const size_t b = s.find_first_not_of(ws);
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

bool parseLong(const std::string& text, long& value) {
    const std::string t = trim(text);
    if (t.empty()) return false;
    char* end = nullptr;
    errno = 0;
    value = std::strtol(t.c_str(), &end, 10);
    return errno == 0 && end && *end == 0;
}

// "Name:\tvalue" lines of /proc/<pid>/status.
std::string statusField(const std::string& status, const std::string& name) {
    size_t pos = 0;
    while (pos < status.size()) {
        size_t eol = status.find('\n', pos);
        if (eol == std::string::npos) eol = status.size();
        if (status.compare(pos, name.size() + 1, name + ":") == 0)
            return trim(status.substr(pos + name.size() + 1, eol - pos - name.size() - 1));
        pos = eol + 1;
    }
    return {};
}

std::string errnoName(int e) {
    switch (e) {
        case EACCES:
            return "EACCES";
        case EPERM:
            return "EPERM";
        case ENOENT:
            return "ENOENT";
        case ENODEV:
            return "ENODEV";
        case ENOSYS:
            return "ENOSYS";
        case EOPNOTSUPP:
            return "EOPNOTSUPP";
        case EINVAL:
            return "EINVAL";
        case EBUSY:
            return "EBUSY";
        case EMFILE:
            return "EMFILE";
        case EROFS:
            return "EROFS";
        case ENOSPC:
            return "ENOSPC";
        case ENOTDIR:
            return "ENOTDIR";
        default:
            return "errno " + std::to_string(e);
    }
}

std::string errnoText(int e) {  // "Permission denied (EACCES)"
    return std::string(std::strerror(e)) + " (" + errnoName(e) + ")";
}

std::string humanBytes(uint64_t bytes) {
    char buf[64];
    if (bytes >= kGiB)
        std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / kGiB);
    else if (bytes >= kMiB)
        std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(bytes) / kMiB);
    else
        std::snprintf(buf, sizeof buf, "%.0f KiB", static_cast<double>(bytes) / 1024);
    return buf;
}

EnvironmentCheck make(std::string id, std::string title, CheckLevel level, std::string detail,
                      std::string fix = {}, std::string value = {}) {
    EnvironmentCheck c;
    c.id = std::move(id);
    c.title = std::move(title);
    c.level = level;
    c.detail = std::move(detail);
    c.fix = std::move(fix);
    c.value = std::move(value);
    return c;
}

// ---- what the process is allowed (euid, effective capabilities) ----

struct Privileges {
    bool known = false;  // /proc/self/status was read
    long euid = -1;
    uint64_t capEff = 0;
    bool has(int cap) const { return known && (capEff >> cap & 1u) != 0; }
    bool perfmon() const { return has(kCapPerfmon) || has(kCapSysAdmin); }
    std::string describe() const {
        if (!known) return "privileges unknown";
        std::string s = euid == 0 ? "root" : "uid " + std::to_string(euid);
        if (has(kCapSysAdmin) && has(kCapPerfmon)) return s + " with CAP_SYS_ADMIN and CAP_PERFMON";
        if (has(kCapSysAdmin)) return s + " with CAP_SYS_ADMIN";
        if (has(kCapPerfmon)) return s + " with CAP_PERFMON";
        return s + " without CAP_PERFMON or CAP_SYS_ADMIN";
    }
};

Privileges readPrivileges(const std::string& status, bool statusRead) {
    Privileges p;
    if (!statusRead) return p;
    const std::string uid = statusField(status, "Uid");  // real, effective, saved, fs
    const std::string cap = statusField(status, "CapEff");
    if (uid.empty() || cap.empty()) return p;
    char* end = nullptr;
    std::strtol(uid.c_str(), &end, 10);
    p.euid = std::strtol(end, nullptr, 10);
    p.capEff = std::strtoull(cap.c_str(), nullptr, 16);
    p.known = true;
    return p;
}

// ---- containers and PID namespaces ----

struct ContainerInfo {
    std::vector<std::string> evidence;  // empty: not in a container as far as we can tell
    int seccomp = -1;                   // /proc/self/status Seccomp: 0 off, 1 strict, 2 filter
    int pidNamespace = -1;              // 1: a child PID namespace, 0: the initial one, -1: unknown
    std::string pidNamespaceHow;
    bool inContainer() const { return !evidence.empty(); }
};

ContainerInfo readContainer(const EnvironmentProbe& p, const std::string& status, bool statusRead) {
    ContainerInfo c;
    if (exists(p.fsRoot + "/.dockerenv")) c.evidence.push_back("/.dockerenv exists (Docker)");
    if (exists(p.fsRoot + "/run/.containerenv"))
        c.evidence.push_back("/run/.containerenv exists (Podman)");
    std::string text;
    int err = 0;
    if (readFile(p.procRoot + "/1/cgroup", text, err, 64 * 1024)) {
        for (const char* word : {"docker", "kubepods", "containerd", "libpod", "lxc", "podman"}) {
            if (text.find(word) != std::string::npos) {
                c.evidence.push_back(std::string("/proc/1/cgroup names ") + word);
                break;
            }
        }
    }
    if (readFile(p.procRoot + "/self/mountinfo", text, err, 1 << 20)) {
        // "id parent major:minor root mountpoint options [optional...] - fstype source super"
        size_t pos = 0;
        while (pos < text.size()) {
            size_t eol = text.find('\n', pos);
            if (eol == std::string::npos) eol = text.size();
            const std::string line = text.substr(pos, eol - pos);
            pos = eol + 1;
            char mountPoint[512] = {};
            if (std::sscanf(line.c_str(), "%*s %*s %*s %*s %511s", mountPoint) != 1) continue;
            if (std::strcmp(mountPoint, "/") != 0) continue;
            const size_t dash = line.find(" - ");
            if (dash == std::string::npos) continue;
            char fsType[128] = {};
            if (std::sscanf(line.c_str() + dash + 3, "%127s", fsType) != 1) continue;
            const std::string fs = fsType;
            if (fs == "overlay" || fs == "overlayfs" || fs == "fuse-overlayfs" || fs == "aufs")
                c.evidence.push_back("the root file system is " + fs);
        }
    }
    if (statusRead) {
        long v = 0;
        if (parseLong(statusField(status, "Seccomp"), v)) c.seccomp = static_cast<int>(v);
        const std::string nspid = statusField(status, "NSpid");
        if (!nspid.empty()) {
            size_t fields = 0;
            bool inWord = false;
            for (char ch : nspid) {
                const bool space = ch == ' ' || ch == '\t';
                if (!space && !inWord) ++fields;
                inWord = !space;
            }
            if (fields > 1) {
                c.pidNamespace = 1;
                c.pidNamespaceHow = "NSpid in /proc/self/status lists " + std::to_string(fields) +
                                    " pids (" + nspid + ")";
            }
        }
    }
    if (c.pidNamespace < 0) {
        char link[256] = {};
        const std::string self = p.procRoot + "/self/ns/pid";
        ssize_t n = ::readlink(self.c_str(), link, sizeof link - 1);
        std::string target;
        if (n > 0) {
            target.assign(link, static_cast<size_t>(n));
        } else {
            // A test tree (or a file system without the link) may hold the text as a file.
            int e = 0;
            if (readFile(self, target, e, 256)) target = trim(target);
        }
        unsigned long inode = 0;
        if (!target.empty() && std::sscanf(target.c_str(), "pid:[%lu]", &inode) == 1) {
            c.pidNamespace = inode == kInitialPidNamespace ? 0 : 1;
            c.pidNamespaceHow = "/proc/self/ns/pid is " + target +
                                (c.pidNamespace ? " (the initial one is pid:[4026531836])" : "");
        }
    }
    if (c.pidNamespace == 1 && c.evidence.empty())
        c.evidence.push_back("a non-initial PID namespace");
    return c;
}

// ---- perf_event_open probes ----

int perfOpen(perf_event_attr& attr) {  // 0 or errno
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) return errno;
    ::close(static_cast<int>(fd));
    return 0;
}

int probeCpuClock(bool kernel) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.disabled = 1;
    a.inherit = 1;
    a.exclude_kernel = kernel ? 0 : 1;
    a.exclude_hv = 1;
    return perfOpen(a);
}

// Context-switch records as SchedTracer opens them. Under perf_event_paranoid 2 an event that
// does not exclude the kernel is refused (EACCES) even though it only carries side-band records;
// the same event with exclude_kernel=1 opens and delivers every switch of the process.
int probeContextSwitches(bool excludeKernel) {
    perf_event_attr a = SchedTracer::contextSwitchEvent(excludeKernel);
    a.disabled = 1;  // a probe: opened and closed, never counting
    return perfOpen(a);
}

// ---- dlopen ----

struct Library {
    void* handle = nullptr;
    std::string error, path;
    // keepLoaded: RTLD_NODELETE, for libraries whose static state does not survive dlclose
    // (libcupti allocates at load and never frees: unloading it leaks and LeakSanitizer says so).
    explicit Library(const std::string& name, bool keepLoaded = false) {
        dlerror();
        handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | (keepLoaded ? RTLD_NODELETE : 0));
        if (!handle) {
            const char* e = dlerror();
            error = e ? e : "dlopen failed";
        } else {
            path = name;
        }
    }
    ~Library() {
        if (handle) dlclose(handle);
    }
    Library(const Library&) = delete;
    Library& operator=(const Library&) = delete;
    template <typename F>
    F symbol(const char* name) const {
        return handle ? reinterpret_cast<F>(dlsym(handle, name)) : nullptr;
    }
};

std::string cudaVersion(int v) {  // 13000 -> "13.0"
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// ---- the checks ----

struct Context {
    const EnvironmentProbe& p;
    std::string status;
    bool statusRead = false;
    int statusErr = 0;
    Privileges priv;
    ContainerInfo container;
    int userProbe = -1;  // perf_event_open result: 0, errno, or -1 when not probed
    long paranoid = 0;
    bool paranoidKnown = false;
    std::string hostPrefix() const { return container.inContainer() ? "on the host: " : ""; }
};

std::string paranoidFix(const Context& c) {
    return c.hostPrefix() + "sudo sysctl kernel.perf_event_paranoid=1";
}

EnvironmentCheck kernelCheck(const Context& c) {
    const std::string path = c.p.procRoot + "/sys/kernel/osrelease";
    std::string text;
    int err = 0;
    if (!readFile(path, text, err, 256))
        return make(
            "kernel", "Linux kernel", CheckLevel::Warn,
            "cannot read " + path + ": " + std::strerror(err) + " (kernel version unknown)");
    const std::string release = trim(text);
    int major = 0, minor = 0;
    std::sscanf(release.c_str(), "%d.%d", &major, &minor);
    if (major < 4 || (major == 4 && minor < 3))
        return make(
            "kernel", "Linux kernel", CheckLevel::Warn,
            release + " (older than 4.3: no context-switch records, so no thread scheduling)",
            "upgrade to a Linux 4.3 or newer kernel", release);
    std::string detail = release;
    if (major < 5 || (major == 5 && minor < 8))
        detail +=
            " (older than 5.8: CAP_PERFMON does not exist, only CAP_SYS_ADMIN lifts perf limits)";
    return make("kernel", "Linux kernel", CheckLevel::Ok, detail, {}, release);
}

EnvironmentCheck paranoidCheck(const Context& c, int userProbe /* -1: not probed */) {
    const std::string path = c.p.procRoot + "/sys/kernel/perf_event_paranoid";
    std::string text;
    int err = 0;
    long v = 0;
    if (!readFile(path, text, err, 64)) {
        return make("perf_event_paranoid", "perf_event_paranoid", CheckLevel::Warn,
                    "cannot read " + path + ": " + std::strerror(err) +
                        " (a kernel without perf events, or /proc is not mounted): CPU sampling "
                        "and thread scheduling may be unavailable");
    }
    if (!parseLong(text, v))
        return make("perf_event_paranoid", "perf_event_paranoid", CheckLevel::Warn,
                    "unexpected content in " + path + ": \"" + trim(text) + "\"");
    const std::string value = std::to_string(v);
    std::string meaning;
    if (v <= -1)
        meaning =
            "no restrictions: CPU sampling with kernel samples, context switches, "
            "CPU-wide events and raw tracepoints";
    else if (v == 0)
        meaning = "CPU sampling including kernel samples, context switches and CPU-wide events";
    else if (v == 1)
        meaning =
            "CPU sampling including kernel samples, and context switches of your own processes";
    else if (v == 2)
        meaning =
            "CPU sampling and context switches of your own processes, user space only: "
            "no kernel samples";
    else
        meaning =
            "Debian/Ubuntu kernels allow no perf events at all to unprivileged users: "
            "CPU sampling and thread scheduling are off";
    if (c.priv.perfmon())
        return make("perf_event_paranoid", "perf_event_paranoid", CheckLevel::Ok,
                    value + " (does not apply: this process runs as " + c.priv.describe() +
                        ", every perf event is allowed, kernel samples included)",
                    {}, value);
    std::string who;
    if (c.priv.known && c.priv.euid == 0)
        who = "; root " + std::string(c.container.inContainer() ? "in this container " : "") +
              "has neither CAP_PERFMON nor CAP_SYS_ADMIN, so the limit applies to root too";
    else if (c.priv.known)
        who = "; applies to this process (" + c.priv.describe() +
              "; root with CAP_PERFMON or CAP_SYS_ADMIN is not limited)";
    if (v <= 2)
        return make("perf_event_paranoid", "perf_event_paranoid", CheckLevel::Ok,
                    value + " (" + meaning + who + ")", {}, value);
    if (userProbe == 0)  // an upstream kernel treats values above 2 like 2
        return make("perf_event_paranoid", "perf_event_paranoid", CheckLevel::Ok,
                    value +
                        " (this kernel treats it like 2: CPU sampling and context switches of "
                        "your own processes, user space only" +
                        who + ")",
                    {}, value);
    return make("perf_event_paranoid", "perf_event_paranoid", CheckLevel::Fail,
                value + " (" + meaning + who + ")", paranoidFix(c), value);
}

// What a refused perf_event_open means and how to fix it.
void explainRefusal(const Context& c, int e, std::string& why, std::string& fix) {
    if (e == EACCES) {
        why = "perf_event_paranoid forbids it";
        fix = paranoidFix(c);
    } else if (e == EPERM) {
        if (c.container.inContainer() || c.container.seccomp == 2) {
            why =
                "a seccomp filter or missing capability blocks perf_event_open (Docker's default "
                "profile allows it only with CAP_PERFMON or CAP_SYS_ADMIN)";
            fix =
                "run the container with --cap-add PERFMON (or --cap-add SYS_ADMIN, or "
                "--security-opt seccomp=unconfined)";
        } else {
            why = "perf_event_paranoid or a security module forbids it";
            fix = paranoidFix(c);
        }
    } else if (e == ENOSYS) {
        why =
            "the kernel has no perf_event_open (CONFIG_PERF_EVENTS off) or a seccomp filter "
            "hides it";
        fix = c.container.inContainer() ? "run the container with --security-opt seccomp=unconfined"
                                        : "use a kernel built with CONFIG_PERF_EVENTS=y";
    } else if (e == ENOENT || e == ENODEV || e == EOPNOTSUPP) {
        why = "the kernel offers no such event here (virtual machine or restricted kernel)";
    } else if (e == EMFILE) {
        why = "too many open files";
        fix = "ulimit -n 65536";
    } else {
        why = "unexpected refusal";
    }
}

void perfChecks(const Context& c, std::vector<EnvironmentCheck>& out, int user, int kernel,
                int sched) {
    std::string why, fix;
    if (user == 0) {
        out.push_back(make("perf_event_open", "perf_event_open", CheckLevel::Ok,
                           "a cpu-clock event on this process opened: CPU sampling works", {},
                           "ok"));
    } else {
        explainRefusal(c, user, why, fix);
        out.push_back(make("perf_event_open", "perf_event_open", CheckLevel::Fail,
                           "a cpu-clock event on this process was refused: " + errnoText(user) +
                               ": " + why + "; CPU sampling is off",
                           fix, errnoName(user)));
    }
    if (kernel == 0) {
        out.push_back(make("kernel_samples", "kernel samples", CheckLevel::Ok,
                           "samples taken in the kernel are kept (one [kernel] frame on top of the "
                           "user stack)",
                           {}, "ok"));
    } else {
        explainRefusal(c, kernel, why, fix);
        if (kernel == EACCES) why = "perf_event_paranoid 2 or more allows user space only";
        out.push_back(make(
            "kernel_samples", "kernel samples", user == 0 ? CheckLevel::Warn : CheckLevel::Fail,
            "a cpu-clock event including the kernel was refused: " + errnoText(kernel) + ": " +
                why + "; samples show user space only, time in system calls is not seen",
            kernel == EACCES ? paranoidFix(c) : fix, errnoName(kernel)));
    }
    if (sched == 0 || sched == -2) {
        out.push_back(make("context_switches", "context switches", CheckLevel::Ok,
                           std::string("context-switch records of this process opened") +
                               (sched == -2 ? " (as a user-space event)" : "") +
                               ": thread scheduling works",
                           {}, sched == 0 ? "ok" : "user"));
    } else {
        explainRefusal(c, sched, why, fix);
        out.push_back(make("context_switches", "context switches", CheckLevel::Fail,
                           "context-switch records were refused: " + errnoText(sched) + ": " + why +
                               "; thread scheduling (thread states) is off",
                           fix, errnoName(sched)));
    }
}

EnvironmentCheck sampleRateCheck(const Context& c) {
    const std::string path = c.p.procRoot + "/sys/kernel/perf_event_max_sample_rate";
    std::string text;
    int err = 0;
    long v = 0;
    if (!readFile(path, text, err, 64) || !parseLong(text, v))
        return make("perf_event_max_sample_rate", "perf_event_max_sample_rate", CheckLevel::Warn,
                    "cannot read " + path + (err ? std::string(": ") + std::strerror(err) : "") +
                        " (the highest sampling frequency is unknown)");
    const std::string value = std::to_string(v);
    // The default and the highest --sampling-frequency, from the option definition.
    const options::OptionDef* hz = options::findOption("profile", "sampling-frequency");
    const std::string defaultHz(hz->defaultValue);
    if (v < std::stol(defaultHz))
        return make("perf_event_max_sample_rate", "perf_event_max_sample_rate", CheckLevel::Warn,
                    value + " Hz: below the default --sampling-frequency " + defaultHz +
                        ", which the kernel refuses (it lowers this limit itself when sampling "
                        "interrupts take too long, see kernel.perf_cpu_time_max_percent)",
                    c.hostPrefix() + "sudo sysctl kernel.perf_event_max_sample_rate=" +
                        std::to_string(hz->max),
                    value);
    return make("perf_event_max_sample_rate", "perf_event_max_sample_rate", CheckLevel::Ok,
                value + " Hz (the highest --sampling-frequency the kernel accepts)", {}, value);
}

EnvironmentCheck kptrCheck(const Context& c) {
    const std::string path = c.p.procRoot + "/sys/kernel/kptr_restrict";
    std::string text;
    int err = 0;
    long v = 0;
    if (!readFile(path, text, err, 64) || !parseLong(text, v))
        return make("kptr_restrict", "kptr_restrict", CheckLevel::Warn,
                    "cannot read " + path + (err ? std::string(": ") + std::strerror(err) : "") +
                        " (whether kernel samples get function names is unknown)");
    const std::string value = std::to_string(v);
    // The truth for this process: does /proc/kallsyms show addresses?
    int visible = -1;
    std::string syms;
    if (readFile(c.p.procRoot + "/kallsyms", syms, err, 16 * 1024) && !syms.empty()) {
        visible = 0;
        size_t pos = 0;
        for (int line = 0; line < 32 && pos < syms.size(); ++line) {
            const size_t eol = std::min(syms.find('\n', pos), syms.size());
            const std::string address = syms.substr(pos, syms.find(' ', pos) - pos);
            if (address.find_first_not_of('0') != std::string::npos && !address.empty() &&
                address.size() < eol - pos) {
                visible = 1;
                break;
            }
            pos = eol + 1;
        }
    }
    // The kernel's rule (kallsyms_show_value): 0 shows addresses when perf_event_paranoid <= 1
    // or with CAP_SYSLOG, 1 only with CAP_SYSLOG, 2 never.
    const bool paranoidLow = c.paranoidKnown && c.paranoid <= 1;
    if (visible < 0) visible = (v == 0 && paranoidLow) || (v <= 1 && c.priv.has(kCapSyslog));
    if (visible)
        return make("kptr_restrict", "kptr_restrict", CheckLevel::Ok,
                    value + " (kernel addresses are visible: kernel samples get function names)",
                    {}, value);
    std::string why, fix;
    if (v == 0) {
        why =
            "0 shows kernel addresses only when perf_event_paranoid is 1 or less, or with "
            "CAP_SYSLOG";
        fix = paranoidFix(c);
    } else {
        why =
            v == 1 ? "1 shows kernel addresses only with CAP_SYSLOG" : "2 hides them from everyone";
        fix = c.hostPrefix() + "sudo sysctl kernel.kptr_restrict=0" +
              (paranoidLow ? "" : " kernel.perf_event_paranoid=1");
    }
    return make("kptr_restrict", "kptr_restrict", CheckLevel::Warn,
                value + " (kernel addresses are hidden from this process: " + why +
                    "; kernel samples show as [kernel] without function names)",
                fix, value);
}

EnvironmentCheck ptraceCheck(const Context& c) {
    const std::string path = c.p.procRoot + "/sys/kernel/yama/ptrace_scope";
    std::string text;
    int err = 0;
    long v = 0;
    const std::string note = "; sightline starts the program itself and does not use ptrace";
    if (!readFile(path, text, err, 64))
        return make("ptrace_scope", "ptrace_scope", CheckLevel::Ok,
                    "Yama is not active (" + path + ": " + std::strerror(err) +
                        "): classic ptrace permissions" + note);
    if (!parseLong(text, v))
        return make("ptrace_scope", "ptrace_scope", CheckLevel::Warn,
                    "unexpected content in " + path + ": \"" + trim(text) + "\"");
    const std::string value = std::to_string(v);
    const char* meaning = v <= 0   ? "classic ptrace permissions"
                          : v == 1 ? "only a parent may ptrace its children: debuggers attaching "
                                     "to a running program need sudo"
                          : v == 2 ? "only CAP_SYS_PTRACE may attach"
                                   : "no process may attach";
    return make("ptrace_scope", "ptrace_scope", CheckLevel::Ok, value + " (" + meaning + note + ")",
                {}, value);
}

// Variables of /proc/self/environ.
std::string environValue(const std::string& environ, const std::string& name) {
    size_t pos = 0;
    while (pos < environ.size()) {
        size_t end = environ.find('\0', pos);
        if (end == std::string::npos) end = environ.size();
        if (environ.compare(pos, name.size() + 1, name + "=") == 0)
            return environ.substr(pos + name.size() + 1, end - pos - name.size() - 1);
        pos = end + 1;
    }
    return {};
}

EnvironmentCheck preloadCheck(const Context& c) {
    std::string detail =
        "programs are traced through LD_PRELOAD: setuid/setgid programs (the loader ignores "
        "LD_PRELOAD for them) and statically linked programs (no loader) run untraced; CPU "
        "sampling and thread scheduling still see them";
    std::string environ, text;
    int err = 0;
    if (readFile(c.p.procRoot + "/self/environ", environ, err, 1 << 20)) {
        const std::string preload = environValue(environ, "LD_PRELOAD");
        if (!preload.empty())
            detail += "; LD_PRELOAD is already set (" + preload +
                      "): those libraries stay first, sightline's is added after them";
        const std::string cuda = environValue(environ, "CUDA_INJECTION64_PATH");
        if (!cuda.empty())
            detail += "; CUDA_INJECTION64_PATH is set (" + cuda +
                      "): -t cuda replaces it with libsightline-cuda.so";
    }
    if (readFile(c.p.fsRoot + "/etc/ld.so.preload", text, err, 64 * 1024) && !trim(text).empty()) {
        std::string list = trim(text);
        for (char& ch : list)
            if (ch == '\n') ch = ' ';
        detail += "; /etc/ld.so.preload loads " + list + " into every program";
    }
    return make("ld_preload", "LD_PRELOAD", CheckLevel::Ok, detail);
}

bool isElf(const std::string& path, int& err) {
    std::string head;
    if (!readFile(path, head, err, 4)) return false;
    err = 0;
    return head.size() == 4 && head.compare(0, 4,
                                            "\x7f"
                                            "ELF") == 0;
}

void moduleChecks(const Context& c, std::vector<EnvironmentCheck>& out) {
    const std::string dir = c.p.injectDir;
    int err = 0;
    const std::string inject = dir + "/libsightline-inject.so";
    if (isElf(inject, err))
        out.push_back(
            make("inject_library", "injection library", CheckLevel::Ok, inject, {}, inject));
    else
        out.push_back(make("inject_library", "injection library", CheckLevel::Fail,
                           inject +
                               (err ? std::string(": ") + std::strerror(err)
                                    : std::string(": not an ELF shared library")) +
                               ": programs cannot be traced (NVTX, OS runtime, processes)",
                           "reinstall sightline, or set SIGHTLINE_INJECT_DIR to the directory "
                           "holding libsightline-inject.so"));
    const std::string cuda = dir + "/libsightline-cuda.so";
    if (isElf(cuda, err))
        out.push_back(
            make("cuda_library", "CUDA injection library", CheckLevel::Ok, cuda, {}, cuda));
    else
        out.push_back(make("cuda_library", "CUDA injection library", CheckLevel::Warn,
                           cuda +
                               (err ? std::string(": ") + std::strerror(err)
                                    : std::string(": not an ELF shared library")) +
                               ": this sightline was built without CUDA capture; -t cuda records "
                               "nothing",
                           "build sightline with the CUDA toolkit (CUPTI) installed"));
}

void nvidiaChecks(const Context& c, std::vector<EnvironmentCheck>& out) {
    const EnvironmentProbe& p = c.p;
    const std::string containerGpu =
        c.container.inContainer()
            ? " (in a container: run it with --gpus all and the NVIDIA Container Toolkit)"
            : "";
    bool driver = false;
    {
        Library cuda(p.cudaDriverLib);
        if (!cuda.handle) {
            out.push_back(make(
                "cuda_driver", "CUDA driver", CheckLevel::Warn,
                "no NVIDIA driver: CUDA and GPU metrics capture unavailable (" + cuda.error + ")",
                "install the NVIDIA driver" + containerGpu));
        } else {
            using GetVersion = int (*)(int*);
            auto get = cuda.symbol<GetVersion>("cuDriverGetVersion");
            int v = 0;
            if (!get) {
                out.push_back(
                    make("cuda_driver", "CUDA driver", CheckLevel::Warn,
                         p.cudaDriverLib + " has no cuDriverGetVersion: not a CUDA driver",
                         "reinstall the NVIDIA driver"));
            } else if (int rc = get(&v); rc != 0) {
                out.push_back(
                    make("cuda_driver", "CUDA driver", CheckLevel::Warn,
                         "cuDriverGetVersion failed (CUresult " + std::to_string(rc) + ")",
                         "reinstall the NVIDIA driver"));
            } else {
                driver = true;
                out.push_back(make("cuda_driver", "CUDA driver", CheckLevel::Ok,
                                   p.cudaDriverLib + ": CUDA " + cudaVersion(v), {},
                                   cudaVersion(v)));
            }
        }
    }
    {
        std::vector<std::string> candidates = {p.cuptiLib};
        if (p.cuptiLib.find('/') == std::string::npos)
            for (const std::string& d : p.cuptiSearchDirs)
                candidates.push_back(d + "/" + p.cuptiLib);
        std::string firstError;
        bool found = false;
        for (const std::string& name : candidates) {
            if (name != p.cuptiLib && !exists(name)) continue;
            Library cupti(name, true);
            if (!cupti.handle) {
                if (firstError.empty()) firstError = cupti.error;
                continue;
            }
            found = true;
            using GetVersion = int (*)(uint32_t*);
            auto get = cupti.symbol<GetVersion>("cuptiGetVersion");
            uint32_t v = 0;
            std::string detail = name;
            std::string value;
            if (get && get(&v) == 0) {
                detail += ": CUPTI API version " + std::to_string(v);
                value = std::to_string(v);
            }
            if (!driver) detail += " (no CUDA driver: it cannot trace here)";
            out.push_back(make("cupti", "CUPTI", driver ? CheckLevel::Ok : CheckLevel::Warn, detail,
                               {}, value));
            break;
        }
        if (!found)
            out.push_back(
                make("cupti", "CUPTI", CheckLevel::Warn,
                     p.cuptiLib + " not found (" + firstError +
                         "): libsightline-cuda.so finds it only through the toolkit it "
                         "was built with; without it CUDA is not traced",
                     "install the CUDA toolkit's CUPTI (e.g. apt install cuda-cupti-13-0) "
                     "or add its lib directory to LD_LIBRARY_PATH"));
    }
    {
        Library nvml(p.nvmlLib);
        if (!nvml.handle) {
            out.push_back(make(
                "nvml", "NVML", CheckLevel::Warn,
                "no NVIDIA driver: CUDA and GPU metrics capture unavailable (" + nvml.error + ")",
                "install the NVIDIA driver" + containerGpu));
            return;
        }
        using Init = int (*)();
        using Shutdown = int (*)();
        using DriverVersion = int (*)(char*, unsigned);
        using Count = int (*)(unsigned*);
        using ErrorString = const char* (*)(int);
        auto init = nvml.symbol<Init>("nvmlInit_v2");
        auto shutdown = nvml.symbol<Shutdown>("nvmlShutdown");
        auto version = nvml.symbol<DriverVersion>("nvmlSystemGetDriverVersion");
        auto count = nvml.symbol<Count>("nvmlDeviceGetCount_v2");
        auto errorString = nvml.symbol<ErrorString>("nvmlErrorString");
        auto text = [&](int rc) {
            const char* s = errorString ? errorString(rc) : nullptr;
            return "NVML error " + std::to_string(rc) + (s ? std::string(": ") + s : "");
        };
        if (!init || !shutdown || !version || !count) {
            out.push_back(make("nvml", "NVML", CheckLevel::Warn,
                               p.nvmlLib + " lacks nvmlInit_v2/nvmlSystemGetDriverVersion/"
                                           "nvmlDeviceGetCount_v2: GPU metrics unavailable",
                               "reinstall the NVIDIA driver"));
            return;
        }
        if (int rc = init(); rc != 0) {
            out.push_back(make("nvml", "NVML", CheckLevel::Warn,
                               "nvmlInit_v2 failed (" + text(rc) + "): GPU metrics unavailable",
                               "check the NVIDIA driver with nvidia-smi" + containerGpu));
            return;
        }
        char buf[96] = {};
        std::string driverVersion = version(buf, sizeof buf) == 0 ? buf : "unknown";
        unsigned gpus = 0;
        const int rc = count(&gpus);
        shutdown();
        if (rc != 0 || gpus == 0)
            out.push_back(make("nvml", "NVML", CheckLevel::Warn,
                               "driver " + driverVersion + ", " +
                                   (rc != 0 ? "nvmlDeviceGetCount_v2 failed (" + text(rc) + ")"
                                            : std::string("no GPU visible")) +
                                   ": CUDA and GPU metrics capture unavailable",
                               "check nvidia-smi and CUDA_VISIBLE_DEVICES" + containerGpu,
                               driverVersion));
        else
            out.push_back(make("nvml", "NVML", CheckLevel::Ok,
                               "driver " + driverVersion + ", " + std::to_string(gpus) +
                                   (gpus == 1 ? " GPU" : " GPUs") + " visible",
                               {}, driverVersion));
    }
}

void containerChecks(const Context& c, std::vector<EnvironmentCheck>& out) {
    const ContainerInfo& k = c.container;
    if (!k.inContainer()) {
        out.push_back(
            make("container", "container", CheckLevel::Ok, "not in a container", {}, "no"));
    } else {
        std::string how;
        for (const std::string& e : k.evidence) how += (how.empty() ? "" : ", ") + e;
        std::string detail =
            "in a container (" + how + "): " +
            (c.userProbe == 0 ? std::string("perf events work here")
             : c.userProbe > 0
                 ? std::string("perf events are refused here (see perf_event_open)")
                 : std::string("perf events may be blocked by seccomp or a missing CAP_PERFMON")) +
            "; perf_event_paranoid and kptr_restrict are the host's (change them on the host); "
            "GPUs need --gpus (NVIDIA Container Toolkit)";
        CheckLevel level = CheckLevel::Ok;
        std::string fix;
        if (k.seccomp == 2 && !c.priv.perfmon()) {
            detail += "; a seccomp filter is active and this process lacks CAP_PERFMON";
            level = CheckLevel::Warn;
            fix = "run the container with --cap-add PERFMON (or --privileged)";
        }
        out.push_back(make("container", "container", level, detail, fix, "yes"));
    }
    if (k.pidNamespace == 1)
        out.push_back(make("pid_namespace", "PID namespace", CheckLevel::Ok,
                           "a non-initial PID namespace (" + k.pidNamespaceHow +
                               "): process ids in the report are this namespace's, not the "
                               "host's",
                           {}, "child"));
    else if (k.pidNamespace == 0)
        out.push_back(make("pid_namespace", "PID namespace", CheckLevel::Ok,
                           "the initial PID namespace: process ids are the host's", {}, "initial"));
    else
        out.push_back(make("pid_namespace", "PID namespace", CheckLevel::Ok,
                           "unknown (" + c.p.procRoot +
                               "/self/ns/pid is not readable): process ids may be a namespace's",
                           {}, "unknown"));
}


const EnvironmentCheck* find(const std::vector<EnvironmentCheck>& checks, const std::string& id) {
    for (const auto& c : checks)
        if (c.id == id) return &c;
    return nullptr;
}

// "no NVIDIA driver: CUDA and GPU metrics capture unavailable (dlerror text)" -> "no NVIDIA
// driver".
std::string shortDetail(const std::string& detail) {
    const std::string noDriver = "no NVIDIA driver";
    if (detail.rfind(noDriver, 0) == 0) return noDriver;
    return detail;
}

std::string withFix(const std::string& message, const std::string& fix) {
    if (fix.empty()) return message;
    const bool command =
        fix.rfind("sudo ", 0) == 0 || fix.rfind("ulimit ", 0) == 0 || fix.rfind("mkdir ", 0) == 0;
    return message + (command ? "; run: " : "; ") + fix;
}

void jsonString(std::string& out, const std::string& s) {
    JsonWriter::escape(out, s);  // the one JSON string writer: escapes, valid UTF-8
}

}  // namespace

EnvironmentCheck directoryCheck(const std::string& dir) {
    const std::string id = "free_space:" + dir, title = "free space " + dir;
    const std::string fix =
        "free space there, or use another directory (TMPDIR for the session directory, -o for "
        "the report)";
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
        const int e = errno;
        return make(id, title, CheckLevel::Fail, std::strerror(e),
                    "mkdir -p " + dir + " (or choose another directory)", errnoName(e));
    }
    if (!S_ISDIR(st.st_mode))
        return make(id, title, CheckLevel::Fail, "not a directory", "choose a directory",
                    "ENOTDIR");
    // Writable for real (root passes access(W_OK) on read-only mounts' modes, not on EROFS).
    std::string probe = dir + "/.sightline-write-test-XXXXXX";
    int fd = ::mkstemp(probe.data());
    if (fd < 0) {
        const int e = errno;
        const bool full = e == ENOSPC || e == EDQUOT;
        return make(id, title, CheckLevel::Fail,
                    std::string(full ? "full: " : "not writable: ") + errnoText(e) +
                        ": the capture cannot store data",
                    "choose a writable directory (TMPDIR for the session directory, -o for the "
                    "report)",
                    errnoName(e));
    }
    ::close(fd);
    ::unlink(probe.c_str());
    struct statvfs vfs {};
    if (::statvfs(dir.c_str(), &vfs) != 0) {
        const int e = errno;
        return make(id, title, CheckLevel::Warn, "statvfs failed: " + errnoText(e));
    }
    const uint64_t available = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    const uint64_t total = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize;
    const CheckLevel level = freeSpaceLevel(available);
    std::string detail = humanBytes(available) + " free of " + humanBytes(total);
    if (level == CheckLevel::Fail)
        detail += " (under 100 MiB: a capture fills it in seconds and stops early)";
    else if (level == CheckLevel::Warn)
        detail += " (under 1 GiB: long or CUDA-heavy captures may fill it)";
    return make(id, title, level, detail, level == CheckLevel::Ok ? std::string() : fix,
                std::to_string(available));
}

// `ulimit -f` (RLIMIT_FSIZE) is inherited by the program and by the profiler: the modules keep
// their files under it (capture/common/FileSizeLimit.h) and lose what does not fit; a report
// larger than it cannot be written (the raw capture is kept then).
EnvironmentCheck fileSizeLimitCheck() {
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return make("file_size_limit", "file-size limit", CheckLevel::Ok, "none");
    const uint64_t bytes = limit.rlim_cur;
    return make("file_size_limit", "file-size limit", CheckLevel::Warn,
                humanBytes(bytes) + " (ulimit -f " + std::to_string(bytes / 1024) +
                    "): each process's capture files stay under it and records past it are "
                    "lost (counted in the report); a larger report cannot be written",
                limit.rlim_max == RLIM_INFINITY ? "ulimit -S -f unlimited"
                                                : "raise the limit (ulimit -f)",
                std::to_string(bytes));
}

const char* levelName(CheckLevel level) {
    switch (level) {
        case CheckLevel::Ok:
            return "ok";
        case CheckLevel::Warn:
            return "warn";
        case CheckLevel::Fail:
            return "fail";
    }
    return "fail";
}

CheckLevel freeSpaceLevel(uint64_t bytesAvailable) {
    if (bytesAvailable < 100 * kMiB) return CheckLevel::Fail;
    if (bytesAvailable < kGiB) return CheckLevel::Warn;
    return CheckLevel::Ok;
}

std::string sessionParentDirectory() {
    const char* tmp = std::getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

std::vector<EnvironmentCheck> checkEnvironment(const EnvironmentProbe& probe) {
    Context c{probe};
    c.statusRead = readFile(probe.procRoot + "/self/status", c.status, c.statusErr, 64 * 1024);
    c.priv = readPrivileges(c.status, c.statusRead);
    c.container = readContainer(probe, c.status, c.statusRead);

    {
        std::string text;
        int err = 0;
        c.paranoidKnown =
            readFile(probe.procRoot + "/sys/kernel/perf_event_paranoid", text, err, 64) &&
            parseLong(text, c.paranoid);
    }
    int user = -1, kernel = -1, sched = -1;
    if (probe.probePerfEvents) {
        user = c.userProbe = probeCpuClock(false);
        kernel = probeCpuClock(true);
        sched = probeContextSwitches(false);
        if (sched == EACCES || sched == EPERM) {
            // user-space only, as under paranoid 2; -2: opened that way
            if (probeContextSwitches(true) == 0) sched = -2;
        }
    }

    std::vector<EnvironmentCheck> out;
    out.push_back(kernelCheck(c));
    if (!c.statusRead)
        out.push_back(make("privileges", "privileges", CheckLevel::Warn,
                           "cannot read " + probe.procRoot +
                               "/self/status: " + std::strerror(c.statusErr) +
                               " (whether this process may bypass perf limits is unknown)"));
    out.push_back(paranoidCheck(c, probe.probePerfEvents ? user : -1));
    if (probe.probePerfEvents) perfChecks(c, out, user, kernel, sched);
    out.push_back(sampleRateCheck(c));
    out.push_back(kptrCheck(c));
    out.push_back(ptraceCheck(c));
    out.push_back(preloadCheck(c));
    if (!probe.injectDir.empty()) moduleChecks(c, out);
    if (probe.probeNvidia) nvidiaChecks(c, out);
    containerChecks(c, out);
    out.push_back(fileSizeLimitCheck());
    std::set<std::string> seen;
    for (const std::string& dir : probe.directories)
        if (!dir.empty() && seen.insert(dir).second) out.push_back(directoryCheck(dir));
    return out;
}

std::string formatChecks(const std::vector<EnvironmentCheck>& checks) {
    std::string out;
    for (const auto& c : checks) {
        out += c.level == CheckLevel::Ok     ? "OK   "
               : c.level == CheckLevel::Warn ? "WARN "
                                             : "FAIL ";
        std::string line = c.title + ": " + c.detail;
        for (size_t i = 0; i < line.size(); ++i) {
            out += line[i];
            if (line[i] == '\n' && i + 1 < line.size()) out += "     ";
        }
        if (line.empty() || line.back() != '\n') out += '\n';
        if (!c.fix.empty()) out += "     fix: " + c.fix + "\n";
    }
    return out;
}

std::string checksJson(const std::vector<EnvironmentCheck>& checks) {
    std::string out = "[";
    for (size_t i = 0; i < checks.size(); ++i) {
        const auto& c = checks[i];
        out += i ? ",\n  {" : "\n  {";
        out += "\"id\":";
        jsonString(out, c.id);
        out += ",\"title\":";
        jsonString(out, c.title);
        out += ",\"level\":\"";
        out += levelName(c.level);
        out += "\",\"detail\":";
        jsonString(out, c.detail);
        out += ",\"fix\":";
        jsonString(out, c.fix);
        out += ",\"value\":";
        jsonString(out, c.value);
        out += "}";
    }
    out += checks.empty() ? "]\n" : "\n]\n";
    return out;
}

std::vector<std::string> captureWarnings(const std::vector<EnvironmentCheck>& checks,
                                         const CaptureRequest& r) {
    std::vector<std::string> out;
    const EnvironmentCheck* paranoid = find(checks, "perf_event_paranoid");
    const bool paranoidFail = paranoid && paranoid->level == CheckLevel::Fail;
    // Why a perf feature is off: perf_event_paranoid when that is the cause, else the probe.
    auto perfOff = [&](const std::string& what, const EnvironmentCheck* probe) {
        if (paranoidFail && (!probe || probe->value == "EACCES"))
            out.push_back(
                withFix(what + " off: perf_event_paranoid is " + paranoid->value, paranoid->fix));
        else if (probe)
            out.push_back(
                withFix(what + " off: perf_event_open refused (" + probe->value + ")", probe->fix));
    };
    const EnvironmentCheck* sampling = find(checks, "perf_event_open");
    const bool samplingOff = sampling ? sampling->level == CheckLevel::Fail : paranoidFail;
    if (r.cpuSampling && samplingOff) perfOff("CPU sampling", sampling);
    if (r.cpuSampling && r.kernelSamples && !samplingOff) {
        const EnvironmentCheck* kernel = find(checks, "kernel_samples");
        long paranoidValue = 0;
        const bool paranoidKnown = paranoid && parseLong(paranoid->value, paranoidValue);
        bool kernelOff = false;
        std::string why, fix;
        if (kernel && kernel->level != CheckLevel::Ok) {
            kernelOff = true;
            why = kernel->value == "EACCES" && paranoidKnown
                      ? "perf_event_paranoid is " + paranoid->value
                      : "perf_event_open refused (" + kernel->value + ")";
            fix = kernel->fix;
        } else if (!kernel && paranoidKnown && paranoidValue >= 2 &&
                   paranoid->detail.find("does not apply") == std::string::npos) {
            kernelOff = true;
            why = "perf_event_paranoid is " + paranoid->value;
            fix = (find(checks, "container") && find(checks, "container")->value == "yes"
                       ? "on the host: "
                       : "") +
                  std::string("sudo sysctl kernel.perf_event_paranoid=1");
        }
        if (kernelOff) {
            out.push_back(withFix("kernel samples off (user space only): " + why, fix));
        } else if (const EnvironmentCheck* kptr = find(checks, "kptr_restrict");
                   kptr && kptr->level != CheckLevel::Ok && !kptr->value.empty()) {
            out.push_back(
                withFix("kernel function names off: kernel addresses are hidden "
                        "(kptr_restrict is " +
                            kptr->value + ")",
                        kptr->fix));
        }
    }
    if (r.contextSwitches) {
        const EnvironmentCheck* sched = find(checks, "context_switches");
        if (sched ? sched->level == CheckLevel::Fail : paranoidFail)
            perfOff("thread scheduling (context switches)", sched);
    }
    if (r.cpuSampling && !samplingOff) {
        const EnvironmentCheck* rate = find(checks, "perf_event_max_sample_rate");
        if (rate && rate->level == CheckLevel::Warn && !rate->value.empty())
            out.push_back(withFix(
                "CPU sampling may be refused: perf_event_max_sample_rate is " + rate->value + " Hz",
                rate->fix));
    }
    if (r.cuda) {
        const EnvironmentCheck* module = find(checks, "cuda_library");
        const EnvironmentCheck* driver = find(checks, "cuda_driver");
        const EnvironmentCheck* cupti = find(checks, "cupti");
        if (module && module->level != CheckLevel::Ok)
            out.push_back("CUDA trace off: " + module->detail);
        else if (driver && driver->level != CheckLevel::Ok)
            out.push_back(withFix("CUDA trace off: " + shortDetail(driver->detail), driver->fix));
        else if (cupti && cupti->level != CheckLevel::Ok)
            out.push_back(withFix("CUDA trace may be off: " + cupti->detail, cupti->fix));
    }
    if (r.gpuMetrics) {
        const EnvironmentCheck* nvml = find(checks, "nvml");
        if (nvml && nvml->level != CheckLevel::Ok)
            out.push_back(withFix("GPU metrics off: " + shortDetail(nvml->detail), nvml->fix));
    }
    if (const EnvironmentCheck* fsize = find(checks, "file_size_limit");
        fsize && fsize->level != CheckLevel::Ok)
        out.push_back(withFix("file-size limit " + fsize->detail, fsize->fix));
    for (const auto& c : checks)
        if (std::string line = directoryWarning(c); !line.empty()) out.push_back(line);
    return out;
}

std::string directoryWarning(const EnvironmentCheck& c) {
    if (c.id.rfind("free_space:", 0) != 0 || c.level == CheckLevel::Ok) return {};
    const std::string dir = c.id.substr(std::strlen("free_space:"));
    return withFix(
        (c.level == CheckLevel::Fail ? dir + ": " : "low disk space in " + dir + ": ") + c.detail,
        c.fix);
}

}  // namespace sl::capture
