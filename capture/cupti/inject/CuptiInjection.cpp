// libsightline-cuda.so: the CUPTI injection library. The CUDA driver loads it from
// CUDA_INJECTION64_PATH at cuInit and calls InitializeInjection, so any CUDA program (C++,
// Python, PyTorch, JAX) and its children are traced without relinking.
//
// Step 1 (InitializeInjection): read the options from the environment, open the sink, check the
//   CUPTI version, put CUPTI on our clock (CLOCK_MONOTONIC), register buffer callbacks, subscribe
//   to context creation and cudaProfilerStart/Stop, enable the activity kinds.
// Step 2 (CUPTI threads): completed buffers are converted (CuptiConverter) into the sink under
//   one lock; buffers go back to the pool. Dropped-record counts are reported per buffer.
// Step 3 (exit, from any thread, via atexit): stop the flusher, flush CUPTI, finish the converter
//   and close the sink. Records CUPTI delivers after that (CUDA runtime teardown) are not kept.
#include <cupti.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "capture/cupti/CudaOptions.h"
#include "capture/cupti/CuptiConverter.h"
#include "capture/cupti/inject/BufferPool.h"
#include "capture/cupti/inject/InjectionSink.h"

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

struct State {
    std::mutex mutex;  // the converter and the sink
    std::unique_ptr<InjectionSink> sink;
    std::unique_ptr<CuptiConverter> converter;
    std::unique_ptr<BufferPool> pool;
    CudaTraceOptions options;
    int64_t pid = 0;
    CUpti_SubscriberHandle subscriber = nullptr;
    std::mutex rangeMutex;  // collecting / ranges
    bool collecting = false;
    bool rangesOver = false;
    int ranges = 0;
    std::atomic<bool> finished{false};
    std::atomic<bool> finishing{
        false};  // exit flush under way: the final shutdown writes everything
    std::thread flusher;
    std::mutex flushMutex;
    std::condition_variable flushCv;
    bool stopFlusher = false;
};

// Leaked on purpose: CUPTI threads and atexit use it until the very end of the process.
State* g = nullptr;

void diag(const char* name, int64_t count, const std::string& reason) {
    std::lock_guard lock(g->mutex);
    if (g->sink) g->sink->addDiagnostic(name, count, reason, g->pid);
}

uint64_t CUPTIAPI timestampNs() {
    return static_cast<uint64_t>(monotonicNs());
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    *maxNumRecords = 0;
    *buffer = g->finished.load() ? nullptr : g->pool->take();
    *size = *buffer ? BufferPool::kBufferBytes : 0;
}

void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t streamId, uint8_t* buffer, size_t,
                              size_t validSize) {
    {
        std::lock_guard lock(g->mutex);
        if (g->converter && !g->finished.load()) {
            CUpti_Activity* rec = nullptr;
            while (cuptiActivityGetNextRecord(buffer, validSize, &rec) == CUPTI_SUCCESS)
                g->converter->convert(rec);
            size_t dropped = 0;
            if (cuptiActivityGetNumDroppedRecords(ctx, streamId, &dropped) == CUPTI_SUCCESS &&
                dropped)
                g->converter->droppedRecords(0, streamId, dropped);
            // Hand this thread's events to the writer now: a CUPTI buffer is a natural batch, and
            // the next completion may come on another thread or never (crash). Not during the exit
            // flush: the writer's shutdown writes every buffer itself, and starting its thread at
            // exit would be recorded too late (as a dropped record) by the other modules.
            if (!g->finishing.load()) g->sink->flush();
        }
    }
    g->pool->give(buffer);
}

