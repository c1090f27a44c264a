// InjectionSink over a CUDA stream file (<session>/cuda-<pid>.slcuda): the build's fallback
// when capture/common (the shared raw stream path) is not part of it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "capture/cupti/CudaStreamFormat.h"
#include "capture/cupti/CudaStreamWriter.h"
#include "capture/cupti/inject/InjectionSink.h"

namespace sl::cuda {
namespace {

class StreamFileSink final : public InjectionSink {
public:
    StreamFileSink(int fd, int64_t pid) : m_w(fd, pid) {}
    uint32_t intern(std::string_view s) override { return m_w.intern(s); }
    void add(const CudaApiCall& e) override { m_w.add(e); }
    void add(const KernelExec& e) override { m_w.add(e); }
    void add(const MemcpyOp& e) override { m_w.add(e); }
    void add(const MemsetOp& e) override { m_w.add(e); }
    void add(const SyncOp& e) override { m_w.add(e); }
    void add(const GraphExec& e) override { m_w.add(e); }
    void add(const CudaMemoryEvent& e) override { m_w.add(e); }
    void add(const CuptiOverheadEvent& e) override { m_w.add(e); }
    void add(const MetricSample& e) override { m_w.add(e); }
    void addGpu(const Gpu& g) override { m_w.addGpu(g); }
    void addContext(const CudaContext& c) override { m_w.addContext(c); }
    void addStream(const CudaStream& s) override { m_w.addStream(s); }
    void addSeries(const MetricSeries& s) override { m_w.addSeries(s); }
    void addDiagnostic(std::string_view n, int64_t c, std::string_view r, int64_t pid) override {
        m_w.addDiagnostic(n, c, r, pid);
    }
    void flush() override { m_w.flush(); }
    void close() override { m_w.close(); }
    void markToolThread(std::string_view) override {}  // this format has no threads

private:
    CudaStreamWriter m_w;
};

}  // namespace

std::unique_ptr<InjectionSink> makeInjectionSink(int64_t pid, std::string& why) {
    const char* dir = std::getenv("SIGHTLINE_SESSION_DIR");
    if (!dir || !*dir) {
        why = "SIGHTLINE_SESSION_DIR is not set (run the program under `sightline profile`)";
        return nullptr;
    }
    std::string path =
        std::string(dir) + "/" + kCudaStreamPrefix + std::to_string(pid) + kCudaStreamSuffix;
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        why = path + ": " + std::strerror(errno);
        return nullptr;
    }
    return std::make_unique<StreamFileSink>(fd, pid);
}

}  // namespace sl::cuda
