// `sightline status --environment` checks (capture/launcher/EnvironmentChecks.*) against fake
// /proc trees: every perf_event_paranoid level, privileges, kptr_restrict, containers and PID
// namespaces, missing and garbled files, free space, the NVIDIA libraries (missing, or present
// without their symbols), the warnings `sightline profile` prints, and the text/JSON output.
#include "capture/launcher/EnvironmentChecks.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace sl::capture;

namespace {

class TempTree {
public:
    TempTree() {
        std::string tmpl = (fs::temp_directory_path() / "sightline-envcheck-XXXXXX").string();
        m_root = ::mkdtemp(tmpl.data());
    }
    ~TempTree() {
        std::error_code ec;
        fs::permissions(m_root, fs::perms::owner_all, fs::perm_options::add, ec);
        for (auto it = fs::recursive_directory_iterator(m_root, ec);
             it != fs::recursive_directory_iterator(); it.increment(ec))
            fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(m_root, ec);
    }
    std::string path(const std::string& rel = {}) const {
        return rel.empty() ? m_root : m_root + "/" + rel;
    }
    void write(const std::string& rel, const std::string& content) const {
        fs::create_directories(fs::path(path(rel)).parent_path());
        std::ofstream(path(rel), std::ios::binary) << content;
    }

private:
    std::string m_root;
};

// A /proc tree of an unprivileged, uncontained process; fields are overridden per test.
struct FakeProc {
    TempTree tree;
    std::string paranoid = "2", kptr = "0", rate = "100000", osrelease = "6.1.0-18-amd64";
    std::string uid = "1000", capEff = "0000000000000000", nspid = "4242", seccomp = "0";

