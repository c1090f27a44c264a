/* A stand-in for libnvidia-ml.so.1 used by NvmlSamplerTest: two GPUs with fixed readings.
 * GPU 1 reports no power (NVML_ERROR_NOT_SUPPORTED), as many consumer boards do.
 * FAKE_NVML_COUNT=3 adds a third GPU that cannot be opened (NVML_ERROR_NO_PERMISSION), as a GPU
 * given to another container is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct {
    int index;
} Dev;
static Dev devs[2] = {{0}, {1}};
static int inited = 0;
static unsigned calls = 0;

nvmlReturn_t nvmlInit_v2(void) {
    inited = 1;
    return 0;
}
nvmlReturn_t nvmlShutdown(void) {
    inited = 0;
    return 0;
}
const char* nvmlErrorString(nvmlReturn_t r) {
    return r == 3 ? "Not Supported" : r == 4 ? "Insufficient Permissions" : "Unknown Error";
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* n) {
    const char* count = getenv("FAKE_NVML_COUNT");
    *n = count ? (unsigned)atoi(count) : 2;
    return 0;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, void** h) {
    if (i == 2) return 4;
    if (i > 2) return 2;
    *h = &devs[i];
    return 0;
}
nvmlReturn_t nvmlDeviceGetName(void* h, char* s, unsigned n) {
    snprintf(s, n, "Fake GPU %d", ((Dev*)h)->index);
    return 0;
}
nvmlReturn_t nvmlDeviceGetUUID(void* h, char* s, unsigned n) {
    snprintf(s, n, "GPU-0000000%d-0000-0000-0000-000000000000", ((Dev*)h)->index);
    return 0;
}
typedef struct {
    char busIdLegacy[16];
    unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} Pci;
nvmlReturn_t nvmlDeviceGetPciInfo_v3(void* h, Pci* p) {
    memset(p, 0, sizeof *p);
    snprintf(p->busId, sizeof p->busId, "00000000:0%d:00.0", ((Dev*)h)->index + 1);
    return 0;
}
typedef struct {
    unsigned gpu, memory;
} Util;
nvmlReturn_t nvmlDeviceGetUtilizationRates(void* h, Util* u) {
    u->gpu = 40 + ((Dev*)h)->index;
    u->memory = 20;
    ++calls;
    return 0;
}
typedef struct {
    unsigned long long total, free, used;
} Mem;
nvmlReturn_t nvmlDeviceGetMemoryInfo(void* h, Mem* m) {
    (void)h;
    m->total = 80ULL << 30;
    m->used = 1ULL << 30;
    m->free = m->total - m->used;
    return 0;
}
nvmlReturn_t nvmlDeviceGetPowerUsage(void* h, unsigned* mw) {
    if (((Dev*)h)->index == 1) return 3;
    *mw = 250500;
    return 0;
}
nvmlReturn_t nvmlDeviceGetClockInfo(void* h, int type, unsigned* mhz) {
    (void)h;
    *mhz = type == 1 ? 1980 : 2619;
    return 0;
}
nvmlReturn_t nvmlDeviceGetTemperature(void* h, int sensor, unsigned* c) {
    (void)h;
    (void)sensor;
    *c = 55;
    return 0;
}
nvmlReturn_t nvmlDeviceGetPcieThroughput(void* h, int counter, unsigned* kbs) {
    (void)h;
    *kbs = counter == 0 ? 1000 : 2000;
    return 0;
}
