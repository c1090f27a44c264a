#include "capture/cupti/CudaStreamWriter.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sl::cuda {

constexpr size_t kFlushBytes = 1 << 20;

size_t LaunchInfoHash::operator()(const KernelLaunchInfo& k) const noexcept {
    uint64_t h = 0xcbf29ce484222325ULL;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ULL; };
    mix(k.mangledName);
    mix(k.shortName);
    for (int i = 0; i < 3; ++i) mix((uint64_t(k.grid[i]) << 32) | k.block[i]);
    mix(k.registersPerThread);
    mix((uint64_t(k.staticSharedBytes) << 32) | k.dynamicSharedBytes);
    mix(k.localBytesPerThread);
    mix(static_cast<uint64_t>(k.launchType));
    mix(k.graphId);
    mix(k.graphNodeId);
    return static_cast<size_t>(h);
}

CudaStreamWriter::CudaStreamWriter(int fd, int64_t pid) : m_fd(fd) {
    m_buf.reserve(fd >= 0 ? kFlushBytes + 4096 : 4096);
    CudaStreamHeader h{};
    std::memcpy(h.magic, kCudaStreamMagic, sizeof h.magic);
    h.version = kCudaStreamVersion;
    h.pid = pid;
    const auto* p = reinterpret_cast<const uint8_t*>(&h);
    m_buf.insert(m_buf.end(), p, p + sizeof h);
}

CudaStreamWriter::~CudaStreamWriter() {
    close();
}

void CudaStreamWriter::raw(FrameTag tag, const void* data, size_t size) {
    FrameHeader fh{static_cast<uint16_t>(tag), 0, static_cast<uint32_t>(size)};
    const auto* h = reinterpret_cast<const uint8_t*>(&fh);
    const auto* p = static_cast<const uint8_t*>(data);
    m_buf.insert(m_buf.end(), h, h + sizeof fh);
    m_buf.insert(m_buf.end(), p, p + size);
    if (m_fd >= 0 && m_buf.size() >= kFlushBytes) flush();
}

uint32_t CudaStreamWriter::intern(std::string_view s) {
    if (s.empty()) return 0;
    auto it = m_strings.find(s);  // no allocation for strings already sent
    if (it != m_strings.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(m_strings.size() + 1);
    m_strings.emplace(std::string(s), id);
    raw(FrameTag::String, s.data(), s.size());
    return id;
}

void CudaStreamWriter::add(const KernelExec& e) {
    auto [it, inserted] =
        m_launches.try_emplace(e.launch, static_cast<uint32_t>(m_launches.size()));
    if (inserted) frame(FrameTag::Launch, e.launch);
    KernelWire w{e.place, e.start, e.end, e.name, e.correlation, it->second, 0};
    frame(FrameTag::Kernel, w);
}

void CudaStreamWriter::addGpu(const Gpu& g) {
    GpuWire w{g.deviceId,     g.smCount,      g.computeMajor,     g.computeMinor,
              g.memoryBytes,  g.smClockKHz,   g.memoryClockKHz,   g.memoryBandwidthBytesPerSec,
              intern(g.name), intern(g.uuid), intern(g.pciBusId), 0};
    frame(FrameTag::Gpu, w);
}

void CudaStreamWriter::addContext(const CudaContext& c) {
    ContextWire w{c.pid, c.deviceId, c.contextId, intern(c.name), 0};
    frame(FrameTag::Context, w);
}

void CudaStreamWriter::addStream(const CudaStream& s) {
    StreamWire w{s.pid,
                 s.deviceId,
                 s.priority,
                 s.contextId,
                 s.streamId,
                 s.flags,
                 s.isDefault ? 1u : 0u,
                 intern(s.name),
                 0};
    frame(FrameTag::Stream, w);
}

void CudaStreamWriter::addSeries(const MetricSeries& s) {
    SeriesWire w{s.pid,          s.deviceId,       s.seriesId, intern(s.name),
                 intern(s.unit), intern(s.source), 0};
    frame(FrameTag::Series, w);
}

void CudaStreamWriter::addDiagnostic(std::string_view name, int64_t count, std::string_view reason,
                                     int64_t pid) {
    DiagnosticWire w{count, pid, intern(name), intern(reason)};
    frame(FrameTag::Diagnostic, w);
}

bool CudaStreamWriter::flush() {
    if (m_fd < 0) return true;
    size_t off = 0;
    while (off < m_buf.size()) {
        ssize_t n = ::write(m_fd, m_buf.data() + off, m_buf.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            m_lost += m_buf.size() - off;
            m_buf.clear();
            return false;
        }
        off += static_cast<size_t>(n);
    }
    m_written += off;
    m_buf.clear();
    return true;
}

void CudaStreamWriter::close() {
    if (m_fd < 0) return;
    flush();
    ::close(m_fd);
    m_fd = -1;
}

}  // namespace sl::cuda
