// The CUPTI injection library loaded the way the CUDA driver loads it (dlopen +
// InitializeInjection), in a child process. Without a GPU driver it must not crash or fail the
// program, and must leave the reason in the session directory for the report.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "capture/cupti/CudaStreamMerge.h"
#include "model/core/ReportBuilder.h"

namespace sl::cuda {
namespace {

// Runs InitializeInjection in a child; returns the child's pid and exit status.
std::pair<pid_t, int> runInjection(const char* sessionDir) {
    pid_t pid = fork();
    if (pid == 0) {
        if (sessionDir) setenv("SIGHTLINE_SESSION_DIR", sessionDir, 1);
        else unsetenv("SIGHTLINE_SESSION_DIR");
        void* h = dlopen(SIGHTLINE_CUDA_INJECTION, RTLD_NOW | RTLD_LOCAL);
        if (!h) _exit(10);
        auto init = reinterpret_cast<int (*)()>(dlsym(h, "InitializeInjection"));
        if (!init) _exit(11);
        if (init() != 1) _exit(12);
        if (init() != 1) _exit(13);  // a second call is harmless
        std::exit(0);                 // runs the atexit flush
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return {pid, status};
}

TEST(CudaInjection, ExportsOnlyInitializeInjection) {
    void* h = dlopen(SIGHTLINE_CUDA_INJECTION, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr) << dlerror();
    EXPECT_NE(dlsym(h, "InitializeInjection"), nullptr);
    EXPECT_EQ(dlsym(h, "_ZN2sl4cuda14CuptiConverter7convertEPK14CUpti_Activity"), nullptr);
    dlclose(h);
}

TEST(CudaInjection, WithoutSessionDirectoryTheProgramRunsOn) {
    auto [pid, status] = runInjection(nullptr);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(CudaInjection, WithoutDriverTheReportSaysWhy) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sl-inject-XXXXXX").string();
    std::string dir = mkdtemp(tmpl.data());
    auto [pid, status] = runInjection(dir.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    ReportBuilder b;
    auto m = mergeCudaStreams(dir, b);
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_EQ(m->files, 1);
    auto r = b.finish();
    bool hasDriver = std::filesystem::exists("/proc/driver/nvidia/version");
    if (!hasDriver) {
        ASSERT_EQ(r->diagnosticCount("cuda.trace_unavailable"), 1);
        for (const auto& d : r->diagnostics)
            if (d.name == "cuda.trace_unavailable") {
                EXPECT_EQ(d.pid, pid);
                EXPECT_FALSE(d.reason.empty());
                std::printf("reason recorded: %s\n", d.reason.c_str());
            }
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sl::cuda
