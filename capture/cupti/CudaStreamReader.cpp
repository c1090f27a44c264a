#include "capture/cupti/CudaStreamReader.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "capture/cupti/CudaStreamFormat.h"

namespace sl::cuda {
namespace {

class Replayer {
public:
    explicit Replayer(CudaSink& sink) : m_sink(sink) {
        m_strings.push_back(0);
        m_texts.emplace_back();
    }

    // Returns an error message, empty when the frame was fine.
    std::string frame(FrameTag tag, const uint8_t* p, uint32_t size, CudaStreamSummary& sum) {
        switch (tag) {
            case FrameTag::String:
                m_texts.emplace_back(reinterpret_cast<const char*>(p), size);
                m_strings.push_back(m_sink.intern(m_texts.back()));
                return {};
            case FrameTag::Launch: {
                KernelLaunchInfo l;
                if (!load(p, size, l)) return sizeError();
                if (!str(l.mangledName) || !str(l.shortName)) return idError();
                m_launches.push_back(l);
                return {};
            }
            case FrameTag::Kernel: {
                KernelWire w;
                if (!load(p, size, w)) return sizeError();
                if (w.launch >= m_launches.size())
                    return "a kernel refers to launch " + std::to_string(w.launch) +
                           " which is not defined";
                KernelExec e;
                e.place = w.place;
                e.start = w.start;
                e.end = w.end;
                e.name = w.name;
                e.correlation = w.correlation;
                e.launch = m_launches[w.launch];
                if (!str(e.name)) return idError();
                m_sink.add(e);
                ++sum.events;
                return {};
            }
            case FrameTag::Api:
                return event<CudaApiCall>(p, size, sum, [](CudaApiCall& e) { return &e.name; });
            case FrameTag::Graph:
                return event<GraphExec>(p, size, sum, [](GraphExec& e) { return &e.name; });
            case FrameTag::Memcpy:
                return event<MemcpyOp>(p, size, sum);
            case FrameTag::Memset:
                return event<MemsetOp>(p, size, sum);
            case FrameTag::Sync:
                return event<SyncOp>(p, size, sum);
            case FrameTag::Memory:
                return event<CudaMemoryEvent>(p, size, sum);
            case FrameTag::Overhead:
                return event<CuptiOverheadEvent>(p, size, sum);
            case FrameTag::Sample:
                return event<MetricSample>(p, size, sum);
            case FrameTag::Gpu: {
                GpuWire w;
                if (!load(p, size, w)) return sizeError();
                if (!has(w.name) || !has(w.uuid) || !has(w.pciBusId)) return idError();
                Gpu g;
                g.deviceId = w.deviceId;
                g.name = text(w.name);
                g.uuid = text(w.uuid);
                g.pciBusId = text(w.pciBusId);
                g.smCount = w.smCount;
                g.memoryBytes = w.memoryBytes;
                g.computeMajor = w.computeMajor;
                g.computeMinor = w.computeMinor;
                g.smClockKHz = w.smClockKHz;
                g.memoryClockKHz = w.memoryClockKHz;
                g.memoryBandwidthBytesPerSec = w.memoryBandwidthBytesPerSec;
                m_sink.addGpu(g);
                return {};
            }
            case FrameTag::Context: {
                ContextWire w;
                if (!load(p, size, w)) return sizeError();
                if (!has(w.name)) return idError();
                m_sink.addContext(CudaContext{w.pid, w.deviceId, w.contextId, text(w.name)});
                return {};
            }
            case FrameTag::Stream: {
                StreamWire w;
                if (!load(p, size, w)) return sizeError();
                if (!has(w.name)) return idError();
                m_sink.addStream(CudaStream{w.pid, w.deviceId, w.contextId, w.streamId, w.priority,
                                            w.flags, w.isDefault != 0, text(w.name)});
                return {};
            }
            case FrameTag::Series: {
                SeriesWire w;
                if (!load(p, size, w)) return sizeError();
                if (!has(w.name) || !has(w.unit) || !has(w.source)) return idError();
                m_sink.addSeries(MetricSeries{w.seriesId, text(w.name), text(w.unit),
                                              text(w.source), w.deviceId, w.pid});
                return {};
            }
            case FrameTag::Diagnostic: {
                DiagnosticWire w;
                if (!load(p, size, w)) return sizeError();
                if (!has(w.name) || !has(w.reason)) return idError();
                m_sink.addDiagnostic(text(w.name), w.count, text(w.reason), w.pid);
                return {};
            }
        }
        return "unknown frame tag " + std::to_string(static_cast<unsigned>(tag));
    }

private:
    template <class T>
    static bool load(const uint8_t* p, uint32_t size, T& out) {
        if (size != sizeof(T)) return false;
        std::memcpy(&out, p, sizeof(T));
        return true;
    }
    // Stream string id -> sink string id, in place; false when undefined.
    bool str(uint32_t& id) const {
        if (id >= m_strings.size()) return false;
        id = m_strings[id];
        return true;
    }
    bool has(uint32_t id) const { return id < m_texts.size(); }
    const std::string& text(uint32_t id) const { return m_texts[id]; }
    template <class T, class NameOf = std::nullptr_t>
    std::string event(const uint8_t* p, uint32_t size, CudaStreamSummary& sum,
                      NameOf nameOf = nullptr) {
        T e;
        if (!load(p, size, e)) return sizeError();
        if constexpr (!std::is_same_v<NameOf, std::nullptr_t>) {
            if (!str(*nameOf(e))) return idError();
        }
        m_sink.add(e);
        ++sum.events;
        return {};
    }
    static std::string sizeError() { return "a frame has the wrong size for its tag"; }
    static std::string idError() { return "a frame refers to a string that is not defined"; }

