#include "model/analysis/rules/RuleSupport.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace sl::analysis::rules {

bool overlaps(const StatsOptions& w, int64_t start, int64_t end) {
    return end >= w.start && start <= w.end;
}

namespace {

bool earlier(const GpuOp& a, const GpuOp& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
}

std::vector<DeviceOps> collectGpuOps(const Report& r, const StatsOptions& window) {
    // Each track is a run in start order (a track of several lanes is sorted first); a
    // device's runs (its streams, copies, memsets) are merged, not sorted again.
    std::map<std::pair<int64_t, int32_t>, std::vector<GpuOp>> byDevice;
    std::map<std::pair<int64_t, int32_t>, std::vector<size_t>> runs;  // where each run begins
    for (uint32_t ti = 0; ti < r.tracks.size(); ++ti) {
        const Track& t = r.tracks[ti];
        const EventKind k = t.key.kind;
        if (k != EventKind::Kernel && k != EventKind::Memcpy && k != EventKind::Memset) continue;
        auto& ops = byDevice[{t.key.pid, t.key.device}];
        const size_t begin = ops.size();
        ops.reserve(ops.size() + t.size());
        for (size_t i = 0; i < t.size(); ++i) {
            const int64_t s = t.start[i], e = t.endAt(i);
            if (s <= 0 || !overlaps(window, s, e)) continue;
            ops.push_back({s, e, EventRef{ti, static_cast<uint32_t>(i)}});
        }
        const auto first = ops.begin() + static_cast<ptrdiff_t>(begin);
        if (!std::is_sorted(first, ops.end(), earlier)) std::sort(first, ops.end(), earlier);
        runs[{t.key.pid, t.key.device}].push_back(begin);
    }
    std::vector<DeviceOps> out;
    for (auto& [key, ops] : byDevice) {
        if (ops.empty()) continue;
        std::vector<size_t> bounds = runs[key];
        bounds.push_back(ops.size());
        // Pairwise merges of neighbouring runs until one is left.
        while (bounds.size() > 2) {
            std::vector<size_t> next;
            for (size_t i = 0; i + 1 < bounds.size(); i += 2) {
                next.push_back(bounds[i]);
                if (i + 2 < bounds.size())
                    std::inplace_merge(ops.begin() + static_cast<ptrdiff_t>(bounds[i]),
                                       ops.begin() + static_cast<ptrdiff_t>(bounds[i + 1]),
                                       ops.begin() + static_cast<ptrdiff_t>(bounds[i + 2]), earlier);
            }
            next.push_back(ops.size());
            bounds = std::move(next);
        }
        out.push_back({key.first, key.second, std::move(ops)});
    }
    return out;
}

}  // namespace

const std::vector<DeviceOps>& gpuOpsByDevice(const Report& r, const StatsOptions& window) {
    const std::string key = "rules.gpu_ops:" + std::to_string(window.start) + ":" + std::to_string(window.end);
    return window.cacheFor(r).extra<std::vector<DeviceOps>>(key, [&] { return collectGpuOps(r, window); });
}

std::string_view launcherName(const Report& r, const CorrelationIndex& ci, EventRef gpuOp) {
    const EventRef api = ci.launcherOf(gpuOp);
    if (!api.valid()) return {};
    return r.str(r.tracks[api.track].nameAt(api.index));
}

bool containsNoCase(std::string_view text, std::string_view what) {
    if (what.empty()) return true;
    auto it = std::search(text.begin(), text.end(), what.begin(), what.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    });
    return it != text.end();
}

Finding newFinding(std::string_view rule, std::string_view title) {
    Finding f;
    f.rule = rule;
    f.title = title;
    f.table = Table(std::string(rule), std::string(title));
    return f;
}

void WorstOf::add(int64_t weight, int64_t start, FindingExample example) {
    // The heap's front is the weakest kept entry.
    auto weaker = [](const Entry& a, const Entry& b) { return better(a.weight, a.start, b); };
    if (m_heap.size() == kMaxExamples) {
        std::pop_heap(m_heap.begin(), m_heap.end(), weaker);
        m_heap.pop_back();
    }
    m_heap.push_back({weight, start, std::move(example)});
    std::push_heap(m_heap.begin(), m_heap.end(), weaker);
}

void WorstOf::into(Finding& f) {
    std::sort(m_heap.begin(), m_heap.end(), [](const Entry& a, const Entry& b) { return better(a.weight, a.start, b); });
    f.examples.clear();
    for (auto& e : m_heap) f.examples.push_back(std::move(e.example));
    m_heap.clear();
}

size_t rowLimit(const RuleContext& c, size_t rows) {
    const int64_t limit = c.rows();
    return limit < 0 ? rows : std::min(rows, static_cast<size_t>(limit));
}

uint32_t kernelNameIdOf(const Report& r, const Track& t, size_t i) {
    return kernelNameId(r, t, i, KernelNaming::Demangled);
}

std::string kernelName(const Report& r, const Track& t, size_t i) {
    return std::string(r.str(kernelNameIdOf(r, t, i)));
}

KernelCategory CategoryOfName::operator()(uint32_t nameId) {
    if (nameId >= m_known.size()) return kernelCategory(m_r.str(nameId));
    if (m_known[nameId] == 0xFF) m_known[nameId] = static_cast<uint8_t>(kernelCategory(m_r.str(nameId)));
    return static_cast<KernelCategory>(m_known[nameId]);
}

double percent(int64_t part, int64_t whole) {
    return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

Intervals merged(Intervals v) {
    if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
    Intervals out;
    for (const auto& [s, e] : v) {
        if (!out.empty() && s <= out.back().second)
            out.back().second = std::max(out.back().second, e);
        else
            out.push_back({s, e});
    }
    return out;
}

int64_t totalLength(const Intervals& disjoint) {
    int64_t n = 0;
    for (const auto& [s, e] : disjoint) n += e - s;
    return n;
}

int64_t overlapLength(const Intervals& a, const Intervals& b) {
    int64_t n = 0;
    for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
        const int64_t s = std::max(a[i].first, b[j].first), e = std::min(a[i].second, b[j].second);
        if (e > s) n += e - s;
        (a[i].second < b[j].second ? i : j) += 1;
    }
    return n;
}

}  // namespace sl::analysis::rules