    EnvironmentProbe probe() {
        tree.write("proc/sys/kernel/perf_event_paranoid", paranoid + "\n");
        tree.write("proc/sys/kernel/kptr_restrict", kptr + "\n");
        tree.write("proc/sys/kernel/perf_event_max_sample_rate", rate + "\n");
        tree.write("proc/sys/kernel/osrelease", osrelease + "\n");
        tree.write("proc/self/status", "Name:\tsightline\nUid:\t" + uid + "\t" + uid + "\t" + uid +
                                           "\t" + uid + "\nNSpid:\t" + nspid +
                                           "\nCapInh:\t0000000000000000\nCapEff:\t" + capEff +
                                           "\nSeccomp:\t" + seccomp + "\n");
        tree.write("proc/1/cgroup", "0::/init.scope\n");
        tree.write("proc/self/mountinfo",
                   "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
                   "23 22 0:21 / /proc rw,nosuid - proc proc rw\n");
        tree.write("proc/self/ns/pid", "pid:[4026531836]");
        tree.write("fs/etc/hostname", "box\n");
        EnvironmentProbe p;
        p.procRoot = tree.path("proc");
        p.fsRoot = tree.path("fs");
        p.probePerfEvents = false;
        p.probeNvidia = false;
        return p;
    }
};

const EnvironmentCheck& get(const std::vector<EnvironmentCheck>& checks, const std::string& id) {
    for (const auto& c : checks)
        if (c.id == id) return c;
    static EnvironmentCheck missing{"<missing " + id + ">", "", CheckLevel::Fail, "", "", ""};
    ADD_FAILURE() << "no check " << id;
    return missing;
}

bool has(const std::vector<EnvironmentCheck>& checks, const std::string& id) {
    for (const auto& c : checks)
        if (c.id == id) return true;
    return false;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::vector<std::string> perfWarnings(const std::vector<std::string>& all) {
    std::vector<std::string> out;
    for (const auto& w : all)
        if (!contains(w, "disk") && !contains(w, "CUDA") && !contains(w, "GPU")) out.push_back(w);
    return out;
}

constexpr CaptureRequest kEverything{true, true, true, true, true};

// ---- a small strict JSON reader for the output-shape test ----
struct Json {
    enum Type { Null, Bool, Number, String, Array, Object } type = Null;
    std::string text;
    std::vector<Json> items;
    std::map<std::string, Json> fields;
};

class JsonReader {
public:
    explicit JsonReader(const std::string& s) : m_s(s) {}
    bool parse(Json& out) {
        if (!value(out)) return false;
        ws();
        return m_i == m_s.size();
    }

private:
    void ws() {
        while (m_i < m_s.size() &&
               (m_s[m_i] == ' ' || m_s[m_i] == '\n' || m_s[m_i] == '\t' || m_s[m_i] == '\r'))
            ++m_i;
    }
    bool value(Json& v) {
        ws();
        if (m_i >= m_s.size()) return false;
        const char c = m_s[m_i];
        if (c == '"') {
            v.type = Json::String;
            return string(v.text);
        }
        if (c == '[') {
            v.type = Json::Array;
            ++m_i;
            ws();
            if (m_i < m_s.size() && m_s[m_i] == ']') return ++m_i, true;
            for (;;) {
                Json item;
                if (!value(item)) return false;
                v.items.push_back(std::move(item));
                ws();
                if (m_i >= m_s.size()) return false;
                if (m_s[m_i] == ',') {
                    ++m_i;
                    continue;
                }
                if (m_s[m_i] == ']') return ++m_i, true;
                return false;
            }
        }
        if (c == '{') {
            v.type = Json::Object;
            ++m_i;
            ws();
            if (m_i < m_s.size() && m_s[m_i] == '}') return ++m_i, true;
            for (;;) {
                ws();
                std::string key;
                if (m_i >= m_s.size() || m_s[m_i] != '"' || !string(key)) return false;
                ws();
                if (m_i >= m_s.size() || m_s[m_i] != ':') return false;
                ++m_i;
                Json item;
                if (!value(item)) return false;
                if (!v.fields.emplace(key, std::move(item)).second) return false;  // duplicate
                ws();
                if (m_i >= m_s.size()) return false;
                if (m_s[m_i] == ',') {
                    ++m_i;
                    continue;
                }
                if (m_s[m_i] == '}') return ++m_i, true;
                return false;
            }
        }
        return false;  // the checks' JSON has only strings, arrays and objects
    }
    bool string(std::string& out) {
        ++m_i;  // opening quote
        while (m_i < m_s.size()) {
            const unsigned char c = static_cast<unsigned char>(m_s[m_i++]);
            if (c == '"') return true;
            if (c < 0x20) return false;  // raw control characters are invalid JSON
            if (c != '\\') {
                out += static_cast<char>(c);
                continue;
            }
            if (m_i >= m_s.size()) return false;
            const char e = m_s[m_i++];
            switch (e) {
                case '"':
                    out += '"';
                    break;
                case '\\':
                    out += '\\';
                    break;
                case '/':
                    out += '/';
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'n':
                    out += '\n';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'u': {
                    if (m_i + 4 > m_s.size()) return false;
                    const unsigned long cp = std::strtoul(m_s.substr(m_i, 4).c_str(), nullptr, 16);
                    m_i += 4;
                    if (cp >= 0x80) return false;  // we only emit \u for control characters
                    out += static_cast<char>(cp);
                    break;
                }
                default:
                    return false;
            }
        }
        return false;
    }
    const std::string& m_s;
    size_t m_i = 0;
};

}  // namespace

// ---- perf_event_paranoid ----

TEST(EnvironmentChecks, ParanoidLevelsForAnUnprivilegedProcess) {
    struct Case {
        const char* value;
        CheckLevel level;
        const char* meaning;
    };
    const Case cases[] = {
        {"-1", CheckLevel::Ok, "no restrictions"},
        {"0", CheckLevel::Ok, "CPU-wide events"},
        {"1", CheckLevel::Ok, "including kernel samples, and context switches of your own"},
        {"2", CheckLevel::Ok,
         "CPU sampling and context switches of your own processes, user space only"},
        {"3", CheckLevel::Fail, "no perf events at all"},
        {"4", CheckLevel::Fail, "no perf events at all"},
    };
    for (const Case& k : cases) {
        SCOPED_TRACE(k.value);
        FakeProc f;
        f.paranoid = k.value;
        const auto checks = checkEnvironment(f.probe());
        const auto& c = get(checks, "perf_event_paranoid");
        EXPECT_EQ(c.level, k.level);
        EXPECT_EQ(c.value, k.value);
        EXPECT_EQ(c.detail.rfind(std::string(k.value) + " (", 0), 0u) << c.detail;
        EXPECT_TRUE(contains(c.detail, k.meaning)) << c.detail;
        EXPECT_TRUE(contains(c.detail, "uid 1000 without CAP_PERFMON or CAP_SYS_ADMIN"))
            << c.detail;
        if (k.level == CheckLevel::Fail)
            EXPECT_EQ(c.fix, "sudo sysctl kernel.perf_event_paranoid=1");
        else
            EXPECT_EQ(c.fix, "");
        // No probe: no perf_event_open lines.
        EXPECT_FALSE(has(checks, "perf_event_open"));
    }
}

TEST(EnvironmentChecks, CapabilitiesBypassParanoidButRootWithoutThemDoesNot) {
    {
        FakeProc f;
        f.paranoid = "3";
        f.capEff = "0000004000000000";  // CAP_PERFMON (38)
        const EnvironmentCheck c = get(checkEnvironment(f.probe()), "perf_event_paranoid");
        EXPECT_EQ(c.level, CheckLevel::Ok);
        EXPECT_TRUE(contains(c.detail, "does not apply")) << c.detail;
        EXPECT_TRUE(contains(c.detail, "uid 1000 with CAP_PERFMON")) << c.detail;
    }
    {
        FakeProc f;
        f.paranoid = "3";
        f.uid = "0";
        f.capEff = "000001ffffffffff";  // root: CAP_SYS_ADMIN (21) and CAP_PERFMON
        const auto checks = checkEnvironment(f.probe());
        EXPECT_EQ(get(checks, "perf_event_paranoid").level, CheckLevel::Ok);
        EXPECT_TRUE(contains(get(checks, "perf_event_paranoid").detail,
                             "root with CAP_SYS_ADMIN and CAP_PERFMON"));
        EXPECT_TRUE(perfWarnings(captureWarnings(checks, kEverything)).empty());
    }
    {
        FakeProc f;
        f.paranoid = "3";
        f.uid = "0";
        f.capEff = "00000000a80425fb";  // Docker's default root: no CAP_SYS_ADMIN, no CAP_PERFMON
        const EnvironmentCheck c = get(checkEnvironment(f.probe()), "perf_event_paranoid");
        EXPECT_EQ(c.level, CheckLevel::Fail);
        EXPECT_TRUE(contains(c.detail, "the limit applies to root too")) << c.detail;
    }
}

// ---- captureWarnings ----

TEST(EnvironmentChecks, WarningsAtParanoid3) {
    FakeProc f;
    f.paranoid = "3";
    const auto checks = checkEnvironment(f.probe());
    const auto w = perfWarnings(captureWarnings(checks, kEverything));
    ASSERT_EQ(w.size(), 2u) << ::testing::PrintToString(w);
    EXPECT_EQ(w[0],
              "CPU sampling off: perf_event_paranoid is 3; run: sudo sysctl "
              "kernel.perf_event_paranoid=1");
    EXPECT_EQ(w[1],
              "thread scheduling (context switches) off: perf_event_paranoid is 3; run: sudo "
              "sysctl kernel.perf_event_paranoid=1");
    // Only what is asked for.
    EXPECT_TRUE(captureWarnings(checks, CaptureRequest{}).empty());
    CaptureRequest schedOnly;
    schedOnly.contextSwitches = true;
    EXPECT_EQ(captureWarnings(checks, schedOnly).size(), 1u);
}

TEST(EnvironmentChecks, WarningsAtParanoid2And1) {
    {
        FakeProc f;
        f.paranoid = "2";
        f.kptr = "0";
        const auto checks = checkEnvironment(f.probe());
        const auto w = perfWarnings(captureWarnings(checks, kEverything));
        ASSERT_EQ(w.size(), 1u) << ::testing::PrintToString(w);
        EXPECT_EQ(w[0],
                  "kernel samples off (user space only): perf_event_paranoid is 2; run: sudo "
                  "sysctl kernel.perf_event_paranoid=1");
        CaptureRequest userOnly = kEverything;
        userOnly.kernelSamples = false;
        EXPECT_TRUE(perfWarnings(captureWarnings(checks, userOnly)).empty());
    }
    {
        FakeProc f;
        f.paranoid = "1";
        f.kptr = "0";
        const auto checks = checkEnvironment(f.probe());
        EXPECT_EQ(get(checks, "kptr_restrict").level, CheckLevel::Ok);
        EXPECT_TRUE(perfWarnings(captureWarnings(checks, kEverything)).empty());
    }
    {
        FakeProc f;
        f.paranoid = "1";
        f.kptr = "1";  // no CAP_SYSLOG: addresses hidden
        const auto checks = checkEnvironment(f.probe());
        const auto w = perfWarnings(captureWarnings(checks, kEverything));
        ASSERT_EQ(w.size(), 1u) << ::testing::PrintToString(w);
        EXPECT_EQ(w[0],
                  "kernel function names off: kernel addresses are hidden (kptr_restrict is 1); "
                  "run: sudo sysctl kernel.kptr_restrict=0");
    }
}

TEST(EnvironmentChecks, WarningsFollowTheProbeOverTheSysctl) {
    // What the perf_event_open probe found wins: a refused probe in a container (seccomp) is
    // reported with its errno and the container fix even though perf_event_paranoid is fine.
    std::vector<EnvironmentCheck> checks = {
        {"perf_event_paranoid", "perf_event_paranoid", CheckLevel::Ok, "1 (...)", "", "1"},
        {"perf_event_open", "perf_event_open", CheckLevel::Fail, "refused",
         "run the container with --cap-add PERFMON", "EPERM"},
        {"kernel_samples", "kernel samples", CheckLevel::Fail, "refused",
         "run the container with --cap-add PERFMON", "EPERM"},
        {"context_switches", "context switches", CheckLevel::Ok, "ok", "", "ok"},
    };
    auto w = captureWarnings(checks, kEverything);
    ASSERT_EQ(w.size(), 1u) << ::testing::PrintToString(w);
    EXPECT_EQ(w[0],
              "CPU sampling off: perf_event_open refused (EPERM); run the container with "
              "--cap-add PERFMON");
    // A kernel that treats 3 like 2: the probe opened, so no "CPU sampling off".
    checks[0] = {"perf_event_paranoid", "perf_event_paranoid", CheckLevel::Ok, "3 (...)", "", "3"};
    checks[1] = {"perf_event_open", "perf_event_open", CheckLevel::Ok, "ok", "", "ok"};
    checks[2] = {"kernel_samples",
                 "kernel samples",
                 CheckLevel::Warn,
                 "refused",
                 "sudo sysctl kernel.perf_event_paranoid=1",
                 "EACCES"};
    w = captureWarnings(checks, kEverything);
    ASSERT_EQ(w.size(), 1u) << ::testing::PrintToString(w);
    EXPECT_EQ(w[0],
              "kernel samples off (user space only): perf_event_paranoid is 3; run: sudo sysctl "
              "kernel.perf_event_paranoid=1");
}

// ---- missing and garbled files ----

TEST(EnvironmentChecks, MissingProcFilesGiveClearWarnings) {
    TempTree empty;
    EnvironmentProbe p;
    p.procRoot = empty.path("no-proc-here");
    p.fsRoot = empty.path();
    p.probePerfEvents = false;
    p.probeNvidia = false;
    const auto checks = checkEnvironment(p);
    for (const char* id : {"perf_event_paranoid", "kptr_restrict", "perf_event_max_sample_rate",
                           "kernel", "privileges"}) {
        SCOPED_TRACE(id);
        const auto& c = get(checks, id);
        EXPECT_EQ(c.level, CheckLevel::Warn);
        EXPECT_TRUE(contains(c.detail, "cannot read " + p.procRoot + "/")) << c.detail;
    }
    EXPECT_TRUE(contains(get(checks, "perf_event_paranoid").detail,
                         "perf_event_paranoid: No such file or directory"));
    EXPECT_EQ(get(checks, "ptrace_scope").level, CheckLevel::Ok);  // no Yama is normal
    EXPECT_TRUE(contains(get(checks, "ptrace_scope").detail, "Yama is not active"));
    EXPECT_EQ(get(checks, "pid_namespace").value, "unknown");
    EXPECT_EQ(get(checks, "container").value, "no");
    // Unknown is not "off": no warning invented.
    EXPECT_TRUE(captureWarnings(checks, kEverything).empty());
}

TEST(EnvironmentChecks, GarbledValuesAreWarnings) {
    FakeProc f;
    f.paranoid = "two";
    f.kptr = "";
    const auto checks = checkEnvironment(f.probe());
    EXPECT_EQ(get(checks, "perf_event_paranoid").level, CheckLevel::Warn);
    EXPECT_TRUE(contains(get(checks, "perf_event_paranoid").detail, "unexpected content"));
    EXPECT_TRUE(contains(get(checks, "perf_event_paranoid").detail, "\"two\""));
    EXPECT_EQ(get(checks, "kptr_restrict").level, CheckLevel::Warn);
}

// ---- kptr_restrict, sample rate, kernel version ----

TEST(EnvironmentChecks, KptrRestrictFollowsTheKernelsRule) {
    {  // 0 with paranoid 2: addresses hidden unless CAP_SYSLOG; the fix is paranoid.
        FakeProc f;
        f.kptr = "0";
        const EnvironmentCheck c = get(checkEnvironment(f.probe()), "kptr_restrict");
        EXPECT_EQ(c.level, CheckLevel::Warn);
        EXPECT_EQ(c.fix, "sudo sysctl kernel.perf_event_paranoid=1");
    }
    {  // 2 hides from everyone; both sysctls in one command.
        FakeProc f;
        f.kptr = "2";
        const EnvironmentCheck c = get(checkEnvironment(f.probe()), "kptr_restrict");
        EXPECT_EQ(c.level, CheckLevel::Warn);
        EXPECT_EQ(c.fix, "sudo sysctl kernel.kptr_restrict=0 kernel.perf_event_paranoid=1");
    }
    {  // 1 with CAP_SYSLOG (34)
        FakeProc f;
        f.kptr = "1";
        f.capEff = "0000000400000000";
        EXPECT_EQ(get(checkEnvironment(f.probe()), "kptr_restrict").level, CheckLevel::Ok);
    }
    {  // /proc/kallsyms is the truth when readable
        FakeProc f;
        f.kptr = "2";
        auto p = f.probe();
        f.tree.write("proc/kallsyms", "ffffffff81000000 T _stext\nffffffff81000010 T other\n");
        EXPECT_EQ(get(checkEnvironment(p), "kptr_restrict").level, CheckLevel::Ok);
        f.tree.write("proc/kallsyms", "0000000000000000 T _stext\n0000000000000000 T other\n");
        EXPECT_EQ(get(checkEnvironment(p), "kptr_restrict").level, CheckLevel::Warn);
    }
}

TEST(EnvironmentChecks, SampleRateAndKernelVersion) {
    FakeProc f;
    f.rate = "500";
    f.osrelease = "4.1.12";
    f.paranoid = "1";
    f.kptr = "0";
    const auto checks = checkEnvironment(f.probe());
    EXPECT_EQ(get(checks, "perf_event_max_sample_rate").level, CheckLevel::Warn);
    EXPECT_EQ(get(checks, "perf_event_max_sample_rate").fix,
              "sudo sysctl kernel.perf_event_max_sample_rate=8000");
    EXPECT_EQ(get(checks, "kernel").level, CheckLevel::Warn);
    EXPECT_TRUE(contains(get(checks, "kernel").detail, "older than 4.3"));
    const auto w = perfWarnings(captureWarnings(checks, kEverything));
    ASSERT_EQ(w.size(), 1u) << ::testing::PrintToString(w);
    EXPECT_EQ(w[0],
              "CPU sampling may be refused: perf_event_max_sample_rate is 500 Hz; run: sudo "
              "sysctl kernel.perf_event_max_sample_rate=8000");
    FakeProc g;
    g.osrelease = "5.4.0-150-generic";
    const EnvironmentCheck k = get(checkEnvironment(g.probe()), "kernel");
    EXPECT_EQ(k.level, CheckLevel::Ok);
    EXPECT_TRUE(contains(k.detail, "CAP_PERFMON does not exist"));
}

// ---- containers, namespaces, LD_PRELOAD ----

TEST(EnvironmentChecks, ContainerAndPidNamespace) {
    {
        FakeProc f;
        const auto checks = checkEnvironment(f.probe());
        EXPECT_EQ(get(checks, "container").value, "no");
        EXPECT_EQ(get(checks, "pid_namespace").value, "initial");
    }
    {  // Docker marker file: fixes for sysctls go to the host
        FakeProc f;
        f.paranoid = "3";
        auto p = f.probe();
        f.tree.write("fs/.dockerenv", "");
        const auto checks = checkEnvironment(p);
        EXPECT_EQ(get(checks, "container").value, "yes");
        EXPECT_TRUE(contains(get(checks, "container").detail, "/.dockerenv"));
        EXPECT_EQ(get(checks, "perf_event_paranoid").fix,
                  "on the host: sudo sysctl kernel.perf_event_paranoid=1");
        const auto w = perfWarnings(captureWarnings(checks, kEverything));
        ASSERT_FALSE(w.empty());
        EXPECT_EQ(w[0],
                  "CPU sampling off: perf_event_paranoid is 3; on the host: sudo sysctl "
                  "kernel.perf_event_paranoid=1");
    }
    {  // cgroup names, overlay root, seccomp
        FakeProc f;
        f.seccomp = "2";
        auto p = f.probe();
        f.tree.write("proc/1/cgroup", "12:pids:/docker/0123abcd\n0::/docker/0123abcd\n");
        f.tree.write("proc/self/mountinfo",
                     "500 400 0:52 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/a\n");
        const auto checks = checkEnvironment(p);
        const auto& c = get(checks, "container");
        EXPECT_EQ(c.value, "yes");
        EXPECT_TRUE(contains(c.detail, "cgroup names docker")) << c.detail;
        EXPECT_TRUE(contains(c.detail, "root file system is overlay")) << c.detail;
        EXPECT_EQ(c.level, CheckLevel::Warn);  // seccomp filter without CAP_PERFMON
        EXPECT_TRUE(contains(c.fix, "--cap-add PERFMON"));
    }
    {  // a child PID namespace, from NSpid or from the namespace inode
        FakeProc f;
        f.nspid = "81234\t7";
        const auto checks = checkEnvironment(f.probe());
        EXPECT_EQ(get(checks, "pid_namespace").value, "child");
        EXPECT_TRUE(contains(get(checks, "pid_namespace").detail, "namespace's, not the host's"));
        FakeProc g;
        auto p = g.probe();
        g.tree.write("proc/self/ns/pid", "pid:[4026532288]");
        const auto c2 = checkEnvironment(p);
        EXPECT_EQ(get(c2, "pid_namespace").value, "child");
        EXPECT_EQ(get(c2, "container").value, "yes");  // a PID namespace is container evidence
    }
}

TEST(EnvironmentChecks, PreloadNotes) {
    FakeProc f;
    auto p = f.probe();
    static const char environ[] =
        "HOME=/root\0LD_PRELOAD=/x/libasan.so\0CUDA_INJECTION64_PATH=/y/libother.so\0";
    f.tree.write("proc/self/environ", std::string(environ, sizeof environ - 1));
    f.tree.write("fs/etc/ld.so.preload", "/lib/libhook.so\n");
    const EnvironmentCheck c = get(checkEnvironment(p), "ld_preload");
    EXPECT_EQ(c.level, CheckLevel::Ok);
    EXPECT_TRUE(contains(c.detail, "setuid/setgid")) << c.detail;
    EXPECT_TRUE(contains(c.detail, "statically linked")) << c.detail;
    EXPECT_TRUE(contains(c.detail, "LD_PRELOAD is already set (/x/libasan.so)")) << c.detail;
    EXPECT_TRUE(contains(c.detail, "CUDA_INJECTION64_PATH is set (/y/libother.so)")) << c.detail;
    EXPECT_TRUE(contains(c.detail, "/etc/ld.so.preload loads /lib/libhook.so")) << c.detail;
}

TEST(EnvironmentChecks, InjectionModules) {
    FakeProc f;
    auto p = f.probe();
    EXPECT_FALSE(has(checkEnvironment(p), "inject_library"));  // empty injectDir: skipped
    p.injectDir = f.tree.path("lib/sightline");
    f.tree.write("lib/sightline/libsightline-inject.so", std::string("\x7f"
                                                                     "ELF\x02\x01\x01",
                                                                     7));
    f.tree.write("lib/sightline/libsightline-cuda.so", "#!/bin/sh\n");  // not ELF
    auto checks = checkEnvironment(p);
    EXPECT_EQ(get(checks, "inject_library").level, CheckLevel::Ok);
    EXPECT_EQ(get(checks, "cuda_library").level, CheckLevel::Warn);
    EXPECT_TRUE(contains(get(checks, "cuda_library").detail, "not an ELF shared library"));
    CaptureRequest cuda;
    cuda.cuda = true;
    auto w = captureWarnings(checks, cuda);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0].rfind("CUDA trace off: " + p.injectDir + "/libsightline-cuda.so", 0), 0u)
        << w[0];
    p.injectDir = f.tree.path("nowhere");
    checks = checkEnvironment(p);
    EXPECT_EQ(get(checks, "inject_library").level, CheckLevel::Fail);
    EXPECT_TRUE(contains(get(checks, "inject_library").detail, "No such file or directory"));
    EXPECT_TRUE(contains(get(checks, "inject_library").fix, "SIGHTLINE_INJECT_DIR"));
}

