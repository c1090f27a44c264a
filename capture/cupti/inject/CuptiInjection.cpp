// libsightline-cuda.so: the CUPTI injection library. The CUDA driver loads it from
// CUDA_INJECTION64_PATH at cuInit and calls InitializeInjection, so any CUDA program (C++,
// Python, PyTorch, JAX) and its children are traced without relinking.
//
// Step 1 (InitializeInjection): read the options from the environment, open the sink, check the
//   CUPTI version, put CUPTI on our clock (CLOCK_MONOTONIC), register buffer callbacks, subscribe
//   to context creation and cudaProfilerStart/Stop, enable the activity kinds.
// Step 2 (CUPTI threads): completed buffers are converted (CuptiConverter) into the sink under
//   one lock; buffers go back to the pool. Dropped-record counts are reported per buffer.
// Step 3 (the process ends): stop the flusher, turn the activity kinds off, flush CUPTI, finish
//   the converter and close the sink. At exit() from our atexit handler; at _exit, exec and a
//   fatal signal from the preloaded module's final-flush hook (FinalFlushHook.h), which hands a
//   signal's flush to a thread of ours and waits a bounded time. Records CUPTI delivers after
//   that (CUDA runtime teardown) are not kept.
//
// Locks: CUPTI calls back into us from inside CUDA calls while holding its own locks (context
// creation, cudaProfilerStart/Stop), so no CUPTI function is ever called while `mutex` is held:
// the dropped-record count is read and the buffer's records are walked before taking it (Kineto
// documents the deadlock the other order gives).
#include <cupti.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "capture/common/FinalFlushHook.h"
#include "capture/common/NativeBacktraceHook.h"
#include "capture/common/PythonBacktraceHook.h"
#include "capture/cupti/CudaBacktrace.h"
#include "capture/cupti/CuptiApiNames.h"
#include "capture/common/RawFormat.h"
#include "capture/common/SessionEnv.h"
#include "capture/cupti/CudaOptions.h"
#include "capture/cupti/CuptiConverter.h"
#include "capture/cupti/inject/ApiRecordBatches.h"
#include "capture/cupti/inject/BufferPool.h"
#include "capture/cupti/inject/InjectionSink.h"
#include "capture/cupti/inject/NegligibleApis.h"

namespace sl::cuda {
namespace {

int64_t monotonicNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string cuptiError(CUptiResult r, const char* call) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    return std::string(call) + ": " + (s ? s : "unknown CUPTI error");
}

void wakeApiConverter();

struct State {
    std::mutex mutex;  // the converter and the sink; never held across a CUPTI call
    std::unique_ptr<InjectionSink> sink;
    std::unique_ptr<CuptiConverter> converter;
    std::unique_ptr<BufferPool> pool;
    CudaTraceOptions options;
    int64_t pid = 0;
    CUpti_SubscriberHandle subscriber = nullptr;
    std::mutex rangeMutex;  // collecting / ranges / window
    bool collecting = false;
    bool rangesOver = false;
    int ranges = 0;
    uint32_t window = 0;  // the session-wide capture window this process opened (CaptureGate)
    std::atomic<bool> finished{false};
    std::atomic<bool> finishing{
        false};  // exit flush under way: the final shutdown writes everything
    std::thread flusher;
    std::thread finalFlusher;
    std::atomic<bool> finalFlusherReady{false};
    std::mutex flushMutex;
    std::condition_variable flushCv;
    bool stopFlusher = false;
    // Contexts seen by the resource callback, handed to the converter by the next buffer (the
    // callback runs inside CUDA and must not wait for `mutex`).
    std::mutex contextMutex;
    std::vector<std::pair<uint32_t, uint32_t>> newContexts;  // (context id, device id)
    // The final flush of a fatal signal, done by finalFlusher (a signal handler cannot take
    // locks): the handler writes to finishRequest and waits on finishDone.
    int finishRequest[2] = {-1, -1};
    int finishDone[2] = {-1, -1};
    // --python-backtrace=cuda: the preloaded module's reader of Python stacks, and whether API
    // calls are recorded now (a backtrace of a call with no record would find no event).
    capture::PythonBacktraceFn pythonBacktrace = nullptr;
    std::atomic<bool> backtracing{false};
    // --cudabacktrace: the classes and thresholds, and the preloaded module's native unwinder.
    CudaBacktraceOptions nativeOptions;
    capture::NativeBacktraceFn nativeBacktrace = nullptr;
    std::atomic<bool> nativeBacktracing{false};
    // SIGHTLINE_CUDA_API_RECORDS=callbacks: API calls recorded by onCallback while collecting,
    // in per-thread batches; full ones are converted by apiConverter (apiCv wakes it).
    // No program thread ever takes apiMutex: a wake-up it misses is caught by the converter's
    // periodic check.
    std::atomic<bool> apiRecording{false};
    ApiRecordBatchesOf<CUpti_ActivityAPI> apiBatches{wakeApiConverter};
    std::thread apiConverter;
    std::mutex apiMutex;
    std::condition_variable apiCv;
    std::atomic<bool> apiReady{false};
    std::atomic<bool> stopApiConverter{false};
    // The final flush is a fatal signal's: a thread of the program may be stopped holding a lock.
    std::atomic<bool> signalFinish{false};
};

// How long a fatal signal's handler waits for the CUDA records: bounded, since the signal may
// have interrupted a thread inside CUPTI, whose lock the flush would then wait for forever.
constexpr int kSignalFlushWaitMs = 3000;

// Leaked on purpose: CUPTI threads and atexit use it until the very end of the process.
State* g = nullptr;

void diag(const char* name, int64_t count, const std::string& reason) {
    std::lock_guard lock(g->mutex);
    if (g->sink) g->sink->addDiagnostic(name, count, reason, g->pid);
}

uint64_t CUPTIAPI timestampNs() {
    return static_cast<uint64_t>(monotonicNs());
}

// Buffers come zeroed from the pool (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER), so CUPTI
// does not clear 2 MiB on the application's thread each time it asks for one.
void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    *maxNumRecords = 0;
    *buffer = g->finished.load() ? nullptr : g->pool->take();
    *size = *buffer ? BufferPool::kBufferBytes : 0;
}

