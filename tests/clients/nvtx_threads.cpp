// Test client: NVTX3 from 8 threads with a known, checkable structure (tests/capture asserts it).
//   default domain: per worker 10 x nested push/pop "level0".."level4" (400 ranges), 3 marks
//                   "mark-<i>" with category 1 ("compute"), one start/end range "cross-<i>" started
//                   on the main thread and ended by worker i; worker 0 also pushes "sleep-100ms"
//                   around a 100 ms sleep.
//   domain "alpha": per worker 6 ranges "payload-<type>" with category 2 ("io"), color
//                   0xFF00FF00 and payloads u64 1000+i, i64 -1-i, f64 0.5+i, u32 7+i, i32 -7-i,
//                   f32 1.25.
//   domain "beta":  per worker 2 ranges with the registered string "beta-registered".
//   thread names:   even workers pthread_setname_np("worker-<i>"), odd ones nvtxNameOsThread
//                   ("nvtx-worker-<i>").
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 8;
constexpr int kRepeats = 10;
constexpr int kDepth = 5;
nvtxDomainHandle_t g_alpha, g_beta;
nvtxStringHandle_t g_betaString;
nvtxRangeId_t g_cross[kThreads];
std::atomic<int> g_started{0};

void nested(int level) {
    if (level == kDepth) return;
    char name[16];
    std::snprintf(name, sizeof name, "level%d", level);
    nvtxRangePushA(name);
    nested(level + 1);
    nvtxRangePop();
}

nvtxEventAttributes_t attrs(const char* message) {
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message;
    return a;
}

void payloadRanges(int i) {
    for (int k = 0; k < 6; ++k) {
        static const char* names[] = {"payload-u64", "payload-i64", "payload-f64",
                                      "payload-u32", "payload-i32", "payload-f32"};
        nvtxEventAttributes_t a = attrs(names[k]);
        a.category = 2;
        a.colorType = NVTX_COLOR_ARGB;
        a.color = 0xFF00FF00;
        switch (k) {
            case 0:
                a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
                a.payload.ullValue = 1000 + i;
                break;
            case 1:
                a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
                a.payload.llValue = -1 - i;
                break;
            case 2:
                a.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
                a.payload.dValue = 0.5 + i;
                break;
            case 3:
                a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT32;
                a.payload.uiValue = 7 + i;
                break;
            case 4:
                a.payloadType = NVTX_PAYLOAD_TYPE_INT32;
                a.payload.iValue = -7 - i;
                break;
            case 5:
                a.payloadType = NVTX_PAYLOAD_TYPE_FLOAT;
                a.payload.fValue = 1.25f;
                break;
        }
        nvtxDomainRangePushEx(g_alpha, &a);
        nvtxDomainRangePop(g_alpha);
    }
}

void worker(int i) {
    char name[32];
    if (i % 2 == 0) {
        std::snprintf(name, sizeof name, "worker-%d", i);
        pthread_setname_np(pthread_self(), name);
    } else {
        std::snprintf(name, sizeof name, "nvtx-worker-%d", i);
        nvtxNameOsThreadA(static_cast<uint32_t>(syscall(SYS_gettid)), name);
    }
    ++g_started;
    for (int r = 0; r < kRepeats; ++r) nested(0);
    for (int m = 0; m < 3; ++m) {
        char mark[16];
        std::snprintf(mark, sizeof mark, "mark-%d", i);
        nvtxEventAttributes_t a = attrs(mark);
        a.category = 1;
        nvtxMarkEx(&a);
    }
    payloadRanges(i);
    for (int k = 0; k < 2; ++k) {
        nvtxEventAttributes_t a{};
        a.version = NVTX_VERSION;
        a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        a.message.registered = g_betaString;
        nvtxDomainRangePushEx(g_beta, &a);
        nvtxDomainRangePop(g_beta);
    }
    if (i == 0) {
        nvtxRangePushA("sleep-100ms");
        usleep(100000);
        nvtxRangePop();
    }
    nvtxRangeEnd(g_cross[i]);  // started by the main thread
}

}  // namespace

int main() {
    g_alpha = nvtxDomainCreateA("alpha");
    g_beta = nvtxDomainCreateA("beta");
    g_betaString = nvtxDomainRegisterStringA(g_beta, "beta-registered");
    nvtxNameCategoryA(1, "compute");
    nvtxDomainNameCategoryA(g_alpha, 2, "io");
    for (int i = 0; i < kThreads; ++i) {
        std::string n = "cross-" + std::to_string(i);
        g_cross[i] = nvtxRangeStartA(n.c_str());
    }
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) threads.emplace_back(worker, i);
    for (auto& t : threads) t.join();
    nvtxDomainDestroy(g_beta);
    std::printf("nvtx_threads done\n");
    return 0;
}
