// CPU samples of a Chrome trace: instants of category cpu_sample that carry "sf" (a node of the
// top-level "stackFrames" tree, as `sightline export --type json` writes them), or else the
// format's top-level "samples" array (chrome://tracing, speedscope). Each stack-frame node chain
// becomes one interned call stack, leaf first.
#include <charconv>
#include <set>

#include "model/import/KinetoEventMapper.h"

namespace sl::import {
namespace {

// Our exporter names a frame without a function "module+0x1a2b" with category "module".
bool splitAddressName(const ChromeStackFrame& f, uint64_t& offset) {
    const std::string prefix = f.category + "+0x";
    if (f.category.empty() || f.name.size() <= prefix.size() ||
        f.name.compare(0, prefix.size(), prefix) != 0)
        return false;
    const char* b = f.name.data() + prefix.size();
    const char* e = f.name.data() + f.name.size();
    auto [p, ec] = std::from_chars(b, e, offset, 16);
    return ec == std::errc() && p == e;
}

}  // namespace

void KinetoEventMapper::addSampleInstant(const ChromeEvent& e, int64_t pid, int64_t tid) {
    const int64_t cpu = e.intArg("cpu").value_or(-1);
    m_samples.push_back({pid, tid, *e.ts, cpu, std::string(e.sf)});
    m_threads.emplace(pid, tid);
    m_cpuPids.insert(pid);
    noteTime(*e.ts, *e.ts);
}

uint32_t KinetoEventMapper::sampleStack(const TraceHeader& header, const std::string& sf) {
    if (auto it = m_sampleStacks.find(sf); it != m_sampleStacks.end()) return it->second;
    std::vector<uint32_t> frames;
    std::set<std::string> seen;  // a parent cycle would never end
    std::string node = sf;
    bool unknown = false;
    while (!node.empty() && seen.insert(node).second) {
        auto it = header.stackFrames.find(node);
        if (it == header.stackFrames.end()) {
            unknown = true;
            break;
        }
        const ChromeStackFrame& f = it->second;
        StackFrame frame;
        frame.module = m_b.intern(f.category);
        if (!splitAddressName(f, frame.offset)) frame.function = m_b.intern(f.name);
        frames.push_back(m_b.frameId(frame));
        node = f.parent;
    }
    if (unknown)
        diag("chrome.sample_unknown_stack_frame",
             "CPU samples name a stack frame missing from stackFrames; their stacks stop there");
    const uint32_t id = m_b.stackId(std::move(frames));
    m_sampleStacks.emplace(sf, id);
    return id;
}

void KinetoEventMapper::addSamples(const TraceHeader& header) {
    // The instants and the "samples" array describe the same samples when both are present
    // (our own export): the instants win, as they carry the pid.
    if (m_samples.empty()) {
        std::map<int64_t, int64_t> pidOfTid;
        for (const auto& [pid, tid] : m_threads) pidOfTid.emplace(tid, pid);
        for (const ChromeSample& s : header.samples) {
            int64_t pid = s.pid.value_or(0);
            if (!s.pid)
                if (auto it = pidOfTid.find(s.tid); it != pidOfTid.end()) pid = it->second;
            m_samples.push_back({pid, s.tid, s.ts, s.cpu, s.sf});
            m_threads.emplace(pid, s.tid);
            m_cpuPids.insert(pid);
            noteTime(s.ts, s.ts);
        }
    }
    if (header.badSamples)
        diag("chrome.bad_samples",
             "entries of the samples array without a numeric tid or ts were not imported",
             header.badSamples);
    const Report& r = m_b.report();
    for (const PendingSample& p : m_samples) {
        CpuSampleEvent e;
        e.pid = p.pid;
        e.tid = p.tid;
        e.time = p.time;
        e.cpu = static_cast<int16_t>(p.cpu >= -1 && p.cpu < 32768 ? p.cpu : -1);
        e.stack = sampleStack(header, p.sf);
        const auto& frames = r.callStacks[e.stack].frames;
        e.name = frames.empty() ? 0 : r.stackFrames[frames.front()].function;
        m_b.add(e);
    }
    m_samples.clear();
}

}  // namespace sl::import