void drainNewContexts() {  // with g->mutex held
    std::lock_guard lock(g->contextMutex);
    for (auto [ctx, dev] : g->newContexts) g->converter->noteContext(ctx, dev);
    g->newContexts.clear();
}

void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t streamId, uint8_t* buffer, size_t,
                              size_t validSize) {
    // CUPTI calls first, without our lock (see Locks above).
    // Not thread_local: CUPTI may complete buffers on the thread that flushes, and at exit that
    // thread's thread_local objects are already destroyed.
    std::vector<CUpti_Activity*> records;
    for (CUpti_Activity* rec = nullptr;
         cuptiActivityGetNextRecord(buffer, validSize, &rec) == CUPTI_SUCCESS;)
        records.push_back(rec);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, streamId, &dropped) != CUPTI_SUCCESS) dropped = 0;
    {
        std::lock_guard lock(g->mutex);
        if (g->converter && !g->finished.load()) {
            drainNewContexts();
            for (CUpti_Activity* rec : records) g->converter->convert(rec);
            if (dropped) g->converter->droppedRecords(0, streamId, dropped);
            // Hand this thread's events to the writer now: a CUPTI buffer is a natural batch, and
            // the next completion may come on another thread or never (crash). Not during the exit
            // flush: the writer's shutdown writes every buffer itself, and starting its thread at
            // exit would be recorded too late (as a dropped record) by the other modules.
            if (!g->finishing.load()) g->sink->flush();
        }
    }
    g->pool->give(buffer, validSize);
}

// --cuda-event-trace=true, or a SIGHTLINE_CUDA_KINDS list (the kinds' cost matrices; it then
// keeps "event" or not). Off by default: with SYNCHRONIZATION on, CUDA_EVENT records make each
// negligible query 0.2-0.4 us slower (docs/cuda.md, "Which kinds cost").
bool recordsCudaEvents(const CudaTraceOptions& o) {
    return o.eventTrace || !o.kinds.empty();
}

