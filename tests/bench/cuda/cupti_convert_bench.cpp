// Throughput of the CUDA capture path on the CPU, with synthetic CUPTI records (no GPU):
//   1. CuptiConverter alone (a sink that discards)      - the converter's own cost
//   2. converter -> CudaStreamWriter -> file in /tmp   - the in-process cost per record
//   2b. converter -> CaptureSink -> capture/common raw stream (what libsightline-cuda does)
//   3. CudaStreamReader -> ReportBuilder, then finish() - the launcher's merge cost
// Usage: bench_cupti_convert [RECORDS=4000000]
// Mix per 20 records: 10 kernels (8 distinct names), 5 runtime API calls, 2 memcpy, 2 memset, 1
// sync.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "capture/cupti/CudaStreamReader.h"
#include "capture/cupti/CudaStreamWriter.h"
#include "capture/cupti/CuptiConverter.h"
#include "capture/cupti/ReportBuilderSink.h"
#ifdef SIGHTLINE_HAVE_CAPTURE_SINK
#include "capture/cupti/inject/InjectionSink.h"
#endif
#include "model/core/ReportBuilder.h"

using namespace sl;
using namespace sl::cuda;

namespace {

class NullSink final : public CudaSink {
public:
    uint32_t intern(std::string_view s) override { return static_cast<uint32_t>(s.size()); }
    void add(const CudaApiCall&) override { ++events; }
    void add(const KernelExec&) override { ++events; }
    void add(const MemcpyOp&) override { ++events; }
    void add(const MemsetOp&) override { ++events; }
    void add(const SyncOp&) override { ++events; }
    void add(const GraphExec&) override { ++events; }
    void add(const CudaMemoryEvent&) override { ++events; }
    void add(const CuptiOverheadEvent&) override { ++events; }
    void add(const MetricSample&) override { ++events; }
    void addGpu(const Gpu&) override {}
    void addContext(const CudaContext&) override {}
    void addStream(const CudaStream&) override {}
    void addSeries(const MetricSeries&) override {}
    void addDiagnostic(std::string_view, int64_t, std::string_view, int64_t) override {}
    uint64_t events = 0;
};

// Records laid out like a CUPTI buffer: each 8-byte aligned, one after the other.
struct Buffer {
    std::vector<uint8_t> bytes;
    std::vector<size_t> offsets;
    template <class T>
    void push(const T& r) {
        offsets.push_back(bytes.size());
        bytes.resize(bytes.size() + ((sizeof(T) + 7) & ~size_t(7)));
        std::memcpy(bytes.data() + offsets.back(), &r, sizeof(T));
    }
};

const char* kNames[8] = {"_Z6kernelPfi",
                         "_Z3addIfEvPT_S1_i",
                         "_ZN2at6native29vectorized_elementwise_kernelILi4EEEviT_",
                         "_Z4gemmPKfS0_Pfiii",
                         "_Z7softmaxPfi",
                         "_Z4reluPfi",
                         "_Z8layernormPfS_i",
                         "empty_c_kernel"};

Buffer makeRecords(size_t n) {
    Buffer b;
    uint64_t t = 1'000'000;
    uint32_t corr = 1;
    for (size_t i = 0; i < n; ++i) {
        size_t slot = i % 20;
        if (slot < 10) {
            CUpti_ActivityKernel10 k;
            std::memset(&k, 0, sizeof k);
            k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
            k.name = kNames[i % 8];
            k.start = t;
            k.end = t + 2000;
            k.streamId = 13 + (i % 4);
            k.contextId = 1;
            k.correlationId = corr++;
            k.gridX = 128;
            k.gridY = k.gridZ = 1;
            k.blockX = 256;
            k.blockY = k.blockZ = 1;
            b.push(k);
        } else if (slot < 15) {
            CUpti_ActivityAPI a;
            std::memset(&a, 0, sizeof a);
            a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
            a.cbid = 211;
            a.start = t;
            a.end = t + 3000;
            a.processId = 1;
            a.threadId = 2;
            a.correlationId = corr;
            b.push(a);
        } else if (slot < 17) {
            CUpti_ActivityMemcpy6 m;
            std::memset(&m, 0, sizeof m);
            m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
            m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
            m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
            m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
            m.bytes = 1 << 20;
            m.start = t;
            m.end = t + 1000;
            m.contextId = 1;
            m.streamId = 14;
            m.correlationId = corr++;
            b.push(m);
        } else if (slot < 19) {
            CUpti_ActivityMemset4 m;
            std::memset(&m, 0, sizeof m);
            m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
            m.bytes = 4096;
            m.start = t;
            m.end = t + 500;
            m.contextId = 1;
            m.streamId = 15;
            m.correlationId = corr++;
            m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
            b.push(m);
        } else {
            CUpti_ActivitySynchronization2 s;
            std::memset(&s, 0, sizeof s);
            s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
            s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
            s.start = t;
            s.end = t + 100;
            s.contextId = 1;
            s.streamId = 13;
            s.correlationId = corr++;
            s.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
            b.push(s);
        }
        t += 1000;
    }
    return b;
}

double seconds(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class F>
double best(int reps, F&& f) {
    double b = 1e30;
    for (int i = 0; i < reps; ++i) b = std::min(b, f());
    return b;
}

void convertAll(const Buffer& b, CuptiConverter& c) {
    for (size_t off : b.offsets)
        c.convert(reinterpret_cast<const CUpti_Activity*>(b.bytes.data() + off));
    c.noteContext(1, 0);
    c.finish();
}

}  // namespace

int main(int argc, char** argv) {
    size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4'000'000;
    Buffer records = makeRecords(n);
    std::printf("records: %zu (%.1f MB of CUPTI structs)\n", n, records.bytes.size() / 1e6);

    double tNull = best(3, [&] {
        NullSink sink;
        CuptiConverter c(sink, 1);
        auto t0 = std::chrono::steady_clock::now();
        convertAll(records, c);
        return seconds(t0);
    });
    std::printf("1. converter alone:           %8.1f M records/s  (%.0f ns/record)\n",
                n / tNull / 1e6, tNull * 1e9 / n);

    // The writer as the injection library uses it: 1 MiB buffer flushed to a file.
    std::string path = "/tmp/bench_cupti_convert." + std::to_string(getpid()) + ".slcuda";
    double tWrite = best(3, [&] {
        int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CudaStreamWriter w(fd, 1);
        CuptiConverter c(w, 1);
        auto t0 = std::chrono::steady_clock::now();
        convertAll(records, c);
        w.close();
        return seconds(t0);
    });
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> stream((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
    std::remove(path.c_str());
    std::printf(
        "2a. converter + CUDA stream file:  %7.1f M records/s  (%.0f ns/record, %.1f "
        "bytes/record)\n",
        n / tWrite / 1e6, tWrite * 1e9 / n, double(stream.size()) / n);

#ifdef SIGHTLINE_HAVE_CAPTURE_SINK
    // The injection library's real path: converter -> CaptureSink -> ProcessWriter raw stream.
    {
        std::string dir = "/tmp/bench_cupti_session." + std::to_string(getpid());
        std::filesystem::create_directories(dir);
        setenv("SIGHTLINE_SESSION_DIR", dir.c_str(), 1);
        std::string why;
        auto sink = makeInjectionSink(getpid(), why);
        if (!sink) {
            std::fprintf(stderr, "%s\n", why.c_str());
            return 1;
        }
        CuptiConverter c(*sink, 1);
        auto t0 = std::chrono::steady_clock::now();
        convertAll(records, c);
        double t = seconds(t0);
        auto t1 = std::chrono::steady_clock::now();
        sink->close();  // drains the writer thread and fsyncs the file
        double tClose = seconds(t1);
        uint64_t bytes = 0;
        for (const auto& f : std::filesystem::directory_iterator(dir))
            bytes += std::filesystem::file_size(f.path());
        std::filesystem::remove_all(dir);
        std::printf(
            "2b. converter + capture raw stream: %6.1f M records/s  (%.0f ns/record, %.1f "
            "bytes/record; "
            "final drain + fsync %.2f s)\n",
            n / t / 1e6, t * 1e9 / n, double(bytes) / n, tClose);
    }
#endif

    uint64_t events = 0;
    double tRead = best(3, [&] {
        ReportBuilder builder;
        ReportBuilderSink sink(builder);
        auto t0 = std::chrono::steady_clock::now();
        auto r = readCudaStream(stream, "bench", sink);
        if (!r) {
            std::fprintf(stderr, "%s\n", r.error().c_str());
            std::exit(1);
        }
        auto report = builder.finish();
        events = report->eventCount();
        return seconds(t0);
    });
    std::printf("3. stream -> report (merge):  %8.1f M records/s  (%.0f ns/record, %llu events)\n",
                n / tRead / 1e6, tRead * 1e9 / n, static_cast<unsigned long long>(events));
    return events == n ? 0 : 1;
}
