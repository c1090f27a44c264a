// A "CUDA program" for InjectionFlowTest: loads libsightline-cuda.so as the driver would and
// drives the fake CUPTI (FakeCupti.cpp) through a scenario.
//   fake_cuda_app INJECTION_PATH|- basic|range|range-sleeps|rank BEFORE INSIDE NAME|thread-exit|drops|periodic|sigterm|sigint|
//                 quick-exit|threads|reuse|contexts-while-flushing|queries|fork-child|
//                 thread-local-exit|atexit-call|full-batches|driver-calls|fork-churn|
//                 stopped-threads|launch-loop [N]
// With "-" the library comes from CUDA_INJECTION64_PATH, as the driver does it (under
// `sightline profile`); without that variable the program runs untraced.
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <vector>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

using Launch = void (*)(const char*);
using Profiler = void (*)(int);
using Simple = void (*)();
using Drop = void (*)(size_t);

// --cudabacktrace (the "backtrace" scenario): main -> cudaOuter -> cudaInner makes two
// launches, a cudaMalloc and a cudaDeviceSynchronize; their native stacks name these.
__attribute__((noinline)) void cudaInner(Launch launch, void (*call)(uint32_t)) {
    launch("_Z6kernelPfi");
    call(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020);
    call(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020);
    launch("_Z6kernelPfi");
    asm volatile("" ::: "memory");  // not a tail call
}
__attribute__((noinline)) void cudaOuter(Launch launch, void (*call)(uint32_t)) {
    cudaInner(launch, call);
    asm volatile("" ::: "memory");
}