// ---- NVIDIA libraries ----

TEST(EnvironmentChecks, NoNvidiaDriverIsAWarning) {
    FakeProc f;
    auto p = f.probe();
    p.probeNvidia = true;
    p.cudaDriverLib = "libsightline-test-no-such-cuda.so.1";
    p.nvmlLib = "libsightline-test-no-such-nvml.so.1";
    p.cuptiLib = "libsightline-test-no-such-cupti.so";
    p.cuptiSearchDirs = {f.tree.path()};
    const auto checks = checkEnvironment(p);
    for (const char* id : {"cuda_driver", "nvml"}) {
        SCOPED_TRACE(id);
        EXPECT_EQ(get(checks, id).level, CheckLevel::Warn);
        EXPECT_EQ(
            get(checks, id)
                .detail.rfind("no NVIDIA driver: CUDA and GPU metrics capture unavailable", 0),
            0u)
            << get(checks, id).detail;
    }
    EXPECT_EQ(get(checks, "cupti").level, CheckLevel::Warn);
    EXPECT_TRUE(contains(get(checks, "cupti").detail, "not found"));
    const auto w = captureWarnings(checks, kEverything);
    std::vector<std::string> nvidia;
    for (const auto& s : w)
        if (contains(s, "CUDA") || contains(s, "GPU")) nvidia.push_back(s);
    ASSERT_EQ(nvidia.size(), 2u) << ::testing::PrintToString(w);
    EXPECT_EQ(nvidia[0], "CUDA trace off: no NVIDIA driver; install the NVIDIA driver");
    EXPECT_EQ(nvidia[1], "GPU metrics off: no NVIDIA driver; install the NVIDIA driver");
}