// The activity kinds of -t cuda, given the options. DEVICE and CONTEXT (metadata) are enabled
// separately, for the whole run, so ranges still know their GPUs.
std::vector<CUpti_ActivityKind> traceKinds(const CudaTraceOptions& o) {
    std::vector<CUpti_ActivityKind> k = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMCPY2,           CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_DRIVER,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_OVERHEAD,
        CUPTI_ACTIVITY_KIND_STREAM,
    };
    if (recordsCudaEvents(o)) k.push_back(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
    if (o.memoryUsage) {
        k.push_back(CUPTI_ACTIVITY_KIND_MEMORY2);
        k.push_back(CUPTI_ACTIVITY_KIND_MEMORY_POOL);
    }
    // Graph mode: one record per graph launch instead of one per node.
    if (o.graphTrace == GraphTrace::Graph) k.push_back(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
    // API calls recorded by our callbacks instead (recordApiCall).
    if (o.apiRecords == ApiRecords::Callbacks)
        std::erase_if(k, [](CUpti_ActivityKind kind) {
            return kind == CUPTI_ACTIVITY_KIND_RUNTIME || kind == CUPTI_ACTIVITY_KIND_DRIVER;
        });
    if (o.kinds.empty()) return k;
    // SIGHTLINE_CUDA_KINDS (measuring what each kind costs): only the kinds named.
    auto named = [&](CUpti_ActivityKind kind) {
        auto has = [&](const char* n) {
            return std::find(o.kinds.begin(), o.kinds.end(), n) != o.kinds.end();
        };
        switch (kind) {
            case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: return has("kernel");
            case CUPTI_ACTIVITY_KIND_MEMCPY:
            case CUPTI_ACTIVITY_KIND_MEMCPY2: return has("memcpy");
            case CUPTI_ACTIVITY_KIND_MEMSET: return has("memset");
            case CUPTI_ACTIVITY_KIND_RUNTIME: return has("runtime");
            case CUPTI_ACTIVITY_KIND_DRIVER: return has("driver");
            case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return has("sync");
            case CUPTI_ACTIVITY_KIND_CUDA_EVENT: return has("event");
            case CUPTI_ACTIVITY_KIND_OVERHEAD: return has("overhead");
            case CUPTI_ACTIVITY_KIND_STREAM: return has("stream");
            default: return true;
        }
    };
    std::vector<CUpti_ActivityKind> chosen;
    for (auto kind : k)
        if (named(kind)) chosen.push_back(kind);
    return chosen;
}

// Leaves the negligible queries out (NegligibleApis.h) unless --cuda-trace-all-apis. After the
// RUNTIME and DRIVER kinds are enabled: enabling a kind resets its per-function choices.
void leaveOutNegligibleApis() {
    if (g->options.allApis) return;
    for (CUpti_CallbackId cbid : kNegligibleRuntimeApis) cuptiActivityEnableRuntimeApi(cbid, 0);
    for (CUpti_CallbackId cbid : kNegligibleDriverApis) cuptiActivityEnableDriverApi(cbid, 0);
}

// Turns the trace kinds on or off; a kind CUPTI refuses is reported and the others go on.
void setCollecting(bool on) {
    for (CUpti_ActivityKind k : traceKinds(g->options)) {
        // Streams created before a capture range started are dumped when the kind goes on.
        CUptiResult r = !on                               ? cuptiActivityDisable(k)
                        : k == CUPTI_ACTIVITY_KIND_STREAM ? cuptiActivityEnableAndDump(k)
                                                          : cuptiActivityEnable(k);
        if (r != CUPTI_SUCCESS && on)
            diag("cuda.activity_kind_unavailable", 1,
                 cuptiError(r,
                            ("cuptiActivityEnable(kind " + std::to_string(int(k)) + ")").c_str()));
    }
    if (on) leaveOutNegligibleApis();
    g->apiRecording.store(on && g->options.apiRecords == ApiRecords::Callbacks,
                          std::memory_order_relaxed);
    g->backtracing.store(on && g->pythonBacktrace, std::memory_order_relaxed);
    g->nativeBacktracing.store(on && g->nativeBacktrace, std::memory_order_relaxed);
}

// API records of our callbacks into the converter. With g->mutex held (before the batches'
// own locks: ApiRecordBatches.h).
void convertApiRecords(std::vector<CUpti_ActivityAPI>& records) {
    if (!g->converter || g->finished.load()) return;
    drainNewContexts();
    for (CUpti_ActivityAPI& r : records) g->converter->convert(reinterpret_cast<CUpti_Activity*>(&r));
    records.clear();
}

void flushAll(bool forced) {
    cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
    std::lock_guard lock(g->mutex);
    // The periodic flusher is not joined at a fatal signal: it may get here after the end.
    if (g->finished.load()) return;
    auto apis = g->apiBatches.takeAll();  // a batch it cannot read now waits for the next flush
    convertApiRecords(apis.records);
    if (g->sink) g->sink->flush();
}

void finishAll();

// cudaProfilerStart / cudaProfilerStop (and their driver twins), for -c cudaProfilerApi. Without
// that option they change nothing, as in nsys: the program's own start/stop calls (often left in
// for other tools) must not end the trace.
// The same calls open and close the session-wide capture window (the sink's openRange), so
// that the other modules and the launcher record only inside it too; with stop-shutdown the
// launcher, told by SIGUSR1, ends the program as for an NVTX range (its --kill signal).
void profilerCall(bool start) {
    if (!g->options.profilerRange) return;
    bool shutdown = false, tellLauncher = false;
    {
        std::lock_guard lock(g->rangeMutex);
        if (start) {
            if (g->collecting || g->rangesOver) return;
            g->collecting = true;
            ++g->ranges;
            if (g->sink) g->window = g->sink->openRange();
            setCollecting(true);
            return;
        }
        if (!g->collecting) return;
        g->collecting = false;
        bool last = g->options.rangeEnd != RangeEnd::Repeat ||
                    (g->options.repeatCount > 0 && g->ranges >= g->options.repeatCount);
        g->rangesOver = last;
        shutdown = last && g->options.rangeEnd == RangeEnd::StopShutdown;
    }
    flushAll(false);  // what the range produced, before the kinds go off
    setCollecting(false);
    {
        std::lock_guard lock(g->rangeMutex);
        if (g->sink && g->window) tellLauncher = g->sink->closeRange(g->window);
        g->window = 0;
    }
    // The launcher ends the program when the last range it waits for is over (stop-shutdown,
    // repeat-shutdown:N); without a session-wide switch this process ends itself.
    const char* launcher = std::getenv(capture::env::kLauncherPid);
    const long launcherPid = launcher ? std::strtol(launcher, nullptr, 10) : 0;
    if (tellLauncher && launcherPid > 0) {
        ::kill(static_cast<pid_t>(launcherPid), SIGUSR1);
    } else if (shutdown) {
        finishAll();
        ::kill(::getpid(), SIGTERM);
    }
}

// The API calls of a thread under way. A driver call made inside a runtime call
// (cudaLaunchKernel -> cuLaunchKernel) is part of it: the API records, the Python backtraces and
// the native ones all treat the outermost call alone. One thread_local (each costs a lookup in
// a dlopen'ed library), updated once per callback by outermostCall.
struct ApiThread {
    int runtimeDepth = 0;     // runtime calls under way
    int64_t nativeEntry = 0;  // --cudabacktrace: the outermost call's entry, 0 when none
    uint32_t tid = 0;         // gettid, once
};
thread_local ApiThread t_api;

// Whether this callback is of an outermost call; keeps the count of runtime calls under way.
// An exit whose entry was not seen (callbacks turned on meanwhile) is not one.
bool outermostCall(CUpti_CallbackDomain domain, CUpti_ApiCallbackSite site) {
    int& depth = t_api.runtimeDepth;
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API) return depth == 0;
    if (site == CUPTI_API_ENTER) return depth++ == 0;
    return depth > 0 && --depth == 0;
}