// The activity kinds of -t cuda, given the options. DEVICE and CONTEXT (metadata) are enabled
// separately, for the whole run, so ranges still know their GPUs.
std::vector<CUpti_ActivityKind> traceKinds(const CudaTraceOptions& o) {
    std::vector<CUpti_ActivityKind> k = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMCPY2,           CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_DRIVER,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_CUDA_EVENT,
        CUPTI_ACTIVITY_KIND_OVERHEAD,          CUPTI_ACTIVITY_KIND_STREAM,
    };
    if (o.memoryUsage) {
        k.push_back(CUPTI_ACTIVITY_KIND_MEMORY2);
        k.push_back(CUPTI_ACTIVITY_KIND_MEMORY_POOL);
    }
    // Graph mode: one record per graph launch instead of one per node.
    if (o.graphTrace == GraphTrace::Graph) k.push_back(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
    return k;
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
}

void flushAll(bool forced) {
    cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
    std::lock_guard lock(g->mutex);
    if (g->sink) g->sink->flush();
}

void finishAll();

// cudaProfilerStart / cudaProfilerStop (and their driver twins), for -c cudaProfilerApi.
void profilerCall(bool start) {
    bool shutdown = false;
    {
        std::lock_guard lock(g->rangeMutex);
        if (start) {
            if (g->collecting || g->rangesOver) return;
            g->collecting = true;
            ++g->ranges;
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
    if (shutdown) {
        finishAll();
        ::kill(::getpid(), SIGTERM);  // --capture-range-end=stop-shutdown ends the program
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
            std::lock_guard lock(g->mutex);
            if (g->converter) g->converter->noteContext(ctx, dev);
        }
        return;
    }
    auto* cb = static_cast<const CUpti_CallbackData*>(data);
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

void flusherLoop() {
    auto period = std::chrono::milliseconds(g->options.flushIntervalMs);
    std::unique_lock lock(g->flushMutex);
    while (!g->flushCv.wait_for(lock, period, [] { return g->stopFlusher; })) {
        lock.unlock();
        flushAll(false);
        lock.lock();
    }
}

void finishAll() {
    if (!g || g->finished.load() || g->finishing.exchange(true)) return;
    {
        std::lock_guard lock(g->flushMutex);
        g->stopFlusher = true;
    }
    g->flushCv.notify_all();
    if (g->flusher.joinable()) g->flusher.join();
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard lock(g->mutex);
    g->finished.store(true);
    if (!g->converter || !g->sink) return;
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

    // Step 1: CUPTI must be at least as new as the headers the record structs come from.
    uint32_t version = 0;
    if (cuptiGetVersion(&version) == CUPTI_SUCCESS && version < CUPTI_API_VERSION)
        return "CUPTI API version " + std::to_string(version) + " is older than the " +
               std::to_string(CUPTI_API_VERSION) + " Sightline was built with";
    // Step 2: our clock and thread ids (gettid, as the CPU side records them).
    CUptiResult r;
    if ((r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)) != CUPTI_SUCCESS)
        return cuptiError(r, "cuptiSetThreadIdType");
    if ((r = cuptiActivityRegisterTimestampCallback(timestampNs)) != CUPTI_SUCCESS)
        return cuptiError(r, "cuptiActivityRegisterTimestampCallback");
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
    // Step 4: activity kinds. Event records take the device time when CUPTI can collect it.
    cuptiActivityEnableCudaEventDeviceTimestamps(1);
    // EnableAndDump: devices and contexts that exist already are reported too.
    if ((r = cuptiActivityEnableAndDump(CUPTI_ACTIVITY_KIND_DEVICE)) != CUPTI_SUCCESS)
        return cuptiError(r, "cuptiActivityEnableAndDump(DEVICE)");
    if ((r = cuptiActivityEnableAndDump(CUPTI_ACTIVITY_KIND_CONTEXT)) != CUPTI_SUCCESS)
        return cuptiError(r, "cuptiActivityEnableAndDump(CONTEXT)");
    if (!g->options.profilerRange) {
        std::lock_guard lock(g->rangeMutex);
        g->collecting = true;
        setCollecting(true);
    }
    if (g->options.flushIntervalMs > 0) g->flusher = std::thread(flusherLoop);
    std::atexit(atExit);
    pthread_atfork(nullptr, nullptr, inForkedChild);
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