TEST(EnvironmentChecks, LibrariesWithoutTheirSymbols) {
    // libm loads but is neither a driver nor NVML: dlopen succeeds, dlsym finds nothing.
    FakeProc f;
    auto p = f.probe();
    p.probeNvidia = true;
    p.cudaDriverLib = "libm.so.6";
    p.nvmlLib = "libm.so.6";
    p.cuptiLib = "libm.so.6";
    const auto checks = checkEnvironment(p);
    EXPECT_EQ(get(checks, "cuda_driver").level, CheckLevel::Warn);
    EXPECT_TRUE(contains(get(checks, "cuda_driver").detail, "has no cuDriverGetVersion"));
    EXPECT_EQ(get(checks, "nvml").level, CheckLevel::Warn);
    EXPECT_TRUE(contains(get(checks, "nvml").detail, "lacks nvmlInit_v2"));
    EXPECT_EQ(get(checks, "cupti").level, CheckLevel::Warn);  // found, but no driver
    EXPECT_TRUE(contains(get(checks, "cupti").detail, "libm.so.6"));
}

// ---- free space ----

TEST(EnvironmentChecks, FreeSpaceLevels) {
    const uint64_t MiB = 1024 * 1024;
    EXPECT_EQ(freeSpaceLevel(0), CheckLevel::Fail);
    EXPECT_EQ(freeSpaceLevel(100 * MiB - 1), CheckLevel::Fail);
    EXPECT_EQ(freeSpaceLevel(100 * MiB), CheckLevel::Warn);
    EXPECT_EQ(freeSpaceLevel(1024 * MiB - 1), CheckLevel::Warn);
    EXPECT_EQ(freeSpaceLevel(1024 * MiB), CheckLevel::Ok);
}

