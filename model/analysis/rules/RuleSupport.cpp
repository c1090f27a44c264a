#include "model/analysis/rules/RuleSupport.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace sl::analysis::rules {

bool overlaps(const StatsOptions& w, int64_t start, int64_t end) {
    return end >= w.start && start <= w.end;
}

std::vector<DeviceOps> gpuOpsByDevice(const Report& r, const StatsOptions& window) {
    std::map<std::pair<int64_t, int32_t>, std::vector<GpuOp>> byDevice;
    for (uint32_t ti = 0; ti < r.tracks.size(); ++ti) {
        const Track& t = r.tracks[ti];
        const EventKind k = t.key.kind;
        if (k != EventKind::Kernel && k != EventKind::Memcpy && k != EventKind::Memset) continue;
        auto& ops = byDevice[{t.key.pid, t.key.device}];
        for (size_t i = 0; i < t.size(); ++i) {
            const int64_t s = t.start[i], e = t.endAt(i);
            if (s <= 0 || !overlaps(window, s, e)) continue;
            ops.push_back({s, e, EventRef{ti, static_cast<uint32_t>(i)}, k, t.key.context, t.key.stream});
        }
    }
    std::vector<DeviceOps> out;
    for (auto& [key, ops] : byDevice) {
        if (ops.empty()) continue;
        std::sort(ops.begin(), ops.end(), [](const GpuOp& a, const GpuOp& b) {
            return a.start != b.start ? a.start < b.start : a.end < b.end;
        });
        out.push_back({key.first, key.second, std::move(ops)});
    }
    return out;
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

void keepWorst(Finding& f, std::vector<Candidate> candidates) {
    const size_t n = std::min(candidates.size(), kMaxExamples);
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<ptrdiff_t>(n), candidates.end(),
                      [](const Candidate& a, const Candidate& b) {
                          return a.weight != b.weight ? a.weight > b.weight : a.example.start < b.example.start;
                      });
    f.examples.clear();
    for (size_t i = 0; i < n; ++i) f.examples.push_back(std::move(candidates[i].example));
}

size_t rowLimit(const RuleContext& c, size_t rows) {
    const int64_t limit = c.rows();
    return limit < 0 ? rows : std::min(rows, static_cast<size_t>(limit));
}

std::string kernelName(const Report& r, const Track& t, size_t i) {
    return std::string(r.str(kernelNameId(r, t, i, KernelNaming::Demangled)));
}

double percent(int64_t part, int64_t whole) {
    return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

Intervals merged(Intervals v) {
    std::sort(v.begin(), v.end());
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
