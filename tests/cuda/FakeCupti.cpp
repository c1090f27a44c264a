// A stand-in for libcupti.so.13 (only the calls libsightline-cuda makes), so the injection
// library's own logic - options, profiler ranges, timestamps, buffer handling, dropped-record
// counts, the exit flush - runs for real on machines without a GPU. The "GPU work" is driven
// by the test program through the fakeCupti* hooks; records are CUPTI structs of this toolkit.
//
// As strict as the real CUPTI where a review found the library relied on kindness:
// - records are kept per calling thread and each thread's go into a buffer of their own
//   (CUDA 13's per-thread activity buffers), completed in reverse thread order;
// - buffers are completed on another thread than the one flushing;
// - callbacks from inside "CUDA" (context creation) run holding CUPTI's own lock, which
//   cuptiActivityGetNumDroppedRecords also takes (the deadlock Kineto documents);
// - every thread's buffer is requested (on the flushing thread, as CUDA's threads do) before
//   any is completed: they are all held at once;
// - with CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER set, a buffer that is not all zeros is
//   counted (fakeCuptiDirtyBuffers); without it the buffer is cleared here, on the application's
//   thread, and that is counted (fakeCuptiBuffersClearedOnAppThread).
#include <cupti.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {

std::mutex g_cuptiLock;  // CUPTI's internal lock
std::mutex g_mutex;
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
CUpti_TimestampCallbackFunc g_timestamp = nullptr;
CUpti_CallbackFunc g_callback = nullptr;
std::set<int> g_enabled;
// Records waiting for a flush, per calling thread (each thread's buffer).
std::map<long, std::vector<std::vector<uint8_t>>> g_pending;
bool g_zeroedBuffers = false;
std::atomic<int> g_dirtyBuffers{0};
std::atomic<int> g_clearedOnAppThread{0};
std::set<CUpti_CallbackId> g_runtimeOff;  // cuptiActivityEnableRuntimeApi(cbid, 0)
uint32_t g_correlation = 0;
uint64_t g_streamBusyUntil = 0;  // the stream runs one kernel at a time, like a real one
size_t g_dropped = 0;
bool g_systemTid = false;

// How many of the fake's locks this thread holds in a launch: a test that stops threads for good
// stops them only outside (a thread stopped inside a real CUPTI's lock blocks every other CUDA
// call; that is not what such a test is about).
thread_local int t_fakeLocksHeld = 0;
thread_local int t_inModuleCallback = 0;  // inside the module's API callback of a launch
struct FakeLock {
    // Counted from before the lock is taken until after it is released.
    struct Count {
        Count() { ++t_fakeLocksHeld; }
        ~Count() { --t_fakeLocksHeld; }
    } count;
    std::lock_guard<std::mutex> lock{g_mutex};
};

uint64_t now() {
    return g_timestamp ? g_timestamp() : 1;
}

template <class T>
void queue(const T& r) {
    std::vector<uint8_t> bytes((sizeof(T) + 7) & ~size_t(7), 0);
    std::memcpy(bytes.data(), &r, sizeof(T));
    g_pending[syscall(SYS_gettid)].push_back(std::move(bytes));
}

size_t recordSize(const CUpti_Activity* r) {
    switch (r->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            return sizeof(CUpti_ActivityKernel10);
        case CUPTI_ACTIVITY_KIND_RUNTIME:
            return sizeof(CUpti_ActivityAPI);
        case CUPTI_ACTIVITY_KIND_CONTEXT:
            return sizeof(CUpti_ActivityContext3);
        case CUPTI_ACTIVITY_KIND_DEVICE:
            return sizeof(CUpti_ActivityDevice5);
        case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
            return sizeof(CUpti_ActivityCudaEvent2);
        default:
            return 8;
    }
}

}  // namespace