TEST(EnvironmentChecks, FreeSpaceOfDirectories) {
    FakeProc f;
    auto p = f.probe();
    const std::string good = f.tree.path("out"), missing = f.tree.path("missing/dir"),
                      file = f.tree.path("a-file");
    fs::create_directories(good);
    f.tree.write("a-file", "x");
    // Root writes into a mode-0555 directory, so use procfs (no new files, not even for root).
    std::string readOnly = f.tree.path("ro");
    fs::create_directories(readOnly);
    ::chmod(readOnly.c_str(), 0555);
    if (::geteuid() == 0) readOnly = "/proc";
    p.directories = {good, missing, file, readOnly, good};
    const auto checks = checkEnvironment(p);
    size_t spaceChecks = 0;
    for (const auto& c : checks) spaceChecks += c.id.rfind("free_space:", 0) == 0;
    EXPECT_EQ(spaceChecks, 4u);  // the duplicate is checked once

    const auto& g = get(checks, "free_space:" + good);
    EXPECT_EQ(g.title, "free space " + good);
    EXPECT_EQ(g.level, freeSpaceLevel(std::stoull(g.value)));
    EXPECT_TRUE(contains(g.detail, " free of ")) << g.detail;
    EXPECT_TRUE(fs::is_empty(good));  // the write test leaves nothing behind

    const auto& m = get(checks, "free_space:" + missing);
    EXPECT_EQ(m.level, CheckLevel::Fail);
    EXPECT_EQ(m.detail, "No such file or directory");
    EXPECT_EQ(m.fix, "mkdir -p " + missing + " (or choose another directory)");

    EXPECT_EQ(get(checks, "free_space:" + file).level, CheckLevel::Fail);
    EXPECT_EQ(get(checks, "free_space:" + file).detail, "not a directory");

    const auto& r = get(checks, "free_space:" + readOnly);
    EXPECT_EQ(r.level, CheckLevel::Fail);
    EXPECT_EQ(r.detail.rfind("not writable: ", 0), 0u) << r.detail;

    // Disk problems are warned about whatever is requested, with their path.
    const auto w = captureWarnings(checks, CaptureRequest{});
    EXPECT_GE(w.size(), 3u);
    bool sawMissing = false, sawReadOnly = false;
    for (const auto& s : w) {
        sawMissing |= s == missing + ": No such file or directory; run: mkdir -p " + missing +
                               " (or choose another directory)";
        sawReadOnly |= s.rfind(readOnly + ": not writable: ", 0) == 0;
    }
    EXPECT_TRUE(sawMissing) << ::testing::PrintToString(w);
    EXPECT_TRUE(sawReadOnly) << ::testing::PrintToString(w);
}

