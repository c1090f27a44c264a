#pragma once
// CPU IP/backtrace sampling of the traced tree (`-s process-tree`): a software cpu-clock
// perf event per CPU with the root pid, inherited by all threads and children, sampling at
// `--sampling-frequency` with user frame-pointer callchains (`-b fp`) or a copy of the user
// registers and the top of the user stack, unwound from DWARF CFI (`-b dwarf`, DwarfUnwinder,
// in the replay, so the stack copy is dropped within ~60 ms of the sample), timestamps on
// CLOCK_MONOTONIC. The same events report every executable mapping (MMAP2), fork and exec, so
// addresses can be resolved after the processes are gone. A reader thread drains the rings
// every 10 ms and replays what is older than a short horizon in time order (SampleResolver:
// addresses -> distinct frames and stacks), so memory grows with the distinct stacks and 32
// bytes per sample, not with stack depth. stop() symbolizes each distinct frame once.
// Lost records are counted.
#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "capture/launcher/DwarfUnwinder.h"
#include "capture/launcher/SampleResolver.h"
#include "capture/launcher/StopFlag.h"
#include "capture/launcher/SymbolPrefetch.h"
#include "model/core/ReportBuilder.h"

namespace sl::capture {

class CpuSampler {
public:
    struct Stats {
        uint64_t samples = 0, lost = 0, throttles = 0, frames = 0, distinctFrames = 0;
        uint64_t unresolvedFrames = 0;  // over all samples
        int64_t resolveNs = 0;          // replay (reader thread, stop()) + symbolization
        int64_t symbolizeNs = 0;        // of which ELF reading and symbol lookups
        bool kernelSamples = false;     // exclude_kernel was not needed
        // -b dwarf: samples unwound, those that stopped before the outermost frame (frames got
        // so far kept), and the unwinding time (reader thread, stop()).
        uint64_t dwarfSamples = 0, dwarfIncomplete = 0;
        int64_t unwindNs = 0;
    };
    enum class Backtrace { None, FramePointers, Dwarf };
    // Bytes of user stack copied with each -b dwarf sample (perf's default): deeper stacks
    // stop unwinding at the end of the copy.
    static constexpr uint32_t kDwarfStackBytes = 8192;

    ~CpuSampler();
    // Opens the events for `pid` before it execs. Empty string: success; otherwise one line
    // saying why sampling is off (the capture goes on without it). With `switches`, the same
    // events also record the context switches and hand their side-band records (switches, forks,
    // exits, execs, losses) to it (SchedTracer::startFromSampler): one inherited event per CPU in
    // every task of the tree instead of two, each fork, exit and exec recorded once, one reader
    // thread. `switches` must outlive this sampler's stop().
    std::string start(int64_t pid, int frequency, Backtrace backtrace,
                      class SchedTracer* switches = nullptr);
    // Ends sampling, drains the rings and resolves every frame.
    void stop();
    // The same in two steps, the second on a thread of its own, so that resolving the frames
    // (reading the programs' symbols) runs beside the merge of the streams: stopRecording()
    // hands the last side-band records to the SchedTracer; resolved() waits for the thread.
    void stopRecording();
    // After stopRecording(): the threads reading symbols ahead (modules, the kernel's) done, so
    // that the process may fork (DetachedFinish.h) and the child resolve alone.
    void quiesce();
    void resolveInBackground();
    const CpuSampler& resolved() const;
    // With `python` (--python-sampling), a sample of a Python thread takes the Python stack of
    // its thread nearest in time, at most `pythonTolerance` ns away (PythonStacks::splice).
    void addTo(ReportBuilder& b, int64_t windowStart, int64_t windowEnd,
               const class PythonStacks* python = nullptr, int64_t pythonTolerance = 0) const;
    const Stats& stats() const { return m_stats; }
    // "CPU sampling: N samples, M distinct frames symbolized in X ms" (after stop()).
    std::string summary() const;
    // -b dwarf: microseconds of unwinding per sample, one decimal ("12.3").
    std::string unwindPerSample() const;

    // For tests and benchmarks: raw records as the reader would store them, then resolve().
    void addMapping(int64_t time, int64_t pid, uint64_t start, uint64_t length, uint64_t pgoff,
                    const std::string& path);
    void addSample(int64_t time, int64_t pid, int64_t tid, int cpu, const uint64_t* ips, size_t n);
    // A -b dwarf sample: `n` kernel addresses (the leaf, or none), the user registers in perf's
    // order (DwarfUnwinder::kPerfRegsMask) and the copied stack.
    void addDwarfSample(int64_t time, int64_t pid, int64_t tid, int cpu, const uint64_t* ips,
                        size_t n, const uint64_t* perfRegs, const uint8_t* stack, size_t stackSize);
    void resolve();

private:
    struct Ring {
        int fd = -1;
        void* base = nullptr;
        size_t size = 0;  // data area bytes
    };
    enum class MapKind : uint8_t { Mmap, Fork, Exec };
    struct MapEvent {
        int64_t time;
        MapKind kind;
        int64_t pid, parent;
        uint64_t start, length, pgoff;
        uint32_t path;  // index into m_paths
    };
    struct Sample {
        int64_t time;
        int32_t pid, tid;
        int16_t cpu;
        // raw -b dwarf sample: after the `count` frames, DwarfUnwinder::kRegs registers (DWARF
        // order), the stack size in bytes and the stack (in the padding: no bigger sample).
        bool dwarf = false;
        uint32_t count;  // raw: frames, leaf first
        uint64_t begin;  // raw: offset in m_ips; replayed: the SampleResolver stack
    };

    void run();
    void seedMappings(int64_t pid);
    void drain(Ring& r);
    void record(const uint8_t* rec, size_t size);
    // The rest of a -b dwarf PERF_RECORD_SAMPLE body `p` after its `n` kernel frames.
    void recordDwarf(const uint8_t* p, size_t body, const uint64_t* kernel, size_t n);
    // Replays the pending records with time <= upTo, in time order.
    void replay(int64_t upTo);
    // Words of m_ips a raw sample holds.
    uint64_t rawWords(const Sample& s) const;
    // The frames of a raw -b dwarf sample: its kernel leaf, then the unwound user stack.
    void unwind(const Sample& s, std::vector<uint64_t>& frames);

    std::vector<Ring> m_rings;
    StopFlag m_stop;
    std::thread m_thread;
    std::vector<uint8_t> m_scratch;
    // Pending (raw), filled by the reader thread, replayed in time order.
    std::vector<MapEvent> m_mapEvents;
    std::vector<std::string> m_paths;
    std::vector<Sample> m_pending;
    std::vector<uint64_t> m_ips;
    // Replayed (begin = stack).
    std::vector<Sample> m_samples;
    SampleResolver m_resolver;
    // Reads the sampled modules' symbols while the program runs (from start()).
    std::unique_ptr<SymbolPrefetch> m_prefetch;
    DwarfUnwinder m_unwinder{m_resolver.maps()};
    std::vector<uint64_t> m_unwound;
    // /proc/kallsyms takes ~100 ms of kernel time to read: loaded in the background from the
    // first sample taken in the kernel, while the program still runs.
    std::future<KernelSymbols> m_kallsyms;
    Stats m_stats;
    SchedTracer* m_switches = nullptr;
    bool m_resolved = false;
    mutable std::thread m_resolving;  // resolveInBackground(), joined by resolved()
    Backtrace m_backtrace = Backtrace::FramePointers;
};

}  // namespace sl::capture
