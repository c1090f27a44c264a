// The CUPTI injection library loaded the way the CUDA driver loads it (dlopen +
// InitializeInjection), in a child process. Without a GPU driver it must not crash or fail the
// program, and must leave the reason in the session directory for the report.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "tests/cuda/RawStreamUtil.h"

namespace sl::cuda {
namespace {

// Runs InitializeInjection in a child; returns the child's pid and exit status.
std::pair<pid_t, int> runInjection(const char* sessionDir) {
    pid_t pid = fork();
    if (pid == 0) {
        if (sessionDir)
            setenv("SIGHTLINE_SESSION_DIR", sessionDir, 1);
        else
            unsetenv("SIGHTLINE_SESSION_DIR");
        void* h = dlopen(SIGHTLINE_CUDA_INJECTION, RTLD_NOW | RTLD_LOCAL);
        if (!h) _exit(10);
        auto init = reinterpret_cast<int (*)()>(dlsym(h, "InitializeInjection"));
        if (!init) _exit(11);
        if (init() != 1) _exit(12);
        if (init() != 1) _exit(13);  // a second call is harmless
        std::exit(0);                // runs the atexit flush
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
    auto raw = test::readModuleStreams(dir, "cupti");
    ASSERT_TRUE(raw.error.empty()) << raw.error;
    ASSERT_EQ(raw.files, 1);
    EXPECT_EQ(raw.pid, pid);
    bool hasDriver = std::filesystem::exists("/proc/driver/nvidia/version");
    if (!hasDriver) {
        int found = 0;
        for (const auto& m : raw.metas) {
            if (m.kind != capture::MetaKind::Diagnostic || m.strs.at(0) != "cuda.trace_unavailable")
                continue;
            ++found;
            EXPECT_EQ(m.ints.at(0), 1);
            EXPECT_FALSE(m.strs.at(1).empty());
            std::printf("reason recorded: %s\n", m.strs.at(1).c_str());
        }
        EXPECT_EQ(found, 1);
        EXPECT_TRUE(raw.events.empty());
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sl::cuda