// ---- output ----

TEST(EnvironmentChecks, FormatChecksLines) {
    const std::vector<EnvironmentCheck> checks = {
        {"perf_event_paranoid", "perf_event_paranoid", CheckLevel::Ok,
         "2 (CPU sampling and context switches of your own processes)", "", "2"},
        {"x", "two lines", CheckLevel::Warn, "first\nsecond", "", ""},
        {"perf_event_paranoid", "perf_event_paranoid", CheckLevel::Fail, "3 (nothing)",
         "sudo sysctl kernel.perf_event_paranoid=1", "3"},
    };
    EXPECT_EQ(formatChecks(checks),
              "OK   perf_event_paranoid: 2 (CPU sampling and context switches of your own "
              "processes)\n"
              "WARN two lines: first\n"
              "     second\n"
              "FAIL perf_event_paranoid: 3 (nothing)\n"
              "     fix: sudo sysctl kernel.perf_event_paranoid=1\n");
    EXPECT_EQ(formatChecks({}), "");
}

TEST(EnvironmentChecks, JsonEscapesAndParses) {
    const std::string nasty = "a \"quoted\" path\\with\\backslashes\nsecond line\ttab\x01 µs";
    std::vector<EnvironmentCheck> checks = {
        {"free_space:/tmp/\"x\"", "free space /tmp/\"x\"", CheckLevel::Warn, nasty, "fix \"it\"",
         "123"},
        {"kernel", "Linux kernel", CheckLevel::Ok, "6.1", "", "6.1"},
        {"perf_event_open", "perf_event_open", CheckLevel::Fail, "refused", "sudo x", "EACCES"},
    };
    const std::string text = checksJson(checks);
    Json root;
    ASSERT_TRUE(JsonReader(text).parse(root)) << text;
    ASSERT_EQ(root.type, Json::Array);
    ASSERT_EQ(root.items.size(), 3u);
    const char* levels[] = {"warn", "ok", "fail"};
    for (size_t i = 0; i < 3; ++i) {
        const Json& o = root.items[i];
        ASSERT_EQ(o.type, Json::Object);
        EXPECT_EQ(o.fields.size(), 6u);
        for (const char* key : {"id", "title", "level", "detail", "fix", "value"}) {
            ASSERT_TRUE(o.fields.count(key)) << key;
            EXPECT_EQ(o.fields.at(key).type, Json::String) << key;
        }
        EXPECT_EQ(o.fields.at("id").text, checks[i].id);
        EXPECT_EQ(o.fields.at("title").text, checks[i].title);
        EXPECT_EQ(o.fields.at("level").text, levels[i]);
        EXPECT_EQ(o.fields.at("detail").text, checks[i].detail);
        EXPECT_EQ(o.fields.at("fix").text, checks[i].fix);
        EXPECT_EQ(o.fields.at("value").text, checks[i].value);
    }
    EXPECT_FALSE(contains(text, "\x01"));  // control characters are escaped
    Json none;
    ASSERT_TRUE(JsonReader(checksJson({})).parse(none));
    EXPECT_EQ(none.type, Json::Array);
    EXPECT_TRUE(none.items.empty());
}

