// sightline-demo: a small program to try `sightline profile` on (scripts/demo.sh). About two
// seconds of NVTX-annotated work on 4 threads: "frame" ranges with nested "compute" and
// "write-file" ranges, sleeps, a file written and fsynced, and a child process (itself with
// --child) doing its own NVTX work. Where the CUDA driver is present and the demo was built
// with the CUDA toolkit, it also runs GPU work (demo_gpu.cu, loaded from
// libsightline-demo-gpu.so next to it); it says which it did.
#include <dlfcn.h>
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

double spin(int iterations) {
    double x = 0;
    for (int i = 0; i < iterations; ++i) x += std::sqrt(static_cast<double>(i));
    return x;
}

void worker(int id) {
    std::string name = "demo-worker-" + std::to_string(id);
    pthread_setname_np(pthread_self(), name.c_str());
    std::string path = "/tmp/sightline-demo-" + std::to_string(getpid()) + "-" + std::to_string(id);
    volatile double sink = 0;
    for (int frame = 0; frame < 20; ++frame) {
        nvtxRangePushA("frame");
        nvtxRangePushA("compute");
        sink = sink + spin(200000 + 50000 * id);
        nvtxRangePop();
        if (frame % 5 == 0) {
            nvtxRangePushA("write-file");
            int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd >= 0) {
                std::vector<char> data(1 << 20, static_cast<char>('a' + id));
                [[maybe_unused]] ssize_t w = write(fd, data.data(), data.size());
                fsync(fd);
                close(fd);
            }
            nvtxRangePop();
        }
        usleep(50000 + 10000 * id);
        nvtxRangePop();
    }
    unlink(path.c_str());
}

// The GPU half, where it can run: 0 ran, otherwise why not (printed).
void gpuWork() {
    if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL)) {
        std::printf("sightline-demo: no NVIDIA driver here (libcuda.so.1): CPU work only\n");
        return;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string dir = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string();
    dir = dir.substr(0, dir.find_last_of('/') + 1);
    void* lib = dlopen((dir + "libsightline-demo-gpu.so").c_str(), RTLD_NOW);
    auto* run = lib ? reinterpret_cast<int (*)()>(dlsym(lib, "sightline_demo_gpu")) : nullptr;
    if (!run) {
        std::printf("sightline-demo: built without the CUDA toolkit (no libsightline-demo-gpu.so): "
                    "CPU work only\n");
        return;
    }
    std::printf(run() == 0 ? "sightline-demo: GPU work done\n"
                           : "sightline-demo: no usable GPU: CPU work only\n");
}

int child() {
    nvtxRangePushA("child-work");
    for (int i = 0; i < 5; ++i) {
        nvtxMarkA("child-tick");
        usleep(100000);
    }
    nvtxRangePop();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--child") == 0) return child();
    nvtxRangePushA("demo");
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    pid_t kid = -1;
    if (n > 0) {
        self[n] = 0;
        char* args[] = {self, const_cast<char*>("--child"), nullptr};
        posix_spawn(&kid, self, nullptr, nullptr, args, environ);
    }
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) threads.emplace_back(worker, i);
    gpuWork();
    for (auto& t : threads) t.join();
    if (kid > 0) waitpid(kid, nullptr, 0);
    nvtxRangePop();
    std::printf("sightline-demo: done\n");
    return 0;
}
