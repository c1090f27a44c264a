#pragma once
// A CudaSink that serializes into a CUDA stream file (CudaStreamFormat.h). Used inside the
// traced process by the CUPTI injection library: strings and launch configurations are sent
// once and then referred to by id. Buffers in memory and writes whole frames with write(2)
// when the buffer passes 1 MiB and on flush(). Not thread-safe (the caller holds a lock).
#include <string>
#include <unordered_map>
#include <vector>

#include "capture/cupti/CudaSink.h"
#include "capture/cupti/CudaStreamFormat.h"

namespace sl::cuda {

struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
        return std::hash<std::string_view>{}(s);
    }
};

struct LaunchInfoHash {
    size_t operator()(const KernelLaunchInfo& k) const noexcept;
};

class CudaStreamWriter final : public CudaSink {
public:
    // fd: an open file the writer owns from now on (closed by close()/the destructor); -1 keeps
    // everything in memory (tests, benchmarks: see bytes()).
    CudaStreamWriter(int fd, int64_t pid);
    ~CudaStreamWriter() override;
    CudaStreamWriter(const CudaStreamWriter&) = delete;
    CudaStreamWriter& operator=(const CudaStreamWriter&) = delete;

    uint32_t intern(std::string_view s) override;
    void add(const CudaApiCall& e) override { frame(FrameTag::Api, e); }
    void add(const KernelExec& e) override;
    void add(const MemcpyOp& e) override { frame(FrameTag::Memcpy, e); }
    void add(const MemsetOp& e) override { frame(FrameTag::Memset, e); }
    void add(const SyncOp& e) override { frame(FrameTag::Sync, e); }
    void add(const GraphExec& e) override { frame(FrameTag::Graph, e); }
    void add(const CudaMemoryEvent& e) override { frame(FrameTag::Memory, e); }
    void add(const CuptiOverheadEvent& e) override { frame(FrameTag::Overhead, e); }
    void add(const MetricSample& e) override { frame(FrameTag::Sample, e); }
    void addGpu(const Gpu& g) override;
    void addContext(const CudaContext& c) override;
    void addStream(const CudaStream& s) override;
    void addSeries(const MetricSeries& s) override;
    void addDiagnostic(std::string_view name, int64_t count, std::string_view reason,
                       int64_t pid) override;

    // Writes what is buffered. False when the file could not be written (then bytesLost() > 0).
    bool flush();
    void close();
    const std::vector<uint8_t>& bytes() const { return m_buf; }  // in-memory mode
    uint64_t bytesWritten() const { return m_written; }
    uint64_t bytesLost() const { return m_lost; }

private:
    template <class T>
    void frame(FrameTag tag, const T& payload) {
        raw(tag, &payload, sizeof(T));
    }
    void raw(FrameTag tag, const void* data, size_t size);

    int m_fd;
    std::vector<uint8_t> m_buf;
    std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> m_strings;
    std::unordered_map<KernelLaunchInfo, uint32_t, LaunchInfoHash> m_launches;
    uint64_t m_written = 0;
    uint64_t m_lost = 0;
};

}  // namespace sl::cuda