extern "C" {

CUptiResult cuptiGetVersion(uint32_t* v) {
    *v = CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiGetResultString(CUptiResult, const char** s) {
    *s = "FAKE_CUPTI_ERROR";
    return CUPTI_SUCCESS;
}
CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType t) {
    g_systemTid = t == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc f) {
    g_timestamp = f;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r,
                                           CUpti_BuffersCallbackCompleteFunc c) {
    g_request = r;
    g_complete = c;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* s, CUpti_CallbackFunc f, void*) {
    g_callback = f;
    *s = reinterpret_cast<CUpti_SubscriberHandle>(0x1);
    return CUPTI_SUCCESS;
}
// API callbacks asked for beyond the few the module always takes (profiler start/stop): whole
// domains (cuptiEnableDomain), less the functions switched off one by one.
std::set<int> g_domainsOn;
std::set<std::pair<int, CUpti_CallbackId>> g_callbacksOff;
CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle, CUpti_CallbackDomain domain) {
    std::lock_guard lock(g_mutex);
    if (enable)
        g_domainsOn.insert(domain);
    else
        g_domainsOn.erase(domain);
    return CUPTI_SUCCESS;
}
CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle, CUpti_CallbackDomain domain,
                                CUpti_CallbackId cbid) {
    std::lock_guard lock(g_mutex);
    if (enable)
        g_callbacksOff.erase({domain, cbid});
    else
        g_callbacksOff.insert({domain, cbid});
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnableCudaEventDeviceTimestamps(uint8_t) {
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnable(CUpti_ActivityKind k) {
    std::lock_guard lock(g_mutex);
    g_enabled.insert(k);
    if (k == CUPTI_ACTIVITY_KIND_DEVICE) {
        auto d = CUpti_ActivityDevice5{};
        d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
        d.id = 0;
        d.name = "Fake GPU";
        d.numMultiprocessors = 4;
        queue(d);
    }
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnableAndDump(CUpti_ActivityKind k) {
    return cuptiActivityEnable(k);
}
CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
    std::lock_guard lock(g_mutex);
    if (enable)
        g_runtimeOff.erase(cbid);
    else
        g_runtimeOff.insert(cbid);
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId, uint8_t) {
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityDisable(CUpti_ActivityKind k) {
    std::lock_guard lock(g_mutex);
    g_enabled.erase(k);
    return CUPTI_SUCCESS;
}
CUptiResult cuptiGetTimestamp(uint64_t* t) {  // CUPTI's own clock: the steady clock here
    *t = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    return CUPTI_SUCCESS;
}
CUptiResult cuptiGetDeviceId(CUcontext, uint32_t* d) {
    *d = 0;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiGetContextId(CUcontext, uint32_t* c) {
    *c = 1;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* n) {
    std::lock_guard cupti(g_cuptiLock);
    std::lock_guard lock(g_mutex);
    *n = g_dropped;
    g_dropped = 0;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** rec) {
    uint8_t* next =
        *rec ? reinterpret_cast<uint8_t*>(*rec) + ((recordSize(*rec) + 7) & ~size_t(7)) : buffer;
    if (next >= buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *rec = reinterpret_cast<CUpti_Activity*>(next);
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute a, size_t* size, void* value) {
    if (a == CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER && *size == sizeof(uint8_t)) {
        g_zeroedBuffers = *static_cast<uint8_t*>(value) != 0;
        return CUPTI_SUCCESS;
    }
    return CUPTI_ERROR_NOT_SUPPORTED;
}
CUptiResult cuptiActivityFlushAll(uint32_t) {
    std::map<long, std::vector<std::vector<uint8_t>>> perThread;
    {
        std::lock_guard lock(g_mutex);
        perThread.swap(g_pending);
    }
    if (perThread.empty() || !g_request) return CUPTI_SUCCESS;
    // One buffer per thread, all held at once, filled here.
    struct Filled {
        uint8_t* buf;
        size_t size, used;
    };
    std::vector<Filled> filled;
    for (auto& [tid, records] : perThread) {
        uint8_t* buf = nullptr;
        size_t size = 0, maxRecords = 0;
        g_request(&buf, &size, &maxRecords);
        if (buf && g_zeroedBuffers &&
            std::any_of(buf, buf + size, [](uint8_t b) { return b != 0; }))
            ++g_dirtyBuffers;
        if (buf && !g_zeroedBuffers) {
            std::memset(buf, 0, size);
            ++g_clearedOnAppThread;
        }
        size_t used = 0;
        for (const auto& r : records) {
            if (!buf || used + r.size() > size) {
                std::lock_guard lock(g_mutex);
                ++g_dropped;  // as CUPTI does when it has no buffer
                continue;
            }
            std::memcpy(buf + used, r.data(), r.size());
            used += r.size();
        }
        if (buf) filled.push_back({buf, size, used});
    }
    // Completed on CUPTI's own thread, the last thread's first.
    std::thread completer([&] {
        for (auto it = filled.rbegin(); it != filled.rend(); ++it)
            g_complete(nullptr, 0, it->buf, it->size, it->used);
    });
    completer.join();
    return CUPTI_SUCCESS;
}

// ---- hooks for the test program ----

void fakeCuptiCreateContext() {
    CUpti_ResourceData rd{};
    rd.context = reinterpret_cast<CUcontext>(0x1);
    if (g_callback) {
        std::lock_guard cupti(g_cuptiLock);  // called back from inside CUDA
        std::this_thread::sleep_for(std::chrono::microseconds(100));  // CUDA's own work
        g_callback(nullptr, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &rd);
    }
    std::lock_guard lock(g_mutex);
    if (!g_enabled.count(CUPTI_ACTIVITY_KIND_CONTEXT)) return;
    CUpti_ActivityContext3 c{};
    c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
    c.contextId = 1;
    c.deviceId = 0;
    c.nullStreamId = 7;
    queue(c);
}

// A runtime API record of the calling thread, when RUNTIME is on and the call not switched off
// (cuptiActivityEnableRuntimeApi). With g_mutex held.
static void queueRuntimeCall(CUpti_CallbackId cbid, uint64_t t0, uint64_t ns, uint32_t corr,
                             int result = 0) {
    if (!g_enabled.count(CUPTI_ACTIVITY_KIND_RUNTIME) || g_runtimeOff.count(cbid)) return;
    CUpti_ActivityAPI a{};
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = cbid;
    a.start = t0;
    a.end = t0 + ns;
    a.processId = static_cast<uint32_t>(getpid());
    a.threadId = g_systemTid ? static_cast<uint32_t>(syscall(SYS_gettid)) : 12345u;
    a.correlationId = corr;
    a.returnValue = result;
    queue(a);
}

// Whether the module asked for this function's callbacks (cuptiEnableDomain, less
// cuptiEnableCallback(0, ...)).
static bool callbackOn(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    return g_callback && g_domainsOn.count(domain) && !g_callbacksOff.count({domain, cbid});
}

// The runtime API callback at a call's entry or exit, when its domain is on and the function
// not switched off. With g_mutex held (the fake keeps its lock across callbacks, as a CUPTI
// that serializes them would).
// `slot` is CUPTI's per-call data shared by the entry and exit callbacks; the return value is
// set for the exit.
static void runtimeCallback(CUpti_CallbackId cbid, CUpti_ApiCallbackSite site, uint32_t corr,
                            uint64_t* slot, const int* result) {
    if (!callbackOn(CUPTI_CB_DOMAIN_RUNTIME_API, cbid)) return;
    CUpti_CallbackData cb{};
    cb.callbackSite = site;
    cb.correlationId = corr;
    cb.correlationData = slot;
    cb.functionReturnValue = site == CUPTI_API_EXIT ? const_cast<int*>(result) : nullptr;
    g_callback(nullptr, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &cb);
}

// Both callbacks of a call that does nothing else in between: entry and exit, one per-call
// slot, success returned.
static void enterAndExit(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, uint32_t corr,
                         const char* name = nullptr) {
    uint64_t slot = 0;
    int ok = 0;
    for (auto site : {CUPTI_API_ENTER, CUPTI_API_EXIT}) {
        CUpti_CallbackData cb{};
        cb.callbackSite = site;
        cb.functionName = name;
        cb.correlationId = corr;
        cb.correlationData = &slot;
        cb.functionReturnValue = site == CUPTI_API_EXIT ? &ok : nullptr;
        g_callback(nullptr, domain, cbid, &cb);
    }
}

// A driver call made inside a runtime call (cudaLaunchKernel -> cuLaunchKernel), as CUDA's
// runtime makes them: its callbacks come between the runtime call's.
static void nestedDriverCallback(CUpti_CallbackId cbid, uint32_t corr) {
    if (callbackOn(CUPTI_CB_DOMAIN_DRIVER_API, cbid))
        enterAndExit(CUPTI_CB_DOMAIN_DRIVER_API, cbid, corr + 100000);
}

// cudaLaunchKernel: a runtime API record and a 1 us kernel, when those kinds are on. The
// callbacks run outside the fake's lock, on the launching thread, as a real CUPTI runs them:
// launches of several threads reach the module at the same time, and a thread stopped inside
// the module's callback holds none of CUPTI's locks.
// Whether this thread is inside one of the fake's locks now (async-signal-safe once the thread
// launched: its thread_local exists then).
int fakeCuptiHoldsLock() {
    return t_fakeLocksHeld;
}

// Whether this thread is inside the module's callback of a launch now (the same).
int fakeCuptiInModuleCallback() {
    return t_inModuleCallback;
}

void fakeCuptiLaunch(const char* name) {
    uint64_t t0 = now();
    uint32_t corr;
    bool runtimeOn, driverOn;
    {
        FakeLock lock;
        corr = ++g_correlation;
        runtimeOn = callbackOn(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
        driverOn = callbackOn(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
    }
    uint64_t slot = 0;
    const int ok = 0;
    auto callback = [&](CUpti_CallbackDomain domain, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,
                        uint32_t c, uint64_t* data) {
        CUpti_CallbackData cb{};
        cb.callbackSite = site;
        cb.correlationId = c;
        cb.correlationData = data;
        cb.functionReturnValue = site == CUPTI_API_EXIT ? const_cast<int*>(&ok) : nullptr;
        ++t_inModuleCallback;
        g_callback(nullptr, domain, cbid, &cb);
        --t_inModuleCallback;
    };
    if (runtimeOn)
        callback(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                 CUPTI_API_ENTER, corr, &slot);
    if (driverOn) {  // cuLaunchKernel inside cudaLaunchKernel
        uint64_t driverSlot = 0;
        for (auto site : {CUPTI_API_ENTER, CUPTI_API_EXIT})
            callback(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, site,
                     corr + 100000, &driverSlot);
    }
    {
        FakeLock lock;
        queueRuntimeCall(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, t0, 500, corr);
    }
    if (runtimeOn)
        callback(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                 CUPTI_API_EXIT, corr, &slot);
    FakeLock lock;
    if (g_enabled.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
        CUpti_ActivityKernel10 k{};
        k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        k.name = name;
        // The GPU starts it after the launch returned (our callbacks timed the call meanwhile).
        k.start = std::max<uint64_t>(now() + 1000, g_streamBusyUntil);
        k.end = k.start + 1000;
        g_streamBusyUntil = k.end;
        k.contextId = 1;
        k.streamId = 7;
        k.correlationId = corr;
        k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
        queue(k);
    }
}

// A runtime API call other than a launch (cudaGetDevice, ...): a record when traced.
void fakeCuptiRuntimeCall(CUpti_CallbackId cbid) {
    uint64_t t0 = now();
    std::lock_guard lock(g_mutex);
    uint32_t corr = ++g_correlation;
    uint64_t slot = 0;
    // cudaMalloc fails in the fake (out of memory), to see return values arrive.
    const int result = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020 ? 2 : 0;
    runtimeCallback(cbid, CUPTI_API_ENTER, corr, &slot, &result);
    // The runtime's occupancy query asks the driver.
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaOccupancyMaxActiveClusters_v11070)
        nestedDriverCallback(CUPTI_DRIVER_TRACE_CBID_cuOccupancyMaxActiveClusters, corr);
    // cudaMalloc takes a while (the activity record says 100 ns: a callback's own record shows).
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    queueRuntimeCall(cbid, t0, 100, corr, result);
    // cudaEventRecord: where the event lands on its stream, when CUDA_EVENT records are on.
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020 &&
        g_enabled.count(CUPTI_ACTIVITY_KIND_CUDA_EVENT)) {
        CUpti_ActivityCudaEvent2 e{};
        e.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
        e.correlationId = corr;
        e.contextId = 1;
        e.streamId = 7;
        e.eventId = corr;
        e.deviceTimestamp = now() + 1000;
        queue(e);
    }
    runtimeCallback(cbid, CUPTI_API_EXIT, corr, &slot, &result);
}

// cudaProfilerStart (start != 0) or cudaProfilerStop, as the runtime's API callbacks see it
// (their callbacks are always on: the module subscribes to them).
void fakeCuptiProfiler(int start) {
    uint32_t corr;
    {
        std::lock_guard lock(g_mutex);
        corr = ++g_correlation;
    }
    if (g_callback)
        enterAndExit(CUPTI_CB_DOMAIN_RUNTIME_API,
                     start ? CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
                           : CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000,
                     corr, start ? "cudaProfilerStart" : "cudaProfilerStop");
}

// A driver API call made by the program itself (cuLaunchKernel from a JIT, cuCtxGetCurrent):
// a driver callback and, with DRIVER on, a record.
void fakeCuptiDriverCall(CUpti_CallbackId cbid) {
    std::lock_guard lock(g_mutex);
    const uint32_t corr = ++g_correlation;
    if (callbackOn(CUPTI_CB_DOMAIN_DRIVER_API, cbid)) enterAndExit(CUPTI_CB_DOMAIN_DRIVER_API, cbid, corr);
}

int fakeCuptiDirtyBuffers() {
    return g_dirtyBuffers.load();
}
int fakeCuptiBuffersClearedOnAppThread() {
    return g_clearedOnAppThread.load();
}

void fakeCuptiDrop(size_t n) {
    std::lock_guard lock(g_mutex);
    g_dropped += n;
}

}  // extern "C"
