#include "model/import/KinetoEventMapper.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "model/import/ImportText.h"

namespace sl::import {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() &&
           (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

bool ieq(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    if (a == b) return true;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

// "Memcpy HtoD (Pageable -> Device)": the copy direction and the two memory kinds.
CopyKind copyKindOf(std::string_view name) {
    static const std::pair<const char*, CopyKind> kKinds[] = {
        {"HtoD", CopyKind::HtoD}, {"DtoH", CopyKind::DtoH}, {"DtoD", CopyKind::DtoD},
        {"HtoH", CopyKind::HtoH}, {"PtoP", CopyKind::PtoP}, {"HtoA", CopyKind::HtoA},
        {"AtoH", CopyKind::AtoH}, {"AtoA", CopyKind::AtoA}, {"AtoD", CopyKind::AtoD},
        {"DtoA", CopyKind::DtoA}};
    for (const auto& [text, kind] : kKinds)
        if (name.find(text) != std::string_view::npos) return kind;
    return CopyKind::Unknown;
}

MemoryKind memoryKindOf(std::string_view s) {
    s = trim(s);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    if (ieq(s, "Pageable")) return MemoryKind::Pageable;
    if (ieq(s, "Pinned")) return MemoryKind::Pinned;
    if (ieq(s, "Device")) return MemoryKind::Device;
    if (ieq(s, "Array")) return MemoryKind::Array;
    if (ieq(s, "Managed")) return MemoryKind::Managed;
    if (ieq(s, "Device Static")) return MemoryKind::DeviceStatic;
    if (ieq(s, "Managed Static")) return MemoryKind::ManagedStatic;
    return MemoryKind::Unknown;
}

// The memory kinds inside the parentheses: "(Pageable -> Device)" or "(Device)".
std::pair<MemoryKind, MemoryKind> parenKinds(std::string_view name) {
    const auto open = name.find('('), close = name.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open)
        return {MemoryKind::Unknown, MemoryKind::Unknown};
    const auto inside = name.substr(open + 1, close - open - 1);
    const auto arrow = inside.find("->");
    if (arrow == std::string_view::npos) return {memoryKindOf(inside), memoryKindOf(inside)};
    return {memoryKindOf(inside.substr(0, arrow)), memoryKindOf(inside.substr(arrow + 2))};
}

SyncType syncTypeOf(std::string_view name) {
    if (name.find("Wait") != std::string_view::npos) return SyncType::StreamWaitEvent;
    if (name.find("Event") != std::string_view::npos) return SyncType::EventSynchronize;
    if (name.find("Stream") != std::string_view::npos) return SyncType::StreamSynchronize;
    if (name.find("Context") != std::string_view::npos ||
        name.find("Device") != std::string_view::npos)
        return SyncType::ContextSynchronize;
    return SyncType::Unknown;
}

}  // namespace

std::optional<int64_t> ChromeEvent::intArg(std::string_view key) const {
    for (int i = 0; i < numericCount; ++i)
        if (numeric[i].key == key) return decimalToNs(trim(numeric[i].raw), 1);
    return std::nullopt;
}

std::optional<double> ChromeEvent::doubleArg(std::string_view key) const {
    for (int i = 0; i < numericCount; ++i) {
        if (numeric[i].key != key) continue;
        const auto raw = trim(numeric[i].raw);
        double v = 0;
        auto r = std::from_chars(raw.data(), raw.data() + raw.size(), v);
        if (r.ec == std::errc()) return v;
    }
    return std::nullopt;
}

KinetoEventMapper::KinetoEventMapper() = default;

int64_t KinetoEventMapper::resolveId(const ChromeId& id) {
    if (!id.isString) return id.number;
    if (auto n = decimalToNs(id.text, 1);
        n && !id.text.empty() && id.text.find_first_of(".eE") == std::string_view::npos)
        return *n;  // "25738": the 2021 format writes tids as strings
    auto it = m_stringIds.find(id.text);
    if (it != m_stringIds.end()) return it->second;
    const int64_t synthetic = kStringIdBase + static_cast<int64_t>(m_stringIds.size());
    m_stringIds.emplace(std::string(id.text), synthetic);
    m_syntheticNames[synthetic] = std::string(id.text);
    return synthetic;
}

uint32_t KinetoEventMapper::domainFor(std::string_view category) {
    auto it = m_domains.find(category);
    if (it != m_domains.end()) return it->second;
    const auto id = static_cast<uint32_t>(m_domains.size() + 1);  // 0 stays the default domain
    m_domains.emplace(std::string(category), id);
    return id;
}

void KinetoEventMapper::noteTime(int64_t s, int64_t e) {
    m_minTs = std::min(m_minTs, s);
    m_maxTs = std::max(m_maxTs, e);
}

void KinetoEventMapper::add(const ChromeEvent& e) {
    ++m_seen;
    if (m_spool && ++m_sinceDrain >= m_spool->policy().drainEvery) {
        m_sinceDrain = 0;
        if (Status s = m_spool->drain(m_b.report().tracks, false); !s && m_spoolError.empty())
            m_spoolError = s.error();
    }
    if (e.badTime) {
        diag("chrome.bad_timestamp", "events whose ts or dur is not a number were not imported");
        return;
    }
    const char ph = e.ph.empty() ? '\0' : e.ph[0];
    if (ph == 'M') {
        addMetadata(e);
        return;
    }
    if (!e.ts) {
        diag("chrome.missing_timestamp", "events without a ts were not imported");
        return;
    }
    const std::string_view cat = e.cat;
    if (ph == 'X') {
        if (ieq(cat, "kernel")) {
            m_kinetoCategories = true;
            addGpu(e, GpuKind::Kernel);
            return;
        }
        if (ieq(cat, "gpu_memcpy") || ieq(cat, "memcpy")) {
            m_kinetoCategories = true;
            addGpu(e, GpuKind::Memcpy);
            return;
        }
        if (ieq(cat, "gpu_memset") || ieq(cat, "memset")) {
            m_kinetoCategories = true;
            addGpu(e, GpuKind::Memset);
            return;
        }
        if (ieq(cat, "cuda_sync")) {
            m_kinetoCategories = true;
            addGpu(e, GpuKind::Sync);
            return;
        }
        if (ieq(cat, "gpu_user_annotation")) {
            m_kinetoCategories = true;
            addGpu(e, GpuKind::Annotation);
            return;
        }
    }
    const int64_t pid = resolveId(e.pid), tid = resolveId(e.tid);
    switch (ph) {
        case 'X': {
            if (ieq(cat, "cuda_runtime") || cat == "Runtime") {
                m_kinetoCategories = true;
                addApiCall(e, pid, tid, ApiKind::Runtime);
                return;
            }
            if (ieq(cat, "cuda_driver")) {
                m_kinetoCategories = true;
                addApiCall(e, pid, tid, ApiKind::Driver);
                return;
            }
            if (cat == "cpu_op" || cat == "Operator" || cat == "user_annotation" ||
                cat == "python_function")
                m_kinetoCategories = true;
            int64_t dur = e.dur.value_or(0);
            if (dur < 0) {
                diag("chrome.negative_duration",
                     "X events with a negative dur were imported with duration 0");
                dur = 0;
            }
            addCpuRange(e, pid, tid, *e.ts, *e.ts + dur);
            return;
        }
        case 'B':
        case 'E':
            beginEnd(e, pid, tid);
            return;
        case 'i':
        case 'I':
        case 'R':
            // Our JSON export's CPU samples (with "sf", or none when the sample has no call
            // stack); other tools' instants, with a stack or not, stay marks.
            if (cat == "cpu_sample")
                addSampleInstant(e, pid, tid);
            else if (e.name == "[memory]")
                addMemoryInstant(e, pid);
            else
                addInstant(e, pid, tid);
            return;
        case 'C':
            addCounter(e, pid);
            return;
        case 's':
        case 'f':
        case 't':
            // Kineto's launch flows (ac2g, or "async"/"launch" in 2021) link an API call to its
            // GPU work: the correlation ids carry the same link, so nothing is lost.
            if (cat == "ac2g" || (cat == "async" && e.name == "launch")) return;
            diag("chrome.flows_not_imported",
                 "flow events (ph s/t/f) other than Kineto launch flows are not imported");
            return;
        default:
            diag(std::string("chrome.unsupported_phase.") +
                     (ph ? std::string(1, ph) : std::string("none")),
                 "events of a phase Sightline does not map (async b/e/n, objects, samples) were "
                 "not imported");
            return;
    }
}

void KinetoEventMapper::addCpuRange(const ChromeEvent& e, int64_t pid, int64_t tid, int64_t start,
                                    int64_t end) {
    NvtxRangeEvent r;
    r.pid = pid;
    r.tid = tid;
    r.domain = domainFor(e.cat.empty() ? std::string_view("(no category)") : e.cat);
    r.start = start;
    r.end = end;
    r.message = m_b.intern(e.name);
    // Kineto's External id ties a CPU op to the runtime calls and GPU work it caused.
    auto ext = e.intArg("External id");
    if (!ext) ext = e.intArg("external id");
    if (ext) {
        r.payloadType = PayloadType::I64;
        r.payload = static_cast<uint64_t>(*ext);
    }
    m_b.add(r);
    m_threads.emplace(pid, tid);
    m_cpuPids.insert(pid);
    m_usedDomains.emplace(pid, r.domain);
    noteTime(start, end);
}

void KinetoEventMapper::addApiCall(const ChromeEvent& e, int64_t pid, int64_t tid, ApiKind api) {
    CudaApiCall c;
    c.pid = pid;
    c.tid = tid;
    c.start = *e.ts;
    c.end = c.start + std::max<int64_t>(0, e.dur.value_or(0));
    c.name = m_b.intern(e.name);
    c.api = api;
    if (auto corr = e.intArg("correlation")) {
        c.correlation = static_cast<uint32_t>(*corr);
        m_corrPid.add(*corr, pid);
    }
    c.cbid = static_cast<uint32_t>(e.intArg("cbid").value_or(0));
    m_b.add(c);
    ++m_apiCallsPerPid[pid];
    m_threads.emplace(pid, tid);
    m_cpuPids.insert(pid);
    noteTime(c.start, c.end);
}

void KinetoEventMapper::addGpu(const ChromeEvent& e, GpuKind kind) {
    PendingGpu g{};
    g.kind = kind;
    g.start = *e.ts;
    g.end = g.start + std::max<int64_t>(0, e.dur.value_or(0));
    g.name = m_b.intern(e.name);
    // Kineto puts the device in args and also uses it as the row's pid; the stream is also the
    // row's tid ("stream 7" in 2021).
    const auto device = e.intArg("device");
    g.device = static_cast<int32_t>(device ? *device : (e.pid.isString ? -1 : e.pid.number));
    g.context = static_cast<uint32_t>(e.intArg("context").value_or(0));
    auto stream = e.intArg("stream");
    if (!stream)
        stream =
            e.tid.isString ? trailingInteger(e.tid.text) : std::optional<int64_t>(e.tid.number);
    g.stream = static_cast<uint32_t>(stream.value_or(0));
    g.correlation = e.intArg("correlation").value_or(-1);
    g.rawPid = e.pid.isString ? -1 : e.pid.number;
    g.bytes = static_cast<uint64_t>(std::max<int64_t>(0, e.intArg("bytes").value_or(0)));
    switch (kind) {
        case GpuKind::Kernel: {
            KernelLaunchInfo l;
            l.mangledName = l.shortName = g.name;
            if (e.hasGrid)
                for (int i = 0; i < 3; ++i) l.grid[i] = static_cast<uint32_t>(e.grid[i]);
            if (e.hasBlock)
                for (int i = 0; i < 3; ++i) l.block[i] = static_cast<uint32_t>(e.block[i]);
            l.registersPerThread =
                static_cast<uint32_t>(e.intArg("registers per thread").value_or(0));
            l.staticSharedBytes = static_cast<uint32_t>(e.intArg("shared memory").value_or(0));
            g.launch = m_b.launchId(l);
            break;
        }
        case GpuKind::Memcpy: {
            const auto [src, dst] = parenKinds(e.name);
            g.launch = static_cast<uint32_t>(copyKindOf(e.name)) |
                       (static_cast<uint32_t>(src) << 8) | (static_cast<uint32_t>(dst) << 16);
            break;
        }
        case GpuKind::Memset:
            g.launch = static_cast<uint32_t>(parenKinds(e.name).first);
            break;
        case GpuKind::Sync:
            g.launch = static_cast<uint32_t>(syncTypeOf(e.name));
            break;
        case GpuKind::Annotation:
            break;
    }
    if (g.device < 0) {
        diag("kineto.gpu_event_without_device",
             "GPU events with neither args.device nor a numeric pid were not imported");
        return;
    }
    noteTime(g.start, g.end);
    if (kind == GpuKind::Annotation) {
        m_gpu.push_back(g);
        return;
    }
    // The event waits in a track of its stream under a pending pid (its own pid field, for
    // traces without API calls); its correlation is stored plus one, 0 meaning none.
    const int64_t pending = kPendingPidBase + std::clamp<int64_t>(g.rawPid, -1, int64_t{1} << 40);
    const uint32_t stored = g.correlation >= 0 ? static_cast<uint32_t>(g.correlation) + 1u : 0u;
    const GpuPlace place{pending, g.device, g.context, g.stream};
    switch (kind) {
        case GpuKind::Kernel: {
            int64_t x[] = {stored, g.launch};
            m_b.addRaw(TrackKey::forStream(EventKind::Kernel, pending, g.device, g.context, g.stream),
                       g.start, g.end, g.name, x);
            break;
        }
        case GpuKind::Memcpy: {
            MemcpyOp m;
            m.place = place;
            m.start = g.start;
            m.end = g.end;
            m.correlation = stored;
            m.bytes = g.bytes;
            m.copyKind = static_cast<CopyKind>(g.launch & 0xFF);
            m.srcKind = static_cast<MemoryKind>((g.launch >> 8) & 0xFF);
            m.dstKind = static_cast<MemoryKind>((g.launch >> 16) & 0xFF);
            m_b.add(m);
            break;
        }
        case GpuKind::Memset: {
            MemsetOp m;
            m.place = place;
            m.start = g.start;
            m.end = g.end;
            m.correlation = stored;
            m.bytes = g.bytes;
            m.memKind = static_cast<MemoryKind>(g.launch);
            m_b.add(m);
            break;
        }
        case GpuKind::Sync: {
            SyncOp sy;
            sy.place = place;
            sy.start = g.start;
            sy.end = g.end;
            sy.correlation = stored;
            sy.type = static_cast<SyncType>(g.launch);
            m_b.add(sy);
            break;
        }
        case GpuKind::Annotation:
            break;
    }
}

void KinetoEventMapper::beginEnd(const ChromeEvent& e, int64_t pid, int64_t tid) {
    auto& stack = m_openB[{pid, tid}];
    if (e.ph[0] == 'B') {
        stack.push_back(Open{*e.ts, m_b.intern(e.name), m_b.intern(e.cat)});
        return;
    }
    if (stack.empty()) {
        diag("chrome.unmatched_end",
             "E events with no open B event on their thread were not imported");
        return;
    }
    const Open o = stack.back();
    stack.pop_back();
    ChromeEvent named = e;
    named.name = m_b.report().str(o.name);
    named.cat =
        m_b.report().str(o.cat);  // E events usually carry no category: the range is the B's
    addCpuRange(named, pid, tid, o.start, std::max(o.start, *e.ts));
}

uint32_t KinetoEventMapper::seriesFor(int64_t pid, const std::string& name, const std::string& unit,
                                      int32_t device) {
    auto key = std::make_tuple(pid, name, unit, device);
    auto it = m_series.find(key);
    if (it != m_series.end()) return it->second;
    auto& all = m_b.report().metricSeries;
    MetricSeries s;
    s.seriesId = static_cast<uint32_t>(all.size() + 1);
    s.name = name;
    s.unit = unit;
    s.source = "import";
    s.deviceId = device;
    s.pid = pid;
    all.push_back(s);
    m_series.emplace(std::move(key), s.seriesId);
    return s.seriesId;
}

void KinetoEventMapper::addCounter(const ChromeEvent& e, int64_t pid) {
    if (e.numericCount == 0) {
        diag("chrome.counter_without_values", "C events with no numeric args were not imported");
        return;
    }
    for (int i = 0; i < e.numericCount; ++i) {
        const auto v = e.doubleArg(e.numeric[i].key);
        if (!v) continue;
        std::string name(e.name);
        if (e.numericCount > 1 || (e.numeric[i].key != "value" && e.numeric[i].key != e.name))
            name += " " + std::string(e.numeric[i].key);
        m_b.add(MetricSample{seriesFor(pid, name, "", -1), *e.ts, *v});
    }
    m_cpuPids.insert(pid);
    noteTime(*e.ts, *e.ts);
}

void KinetoEventMapper::addMemoryInstant(const ChromeEvent& e, int64_t pid) {
    // PyTorch's profile_memory instants: Bytes (+alloc / -free) per device, and in newer
    // versions the running "Total Allocated". One series per device, in bytes.
    const int64_t devType = e.intArg("Device Type").value_or(0);
    const int64_t devId = e.intArg("Device Id").value_or(-1);
    const bool gpu = devType == 1;
    double total = 0;
    if (auto t = e.doubleArg("Total Allocated")) {
        total = *t;
        m_memoryTotals[{pid, gpu ? devId : -1}] = total;
    } else {
        total = (m_memoryTotals[{pid, gpu ? devId : -1}] += e.doubleArg("Bytes").value_or(0));
    }
    // Track titles add "(GPU n)" for series with a device.
    const std::string name = gpu ? "PyTorch memory allocated" : "PyTorch memory allocated (CPU)";
    m_b.add(MetricSample{seriesFor(pid, name, "bytes", gpu ? static_cast<int32_t>(devId) : -1),
                         *e.ts, total});
    m_cpuPids.insert(pid);
    noteTime(*e.ts, *e.ts);
}

void KinetoEventMapper::addInstant(const ChromeEvent& e, int64_t pid, int64_t tid) {
    NvtxMarkEvent m;
    m.pid = pid;
    m.tid = tid;
    m.domain = domainFor(e.cat.empty() ? std::string_view("instant") : e.cat);
    m.time = *e.ts;
    m.message = m_b.intern(e.name);
    m_b.add(m);
    m_threads.emplace(pid, tid);
    m_cpuPids.insert(pid);
    m_usedDomains.emplace(pid, m.domain);
    noteTime(m.time, m.time);
}

void KinetoEventMapper::addMetadata(const ChromeEvent& e) {
    const int64_t pid = resolveId(e.pid);
    if (e.name == "process_name")
        m_processNames[pid] = std::string(e.argName);
    else if (e.name == "thread_name")
        m_threadNames[{pid, resolveId(e.tid)}] = std::string(e.argName);
    // process_sort_index / thread_sort_index and the like only order rows in chrome://tracing.
}

}  // namespace sl::import