int main(int argc, char** argv) {
    if (argc < 3) return 2;
    const char* path =
        std::strcmp(argv[1], "-") == 0 ? std::getenv("CUDA_INJECTION64_PATH") : argv[1];
    if (!path) {
        std::printf("fake_cuda_app: CUDA_INJECTION64_PATH not set: not traced\n");
        return 0;
    }
    void* inj = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!inj) {
        std::fprintf(stderr, "%s\n", dlerror());
        return 3;
    }
    auto init = reinterpret_cast<int (*)()>(dlsym(inj, "InitializeInjection"));
    void* cupti = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
    if (!init || !cupti) return 4;
    auto launch = reinterpret_cast<Launch>(dlsym(cupti, "fakeCuptiLaunch"));
    auto profiler = reinterpret_cast<Profiler>(dlsym(cupti, "fakeCuptiProfiler"));
    auto context = reinterpret_cast<Simple>(dlsym(cupti, "fakeCuptiCreateContext"));
    auto drop = reinterpret_cast<Drop>(dlsym(cupti, "fakeCuptiDrop"));
    auto flush = reinterpret_cast<int (*)(uint32_t)>(dlsym(cupti, "cuptiActivityFlushAll"));
    auto dirty = reinterpret_cast<int (*)()>(dlsym(cupti, "fakeCuptiDirtyBuffers"));
    auto cleared = reinterpret_cast<int (*)()>(dlsym(cupti, "fakeCuptiBuffersClearedOnAppThread"));
    auto call = reinterpret_cast<void (*)(uint32_t)>(dlsym(cupti, "fakeCuptiRuntimeCall"));
    if (!flush || !dirty || !cleared || !call) return 5;
    if (!launch || !profiler || !context || !drop) return 5;  // not the fake: refuse to run
    if (init() != 1) return 6;
    context();
    std::string s = argv[2];
    if (s == "basic") {
        for (int i = 0; i < 3; ++i) launch("_Z6kernelPfi");
    } else if (s == "range") {
        launch("_Z7outsidev");
        launch("_Z7outsidev");
        profiler(1);
        for (int i = 0; i < 3; ++i) launch("_Z6insidev");
        profiler(0);
        for (int i = 0; i < 4; ++i) launch("_Z7outsidev");
        profiler(1);
        launch("_Z6secondv");
        profiler(0);
    } else if (s == "range-sleeps") {
        // -c cudaProfilerApi covers everything, not CUDA alone: 2 sleeps before the range, 3 in
        // it, 4 after (each 1 ms, an OS runtime call above any threshold).
        const timespec ms{0, 1'000'000};
        for (int i = 0; i < 2; ++i) nanosleep(&ms, nullptr);
        launch("_Z7outsidev");
        profiler(1);
        for (int i = 0; i < 3; ++i) {
            nanosleep(&ms, nullptr);
            launch("_Z6insidev");
        }
        profiler(0);
        for (int i = 0; i < 4; ++i) nanosleep(&ms, nullptr);
        launch("_Z7outsidev");
    } else if (s == "rank") {
        // One rank of a job: waits BEFORE ms, then launches 5 kernels named NAME between
        // cudaProfilerStart and Stop, INSIDE ms apart in all (args: BEFORE INSIDE NAME).
        const int before = argc > 3 ? std::atoi(argv[3]) : 0, inside = argc > 4 ? std::atoi(argv[4]) : 0;
        const char* name = argc > 5 ? argv[5] : "_Z4rankv";
        std::this_thread::sleep_for(std::chrono::milliseconds(before));
        profiler(1);
        for (int i = 0; i < 5; ++i) {
            launch(name);
            std::this_thread::sleep_for(std::chrono::milliseconds(inside / 5));
        }
        profiler(0);
    } else if (s == "thread-exit") {
        launch("_Z6kernelPfi");
        launch("_Z6kernelPfi");
        std::thread([] { std::exit(0); }).join();
    } else if (s == "drops") {
        drop(17);
        launch("_Z6kernelPfi");
    } else if (s == "periodic") {
        launch("_Z6kernelPfi");
        launch("_Z6kernelPfi");
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        _exit(0);  // no atexit flush: only the periodic flush can have saved the records
    } else if (s == "sigterm" || s == "sigint") {
        // Records still in CUPTI's buffers when a signal's default action ends the process.
        for (int i = 0; i < 3; ++i) launch("_Z6kernelPfi");
        raise(s == "sigterm" ? SIGTERM : SIGINT);
        return 8;  // not reached
    } else if (s == "queries") {
        // What frameworks do around each launch: query the device, check the last error.
        for (int i = 0; i < 5; ++i) call(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020);
        call(CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020);
        call(CUPTI_RUNTIME_TRACE_CBID_cudaOccupancyMaxActiveClusters_v11070);  // asks the driver
        call(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020);
        launch("_Z6kernelPfi");
    } else if (s == "events") {
        // Timing with CUDA events: record, launch, record (--cuda-event-trace).
        call(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020);
        launch("_Z6kernelPfi");
        call(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020);
    } else if (s == "backtrace") {
        cudaOuter(launch, call);
    } else if (s == "fork-child") {
        // A child made without the atfork handlers (_Fork, as async-signal-safe code forks)
        // that calls exit(): the parent's CUDA state and stream are not its to finish.
        alarm(20);
        for (int i = 0; i < 3; ++i) launch("_Z6kernelPfi");
        const pid_t child = _Fork();
        if (child == 0) {
            alarm(10);  // a child that waits for the parent's flusher thread would wait forever
            std::exit(0);
        }
        int status = 0;
        if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status)) return 11;
        for (int i = 0; i < 2; ++i) launch("_Z6kernelPfi");
    } else if (s == "atexit-call") {
        // CUDA calls from an exit handler registered after CUDA started: exit() has already run
        // the main thread's thread_local destructors when the handler runs.
        alarm(20);
        launch("_Z6kernelPfi");
        static Launch atExitLaunch = launch;
        std::atexit([] {
            atExitLaunch("_Z6kernelPfi");
            atExitLaunch("_Z6kernelPfi");
        });
    } else if (s == "full-batches") {
        // More calls on one thread than a batch holds (1,024).
        for (int i = 0; i < 3000; ++i) launch("_Z6kernelPfi");
    } else if (s == "launch-loop") {
        // What recording costs per call (docs/PERFORMANCE.md, the API call row): N launches
        // (argument 3, default 200,000), each with two negligible queries.
        const long n = argc > 3 ? std::atol(argv[3]) : 200000;
        const auto t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < n; ++i) {
            call(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020);
            call(CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020);
            launch("_Z6kernelPfi");
        }
        const double ns = std::chrono::duration<double, std::nano>(
                              std::chrono::steady_clock::now() - t0).count();
        std::printf("launches=%ld ns_per_launch=%.1f\n", n, ns / double(n));
    } else if (s == "driver-calls") {
        // The program's own driver calls: a launch is recorded, a negligible query is not.
        auto driverCall = reinterpret_cast<void (*)(uint32_t)>(dlsym(cupti, "fakeCuptiDriverCall"));
        if (!driverCall) return 5;
        driverCall(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
        driverCall(CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent);
    } else if (s == "fork-churn") {
        // Short threads make and give back their per-thread state while the main thread forks
        // children that exit at once (running the main thread's thread_local destructors): a
        // child must not wait for a lock a parent's thread held at the fork.
        alarm(30);
        launch("_Z6kernelPfi");
        std::atomic<bool> stop{false};
        std::thread churn([&] {
            while (!stop)
                std::thread([launch] { launch("_Z6kernelPfi"); }).join();
        });
        for (int i = 0; i < 200; ++i) {
            const pid_t child = fork();
            if (child == 0) {
                alarm(10);  // a hung child ends (with SIGALRM, which the parent reports)
                std::exit(0);
            }
            int status = 0;
            if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status)) {
                std::fprintf(stderr, "fake_cuda_app: child %d of %d ended with status %#x\n",
                             i, 200, status);
                stop = true;
                churn.join();
                return 12;
            }
        }
        stop = true;
        churn.join();
    } else if (s == "stopped-threads") {
        // The main thread launches 3 kernels; three threads launching in a loop are each
        // stopped for good by a signal whose handler never returns, after at least 2,000
        // launches each, inside the module's API callback (holding a lock of ours or not, as
        // it falls); then SIGTERM ends the process. The final flush must not wait for them.
        // Stops outside the callback or inside the stand-in CUPTI's lock are refused (the main
        // thread sends the signal again): there a stopped thread would block every CUDA call.
        // Inside the callback our code allocates only a thread's first batch and slot (and
        // when no spare batch is left); a thread stopped inside malloc blocks every free of
        // its arena, our flush's too, which then ends at its time limit (kSignalFlushWaitMs).
        // The handler reads the stand-in's thread_local: safe here because each thread has
        // launched 2,000 times before, so that storage exists and is not allocated in the
        // handler.
        alarm(20);  // a hang ends with SIGALRM, which the test tells from SIGTERM
        static auto holdsLock = reinterpret_cast<int (*)()>(dlsym(cupti, "fakeCuptiHoldsLock"));
        static auto inCallback =
            reinterpret_cast<int (*)()>(dlsym(cupti, "fakeCuptiInModuleCallback"));
        static std::atomic<bool> stopped[3];
        static thread_local int self = -1;
        if (!holdsLock || !inCallback) return 5;
        struct sigaction sa {};
        sa.sa_handler = [](int) {
            if (self < 0 || holdsLock() || !inCallback()) return;  // sent again
            stopped[self].store(true);
            for (;;) pause();
        };
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR1, &sa, nullptr);
        for (int i = 0; i < 3; ++i) launch("_Z6kernelPfi");
        std::atomic<long> made[3] = {0, 0, 0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 3; ++t)
            threads.emplace_back([&, t] {
                self = t;
                for (;;) {
                    launch("_Z6kernelPfi");
                    made[t].fetch_add(1);
                }
            });
        for (int t = 0; t < 3; ++t)
            while (made[t].load() < 2000) std::this_thread::yield();
        for (int t = 0; t < 3; ++t)
            while (!stopped[t].load()) {
                pthread_kill(threads[t].native_handle(), SIGUSR1);
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
        raise(SIGTERM);
        return 8;  // not reached
    } else if (s == "thread-local-exit") {
        alarm(20);
        // A per-thread object made before the thread's first CUDA call and destroyed after the
        // module's own per-thread state (thread_local destructors run in reverse order) makes
        // a CUDA call from its destructor, as a per-thread library handle freed at exit does.
        std::thread([launch] {
            struct CallsCudaAtExit {
                Launch l;
                ~CallsCudaAtExit() { l("_Z6kernelPfi"); }
            };
            thread_local CallsCudaAtExit handle{launch};
            (void)&handle;
            launch("_Z6kernelPfi");
        }).join();
    } else if (s == "quick-exit") {
        for (int i = 0; i < 3; ++i) launch("_Z6kernelPfi");
        _exit(0);
    } else if (s == "threads") {
        // 40 threads calling CUDA: CUDA 13 gives each its own activity buffer.
        std::vector<std::thread> threads;
        for (int t = 0; t < 40; ++t)
            threads.emplace_back([&] {
                for (int i = 0; i < 5; ++i) launch("_Z6kernelPfi");
            });
        for (auto& t : threads) t.join();
    } else if (s == "reuse") {
        // Buffers go back to the pool and come out again: they must come out zeroed.
        for (int round = 0; round < 4; ++round) {
            for (int i = 0; i < 100; ++i) launch("_Z6kernelPfi");
            flush(0);
        }
        if (dirty() != 0) return 9;
        if (cleared() != 0) return 10;  // CUPTI had to clear buffers on this thread
    } else if (s == "contexts-while-flushing") {
        // A context created (callback under CUPTI's lock) while buffers complete: no deadlock.
        alarm(20);
        std::atomic<bool> done{false};
        std::thread creator([&] {
            for (int i = 0; i < 2000; ++i) context();
            done = true;
        });
        while (!done) {
            launch("_Z6kernelPfi");
            flush(0);
        }
        creator.join();
    } else {
        return 7;
    }
    return 0;
}