    CudaSink& m_sink;
    std::vector<uint32_t> m_strings;   // stream string id -> sink string id
    std::vector<std::string> m_texts;  // stream string id -> text (metadata needs the text)
    std::vector<KernelLaunchInfo> m_launches;
};

}  // namespace

Result<CudaStreamSummary> readCudaStream(std::span<const uint8_t> bytes, const std::string& name,
                                         CudaSink& sink) {
    CudaStreamSummary sum;
    CudaStreamHeader h;
    if (bytes.size() < sizeof h)
        return makeError(name + ": not a Sightline CUDA stream (file shorter than its header)");
    std::memcpy(&h, bytes.data(), sizeof h);
    if (std::memcmp(h.magic, kCudaStreamMagic, sizeof h.magic) != 0)
        return makeError(name + ": not a Sightline CUDA stream (bad magic at byte 0)");
    if (h.version != kCudaStreamVersion)
        return makeError(name + ": CUDA stream version " + std::to_string(h.version) +
                         " is not supported (expected " + std::to_string(kCudaStreamVersion) + ")");
    sum.pid = h.pid;
    Replayer r(sink);
    size_t off = sizeof h;
    while (off < bytes.size()) {
        FrameHeader fh{};
        size_t left = bytes.size() - off;
        if (left >= sizeof fh) std::memcpy(&fh, bytes.data() + off, sizeof fh);
        if (left < sizeof fh || left - sizeof fh < fh.size) {
            sum.truncated = true;
            sink.addDiagnostic(
                "cuda.stream_truncated", 1,
                "A process's CUDA stream ends in the middle of a record (the process was killed); "
                "events up to that point are kept",
                h.pid);
            break;
        }
        const uint8_t* payload = bytes.data() + off + sizeof fh;
        auto tag = static_cast<FrameTag>(fh.tag);
        std::string err = r.frame(tag, payload, fh.size, sum);
        if (!err.empty())
            return makeError(name + ": byte offset " + std::to_string(off) + ": " + err);
        ++sum.frames;
        off += sizeof fh + fh.size;
    }
    return sum;
}

Result<CudaStreamSummary> readCudaStreamFile(const std::string& path, CudaSink& sink) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError(path + ": cannot open the CUDA stream file");
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    if (in.bad()) return makeError(path + ": read error");
    return readCudaStream(bytes, path, sink);
}

}  // namespace sl::cuda