// --python-backtrace=cuda: the Python stack at the entry of each recorded API call, by its
// correlation id.
void pythonBacktraceAt(const CUpti_CallbackData* cb, bool outermost) {
    if (!outermost || cb->callbackSite != CUPTI_API_ENTER) return;
    if (g->backtracing.load(std::memory_order_relaxed)) g->pythonBacktrace(cb->correlationId);
}

// --cudabacktrace: the native stack at the exit of the outermost API call of a thread when the
// call is of a chosen class and took at least its threshold; the duration is known only at the
// exit (entry and exit on our clock).
void nativeBacktraceAt(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                       const CUpti_CallbackData* cb, bool outermost) {
    if (!outermost) return;
    ApiThread& t = t_api;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        t.nativeEntry = monotonicNs();
        return;
    }
    const int64_t entry = std::exchange(t.nativeEntry, 0);
    if (entry == 0 || !g->nativeBacktracing.load(std::memory_order_relaxed)) return;
    const int64_t took = monotonicNs() - entry;
    const ApiKind api = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? ApiKind::Runtime : ApiKind::Driver;
    if (g->nativeOptions.wants(apiName(api, cbid), took))
        g->nativeBacktrace(cb->correlationId, g->nativeOptions.depth);
}

// SIGHTLINE_CUDA_API_RECORDS=callbacks: the record CUPTI's RUNTIME or DRIVER activity would
// make, made here at the call's exit, for the functions whose callbacks are on (not the
// negligible queries, which then cost the program nothing), outermost calls only as CUPTI's.
// Timestamps on the capture's clock, the entry's kept in CUPTI's per-call slot.
uint64_t apiTimestamp() {
    if (!g->options.cuptiClock) return static_cast<uint64_t>(monotonicNs());
    uint64_t t = 0;
    cuptiGetTimestamp(&t);
    return t;
}

// What the call returned: a cudaError_t or CUresult (both C enums), except for the runtime
// functions that return something else (a string, a handle, nothing), recorded as 0 as CUPTI
// does.
int32_t apiResult(bool runtime, CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    if (!cb->functionReturnValue) return 0;
    if (runtime) switch (cbid) {
            case CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorName_v6050:
            case CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorString_v3020:
            case CUPTI_RUNTIME_TRACE_CBID___cudaInitModule_v13000:
            case CUPTI_RUNTIME_TRACE_CBID___cudaPushCallConfiguration_v13000:
            case CUPTI_RUNTIME_TRACE_CBID___cudaRegisterFatBinary_v13000:
            case CUPTI_RUNTIME_TRACE_CBID___cudaRegisterFatBinaryEnd_v13000:
            case CUPTI_RUNTIME_TRACE_CBID___cudaRegisterFunction_v13000:
            case CUPTI_RUNTIME_TRACE_CBID___cudaRegisterHostVar_v13000:
            case CUPTI_RUNTIME_TRACE_CBID___cudaRegisterManagedVar_v13000:
            case CUPTI_RUNTIME_TRACE_CBID___cudaRegisterUnifiedTable_v13000:
            case CUPTI_RUNTIME_TRACE_CBID___cudaRegisterVar_v13000:
            case CUPTI_RUNTIME_TRACE_CBID___cudaUnregisterFatBinary_v13000: return 0;
            default: break;
        }
    return *static_cast<const int32_t*>(cb->functionReturnValue);
}

