#include "viewer/compare/CompareAlignment.h"

#include <algorithm>
#include <functional>
#include <set>

#include "model/analysis/StatsCommon.h"

namespace sl::viewer {
namespace {

using analysis::DiffCategory;

std::set<std::string> nvtxNames(const Report& r) {
    std::set<std::string> out;
    for (const Track& t : r.tracks)
        if (t.key.kind == EventKind::NvtxRange)
            for (size_t i = 0; i < t.size(); ++i)
                out.insert(analysis::nvtxRangeName(r, t, i, false));
    return out;
}

// Calls f(track, index) for every event the diff counts under (category, name).
void forEachInstance(const Report& r, DiffCategory c, const std::string& name,
                     analysis::DiffMatch match,
                     const std::function<void(const Track&, size_t)>& f) {
    for (const Track& t : r.tracks) {
        const EventKind k = t.key.kind;
        switch (c) {
            case DiffCategory::Kernels:
                if (k != EventKind::Kernel) break;
                {
                    const auto naming = match == analysis::DiffMatch::Base
                                            ? analysis::KernelNaming::Base
                                            : analysis::KernelNaming::Demangled;
                    for (size_t i = 0; i < t.size(); ++i)
                        if (r.str(analysis::kernelNameId(r, t, i, naming)) == name) f(t, i);
                }
                break;
            case DiffCategory::Api:
                if (k != EventKind::CudaApi) break;
                for (size_t i = 0; i < t.size(); ++i)
                    if (analysis::apiDisplayName(r.str(t.name[i])) == name) f(t, i);
                break;
            case DiffCategory::Nvtx:
                if (k != EventKind::NvtxRange) break;
                for (size_t i = 0; i < t.size(); ++i)
                    if (analysis::nvtxRangeName(r, t, i, false) == name) f(t, i);
                break;
            case DiffCategory::MemOps:
                if (k == EventKind::Memcpy) {
                    const auto& kinds = t.col<uint8_t>(cols::Memcpy::CopyKind);
                    for (size_t i = 0; i < t.size(); ++i)
                        if (analysis::memcpyOperationName(static_cast<CopyKind>(kinds[i])) == name)
                            f(t, i);
                } else if (k == EventKind::Memset && name == "[CUDA memset]") {
                    for (size_t i = 0; i < t.size(); ++i) f(t, i);
                }
                break;
        }
    }
}

}  // namespace

std::vector<std::string> commonNvtxNames(const Report& baseline, const Report& comparison) {
    const std::set<std::string> a = nvtxNames(baseline), b = nvtxNames(comparison);
    std::vector<std::string> out;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

Result<int64_t> alignmentOffset(const Report& r, const std::string& nvtxName, int n) {
    if (nvtxName.empty()) return r.timeOrigin();
    if (n < 1) return makeError("NVTX instance number must be 1 or more, not " + std::to_string(n));
    std::vector<int64_t> starts;
    forEachInstance(r, DiffCategory::Nvtx, nvtxName, analysis::DiffMatch::Demangled,
                    [&](const Track& t, size_t i) { starts.push_back(t.start[i]); });
    if (starts.size() < static_cast<size_t>(n))
        return makeError("NVTX range '" + nvtxName + "' has " + std::to_string(starts.size()) +
                         " instance(s) in this report, no instance " + std::to_string(n));
    std::nth_element(starts.begin(), starts.begin() + (n - 1), starts.end());
    return starts[static_cast<size_t>(n - 1)];
}

InstanceSpan itemInstances(const Report& r, DiffCategory category, const std::string& name,
                           analysis::DiffMatch match) {
    InstanceSpan s;
    forEachInstance(r, category, name, match, [&](const Track& t, size_t i) {
        if (s.count == 0 || t.start[i] < s.start) s.start = t.start[i];
        if (s.count == 0 || t.end[i] > s.end) s.end = t.end[i];
        ++s.count;
    });
    return s;
}

std::vector<analysis::EventRef> itemInstanceRefs(const Report& r, DiffCategory category,
                                                 const std::string& name, size_t limit,
                                                 analysis::DiffMatch match) {
    std::vector<analysis::EventRef> out;
    forEachInstance(r, category, name, match, [&](const Track& t, size_t i) {
        if (out.size() < limit)
            out.push_back({static_cast<uint32_t>(&t - r.tracks.data()), static_cast<uint32_t>(i)});
    });
    return out;
}

}  // namespace sl::viewer