// ---- the real machine ----

TEST(EnvironmentChecks, RealEnvironmentIsSafeAndConsistent) {
    EnvironmentProbe p;  // real /proc, real perf_event_open, real dlopen (with or without a GPU)
    p.directories = {sessionParentDirectory()};
    const auto checks = checkEnvironment(p);
    std::set<std::string> ids;
    for (const auto& c : checks) {
        SCOPED_TRACE(c.id);
        EXPECT_TRUE(ids.insert(c.id).second) << "duplicate id";
        EXPECT_FALSE(c.title.empty());
        EXPECT_FALSE(c.detail.empty());
    }
    for (const char* id : {"kernel", "perf_event_paranoid", "perf_event_open", "kernel_samples",
                           "context_switches", "kptr_restrict", "ptrace_scope", "ld_preload",
                           "cuda_driver", "cupti", "nvml", "container", "pid_namespace"})
        EXPECT_TRUE(ids.count(id)) << id;
    const auto& open = get(checks, "perf_event_open");
    EXPECT_EQ(open.level == CheckLevel::Ok, open.value == "ok") << open.value;
    EXPECT_NE(open.level, CheckLevel::Warn);
    CaptureRequest sampling;
    sampling.cpuSampling = true;
    bool samplingOff = false;
    for (const auto& w : captureWarnings(checks, sampling))
        samplingOff |= w.rfind("CPU sampling off", 0) == 0;
    EXPECT_EQ(samplingOff, open.level == CheckLevel::Fail);
    // Without a driver the NVIDIA checks warn (never fail); with one the driver line is OK.
    EXPECT_NE(get(checks, "cuda_driver").level, CheckLevel::Fail);
    EXPECT_NE(get(checks, "nvml").level, CheckLevel::Fail);
    if (const char* dump = std::getenv("SIGHTLINE_ENV_DUMP"); dump && *dump)
        std::fputs(formatChecks(checks).c_str(), stdout);
}