bool isProfilerCall(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
        return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 ||
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000;
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop;
}

void recordApiCall(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                   const CUpti_CallbackData* cb, bool outermost) {
    if (!outermost || !cb->correlationData) return;
    const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        // With -c cudaProfilerApi the calls that start and stop the range are not in it.
        const bool rangeCall = g->options.profilerRange && isProfilerCall(domain, cbid);
        *cb->correlationData =
            g->apiRecording.load(std::memory_order_relaxed) && !rangeCall ? apiTimestamp() : 0;
        return;
    }
    const uint64_t start = *cb->correlationData;
    if (start == 0) return;  // entered while not collecting
    ApiThread& t = t_api;
    if (t.tid == 0) t.tid = static_cast<uint32_t>(::syscall(SYS_gettid));
    CUpti_ActivityAPI r{};
    r.kind = runtime ? CUPTI_ACTIVITY_KIND_RUNTIME : CUPTI_ACTIVITY_KIND_DRIVER;
    r.cbid = cbid;
    r.start = start;
    r.end = apiTimestamp();
    r.processId = static_cast<uint32_t>(g->pid);
    r.threadId = t.tid;
    r.correlationId = cb->correlationId;
    r.returnValue = apiResult(runtime, cbid, cb);
    g->apiBatches.add(r);
}

void wakeApiConverter() {
    g->apiReady.store(true);
    g->apiCv.notify_one();
}

void becomeToolThread(const char* name);

// Converts the full batches the program's threads hand over (they never convert themselves: a
// signal that stops such a thread would leave the converter's lock taken).
void apiConverterLoop() {
    becomeToolThread("sightline-cuapi");
    // Converted batches the list lock kept us from giving back (a program thread stopped
    // holding it): kept here, given back with the next ones. Never freed at exit: a free could
    // wait for the malloc arena of such a thread.
    static auto* unreturned = new std::vector<std::vector<CUpti_ActivityAPI>>;
    std::unique_lock wait(g->apiMutex);
    for (;;) {
        g->apiCv.wait_for(wait, std::chrono::milliseconds(100),
                          [] { return g->apiReady.load() || g->stopApiConverter.load(); });
        if (g->stopApiConverter.load()) return;
        if (!g->apiReady.exchange(false)) continue;
        wait.unlock();
        {
            std::lock_guard lock(g->mutex);
            if (auto ready = g->apiBatches.takeReady()) {
                for (auto& batch : *ready) {
                    convertApiRecords(batch);
                    unreturned->push_back(std::move(batch));
                }
                if (!g->finishing.load() && !g->finished.load() && g->sink) g->sink->flush();
            } else {
                g->apiReady.store(true);  // a program thread holds the batches' lock: later
            }
            // Filled again by the program; the wait is bounded, as every wait of our threads.
            if (!unreturned->empty() && !g->apiBatches.giveBack(*unreturned))
                g->apiReady.store(true);
        }
        wait.lock();
    }
}

void CUPTIAPI onCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const void* data) {
    if (g->finished.load()) return;
    if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
        auto* rd = static_cast<const CUpti_ResourceData*>(data);
        uint32_t dev = 0, ctx = 0;
        if (cuptiGetDeviceId(rd->context, &dev) == CUPTI_SUCCESS &&
            cuptiGetContextId(rd->context, &ctx) == CUPTI_SUCCESS) {
            std::lock_guard lock(g->contextMutex);
            g->newContexts.emplace_back(ctx, dev);
        }
        return;
    }
    auto* cb = static_cast<const CUpti_CallbackData*>(data);
    const bool records = g->options.apiRecords == ApiRecords::Callbacks;
    if (records || g->pythonBacktrace || g->nativeBacktrace) {
        const bool outermost = outermostCall(domain, cb->callbackSite);
        if (records) recordApiCall(domain, cbid, cb, outermost);
        if (g->pythonBacktrace) pythonBacktraceAt(cb, outermost);
        if (g->nativeBacktrace) nativeBacktraceAt(domain, cbid, cb, outermost);
    }
    if (cb->callbackSite != CUPTI_API_ENTER) return;
    bool start =
        (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
         cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) ||
        (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
    bool stop =
        (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
         cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) ||
        (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
    if (start || stop) profilerCall(start);
}

// Our threads take no signals: a fatal signal's handler on the final flusher would wait for
// itself, and the program's handlers expect its own threads.
// And they are the capture's, not the program's: named so in top and gdb, left out of the report.
void becomeToolThread(const char* name) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    pthread_setname_np(pthread_self(), name);
    std::lock_guard lock(g->mutex);
    if (g->sink) g->sink->markToolThread(name);
}

void flusherLoop() {
    becomeToolThread("sightline-cuda");
    auto period = std::chrono::milliseconds(g->options.flushIntervalMs);
    std::unique_lock lock(g->flushMutex);
    while (!g->flushCv.wait_for(lock, period, [] { return g->stopFlusher; })) {
        lock.unlock();
        flushAll(false);
        lock.lock();
    }
}

void finishAll() {
    // A child that glibc's fork did not make (_Fork, clone) ran no inForkedChild: its exit
    // handlers would finish its parent's stream and wait for the parent's flusher thread, which
    // the child does not have.
    if (!g || g->finished.load() || ::getpid() != g->pid || g->finishing.exchange(true)) return;
    {
        std::lock_guard lock(g->flushMutex);
        g->stopFlusher = true;
    }
    g->flushCv.notify_all();
    // Not joined at a fatal signal: a program thread stopped holding `mutex` (inside CUPTI's
    // buffer completion) would keep the flusher, and this join, waiting for good. flushAll
    // does nothing once the end is done.
    const bool signal = g->signalFinish.load();
    if (!signal && g->flusher.joinable()) g->flusher.join();
    {
        std::lock_guard lock(g->rangeMutex);
        g->collecting = false;
        g->rangesOver = true;
    }
    // As NVIDIA's injection sample does: no new records while the last ones are flushed. No lock
    // held: a profiler callback may hold CUPTI's while it waits for rangeMutex.
    setCollecting(false);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    // The API converter ends after its batch in hand; joined only when no thread of the program
    // can be stopped holding a lock it waits for (not at a fatal signal).
    g->stopApiConverter.store(true);
    g->apiCv.notify_all();
    if (!signal && g->apiConverter.joinable()) g->apiConverter.join();
    // At a fatal signal a program thread may be stopped holding `mutex` (a flush from inside
    // cudaProfilerStop): wait a bounded time, within the signal handler's.
    std::unique_lock lock(g->mutex, std::defer_lock);
    if (!signal) {
        lock.lock();
    } else {
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2000);
        while (!lock.try_lock()) {
            if (std::chrono::steady_clock::now() >= until) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    auto apis = g->apiBatches.takeAll();
    convertApiRecords(apis.records);
    g->finished.store(true);
    if (!g->converter || !g->sink) return;
    if (!apis.complete)
        g->sink->addDiagnostic(
            "cuda.api_records_unread", 1,
            "at the end a thread of the program was stopped holding the lock of the CUDA API "
            "records not converted yet (a signal, or a signal handler that ended the process): "
            "those records are missing",
            g->pid);
    if (apis.busySlots)
        g->sink->addDiagnostic(
            "cuda.api_record_batches_unread", apis.busySlots,
            "at the end these threads were stopped while recording a CUDA API call (a signal, or "
            "a signal handler that ended the process): their last API records (up to 1,024 "
            "each) are missing",
            g->pid);
    drainNewContexts();
    g->converter->finish();
    if (g->options.profilerRange && g->ranges == 0)
        g->sink->addDiagnostic(
            "cuda.profiler_range_never_started", 1,
            "-c cudaProfilerApi: the program never called cudaProfilerStart, so no CUDA activity "
            "was captured",
            g->pid);
    if (size_t refused = g->pool->refused())
        g->sink->addDiagnostic(
            "cuda.buffer_pool_exhausted", static_cast<int64_t>(refused),
            "CUPTI asked for more buffers than the pool allows (SIGHTLINE_CUDA_BUFFER_MB); "
            "records were dropped meanwhile",
            g->pid);
    g->sink->close();
}

void atExit() {
    finishAll();
}

// The final flush of a fatal signal, on its own thread (see kSignalFlushWaitMs).
void finalFlusherLoop() {
    becomeToolThread("sightline-cuda");
    g->finalFlusherReady.store(true);
    char c;
    while (::read(g->finishRequest[0], &c, 1) < 0 && errno == EINTR) {
    }
    finishAll();
    while (::write(g->finishDone[1], "x", 1) < 0 && errno == EINTR) {
    }
}

// FinalFlushHook, run by the preloaded module at _exit, exec and a fatal signal.
void onFinalFlush(int how) {
    if (!g || g->finished.load() || ::getpid() != g->pid) return;  // a forked child: nothing
    if (how != static_cast<int>(capture::ExitHow::Signal)) {
        finishAll();
        return;
    }
    // Inside a signal handler: only write, poll and read (async-signal-safe), and a lock-free
    // atomic store.
    g->signalFinish.store(true);
    if (g->finishRequest[1] < 0 || ::write(g->finishRequest[1], "x", 1) != 1) return;
    pollfd p{g->finishDone[0], POLLIN, 0};
    ::poll(&p, 1, kSignalFlushWaitMs);
}

// Registers onFinalFlush with the preloaded module, when there is one, and starts the thread
// that does a signal's flush.
void registerFinalFlush() {
    auto reg = reinterpret_cast<capture::FinalFlushRegisterFn>(
        dlsym(RTLD_DEFAULT, capture::kFinalFlushRegisterSymbol));
    if (!reg) return;  // no preloaded module: atexit alone flushes
    if (::pipe2(g->finishRequest, O_CLOEXEC) != 0) return;
    if (::pipe2(g->finishDone, O_CLOEXEC) != 0) return;
    g->finalFlusher = std::thread(finalFlusherLoop);
    g->finalFlusher.detach();  // ends with the process; it only ever waits in read()
    // Until it is marked as ours, it would count as one of the program's threads.
    while (!g->finalFlusherReady.load()) std::this_thread::yield();
    reg(onFinalFlush);
}

// Which libcupti the process loaded: PyTorch and other frameworks bring their own copy, and
// records depend on it.
std::string loadedCuptiPath() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) && info.dli_fname)
        return info.dli_fname;
    return "an unknown path";
}

// CUPTI's record structs are versioned by name (CUpti_ActivityKernel10 stays what it is), so a
// CUPTI of this major version or newer reads them; an older one lacks them. From CUDA 13 the
// version is xxyyzz (13.0 = 130000), before it a small API number (12.9 = 28).
constexpr uint32_t kCuptiMajorBuilt = CUPTI_API_VERSION / 10000;

void inForkedChild() {
    // The child shares the parent's stream file and CUPTI state is not valid after fork: trace
    // nothing here (a child that execs a CUDA program is traced by its own injection).
    if (!g) return;
    g->finished.store(true);
    (void)g->sink.release();  // never flushed: the parent owns what is buffered
}

// Returns an empty string on success, else why CUDA tracing is off.
std::string initialize() {
    g->pid = ::getpid();
    std::string why;
    g->sink = makeInjectionSink(g->pid, why);
    if (!g->sink) return why;
    auto opts = CudaTraceOptions::fromEnvironment([](const char* n) { return std::getenv(n); });
    if (!opts) return opts.error();
    g->options = *opts;
    g->converter = std::make_unique<CuptiConverter>(*g->sink, g->pid, g->options.memoryUsage);
    g->pool = std::make_unique<BufferPool>(size_t(g->options.bufferPoolMb) << 20);

    // Step 1: CUPTI of the major version the record structs come from, or newer.
    uint32_t version = 0;
    if (cuptiGetVersion(&version) != CUPTI_SUCCESS) version = 0;
    const std::string cuptiPath = loadedCuptiPath();
    if (version / 10000 < kCuptiMajorBuilt)
        return "CUPTI API version " + std::to_string(version) + " (" + cuptiPath +
               ") is older than CUDA " + std::to_string(kCuptiMajorBuilt) +
               "'s, which Sightline was built with: use a CUDA " +
               std::to_string(kCuptiMajorBuilt) + " driver and CUPTI";
    diag("cuda.cupti_loaded", 1,
         "CUPTI API version " + std::to_string(version) + " from " + cuptiPath +
             (version / 10000 > kCuptiMajorBuilt
                  ? " (newer than the CUDA " + std::to_string(kCuptiMajorBuilt) +
                        " Sightline was built with: not tested)"
                  : ""));
    // Step 2: our clock and thread ids (gettid, as the CPU side records them).
    CUptiResult r;
    if ((r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)) != CUPTI_SUCCESS)
        return cuptiError(r, "cuptiSetThreadIdType");
    if (!g->options.cuptiClock &&
        (r = cuptiActivityRegisterTimestampCallback(timestampNs)) != CUPTI_SUCCESS)
        return cuptiError(r, "cuptiActivityRegisterTimestampCallback");
    // Before the buffer callbacks: buffers are zeroed by the pool, off the application's thread.
    uint8_t zeroed = 1;
    size_t attrSize = sizeof zeroed;
    if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &attrSize,
                                  &zeroed) != CUPTI_SUCCESS)
        g->pool->setZeroing(false);  // CUPTI clears them itself
    if ((r = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted)) != CUPTI_SUCCESS)
        return cuptiError(r, "cuptiActivityRegisterCallbacks");
    // Step 3: callbacks (another CUPTI client in the process makes this fail).
    if ((r = cuptiSubscribe(&g->subscriber, onCallback, nullptr)) != CUPTI_SUCCESS)
        return cuptiError(r, "cuptiSubscribe");
    cuptiEnableCallback(1, g->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                        CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    cuptiEnableCallback(1, g->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                        CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
    cuptiEnableCallback(1, g->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                        CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
    cuptiEnableCallback(1, g->subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                        CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
    cuptiEnableCallback(1, g->subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                        CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
    // --python-backtrace=cuda: callbacks at every API call but the negligible ones (those are
    // not recorded either, unless --cuda-trace-all-apis).
    if (g->options.pythonBacktrace) {
        g->pythonBacktrace =
            reinterpret_cast<capture::PythonBacktraceFn>(dlsym(RTLD_DEFAULT, capture::kPythonBacktraceSymbol));
        if (!g->pythonBacktrace) {
            diag("python.cuda_backtraces_unavailable", 1,
                 "--python-backtrace=cuda: the preloaded Sightline module is not in this process "
                 "(its environment was cleared?): CUDA calls have no Python backtraces");
        }
    }
    // --cudabacktrace (SIGHTLINE_CUDA_BACKTRACE, CudaBacktrace.h).
    if (const char* v = std::getenv(kCudaBacktraceEnv)) {
        auto parsed = CudaBacktraceOptions::fromEnvironment(v);
        if (!parsed) {
            diag("cuda.backtrace_options", 1, parsed.error() + ": CUDA calls have no native stacks");
        } else if (parsed->any()) {
            g->nativeOptions = *parsed;
            g->nativeBacktrace = reinterpret_cast<capture::NativeBacktraceFn>(
                dlsym(RTLD_DEFAULT, capture::kNativeBacktraceSymbol));
            if (!g->nativeBacktrace)
                diag("cuda.backtraces_unavailable", 1,
                     "--cudabacktrace: the preloaded Sightline module is not in this process (its "
                     "environment was cleared?): CUDA calls have no native stacks");
        }
    }
    // Both, and API records made by callbacks: every API call but the negligible ones.
    if (g->pythonBacktrace || g->nativeBacktrace ||
        g->options.apiRecords == ApiRecords::Callbacks) {
        cuptiEnableDomain(1, g->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
        cuptiEnableDomain(1, g->subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
        if (!g->options.allApis) {
            for (CUpti_CallbackId cbid : kNegligibleRuntimeApis)
                cuptiEnableCallback(0, g->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
            for (CUpti_CallbackId cbid : kNegligibleDriverApis)
                cuptiEnableCallback(0, g->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
        }
    }
    // Step 4: activity kinds. Event records take the device time when CUPTI can collect it.
    if (recordsCudaEvents(g->options)) cuptiActivityEnableCudaEventDeviceTimestamps(1);
    // EnableAndDump: devices and contexts that exist already are reported too. Without them
    // the GPU rows lack names and sizes, but kernels, copies and API calls are still traced.
    for (auto kind : {CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT})
        if ((r = cuptiActivityEnableAndDump(kind)) != CUPTI_SUCCESS)
            diag("cuda.activity_kind_unavailable", 1,
                cuptiError(r, kind == CUPTI_ACTIVITY_KIND_DEVICE
                                  ? "cuptiActivityEnableAndDump(DEVICE): GPU names and sizes"
                                  : "cuptiActivityEnableAndDump(CONTEXT): context rows") +
                     " are missing");
    if (g->options.apiRecords == ApiRecords::Callbacks) g->apiConverter = std::thread(apiConverterLoop);
    if (!g->options.profilerRange) {
        std::lock_guard lock(g->rangeMutex);
        g->collecting = true;
        setCollecting(true);
    }
    if (g->options.flushIntervalMs > 0) g->flusher = std::thread(flusherLoop);
    std::atexit(atExit);
    pthread_atfork(nullptr, nullptr, inForkedChild);
    registerFinalFlush();
    return {};
}

}  // namespace
}  // namespace sl::cuda

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    using namespace sl::cuda;
    static std::atomic<bool> once{false};
    if (once.exchange(true)) return 1;
    g = new State();
    std::string why = initialize();
    if (!why.empty()) {
        std::fprintf(stderr, "sightline: CUDA tracing is off in process %d: %s\n",
                     static_cast<int>(::getpid()), why.c_str());
        std::lock_guard lock(g->mutex);
        g->finished.store(true);
        if (g->sink) {
            g->sink->addDiagnostic("cuda.trace_unavailable", 1, why, g->pid);
            g->sink->close();
        }
    }
    return 1;  // never fail the program's CUDA initialization because of tracing
}
