#include "model/analysis/DurationScan.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <map>
#include <numeric>
#include <set>

#include "model/analysis/SelectionParallel.h"
#include "model/core/HugePages.h"

namespace sl::analysis {

namespace {

constexpr size_t kFirstBlock = 4096;        // values; a group's blocks double up to kLastBlock
constexpr size_t kLastBlock = size_t{1} << 20;

// The values of one name id in one part: blocks that double in size (small groups stay small,
// big ones get huge pages), never copied.
struct Chain {
    std::vector<std::unique_ptr<int64_t[]>> blocks;
    std::vector<size_t> blockSizes;
    int64_t* cursor = nullptr;
    size_t left = 0;
    size_t count = 0;

    ValueExtent extent;  // counted as the values come: summarizing reads them once less

    void push(int64_t v) {
        if (left == 0) grow();
        *cursor++ = v;
        --left;
        ++count;
        extent.add(v);
    }
    void grow() {
        const size_t n = blocks.empty() ? kFirstBlock : std::min(kLastBlock, blockSizes.back() * 2);
        blocks.emplace_back(new int64_t[n]);  // not zeroed: each value is written before it is read
        blockSizes.push_back(n);
        adviseHugePages(blocks.back().get(), n * sizeof(int64_t));
        cursor = blocks.back().get();
        left = n;
    }
    void appendRuns(std::vector<ValueRun>& out) const {
        size_t rest = count;
        for (size_t b = 0; b < blocks.size() && rest > 0; ++b) {
            const size_t n = std::min(rest, blockSizes[b]);
            out.push_back({blocks[b].get(), n});
            rest -= n;
        }
    }
};

}  // namespace

struct ScannedDurations::Part {
    std::vector<size_t> tracks;      // indexes into the file's tracks, in file order
    std::vector<uint32_t> slot;      // by name id: index into chains, UINT32_MAX if none
    std::vector<uint32_t> keys;      // name ids in order of first appearance
    std::vector<Chain> chains;
};

ScannedDurations::ScannedDurations() = default;
ScannedDurations::ScannedDurations(ScannedDurations&&) noexcept = default;
ScannedDurations& ScannedDurations::operator=(ScannedDurations&&) noexcept = default;
ScannedDurations::~ScannedDurations() = default;

namespace {

// One scan over `tracks` (indexes into the file's tracks, in file order). An event's key is
// base[k] (its track's) plus its name id, or with `rangeTypeKeys` plus 2 * its name id + 1 for a
// start/end NVTX range (+ 0 for push/pop): the groups nvtx_sum keeps apart.
Status scanTracks(const RepFile& file, const std::vector<size_t>& tracks, const std::vector<uint32_t>& base, bool rangeTypeKeys,
                  const StatsOptions& o, unsigned threads, std::vector<std::unique_ptr<ScannedDurations::Part>>& partsOut,
                  std::vector<uint32_t>& keysOut);

}  // namespace

Result<ScannedDurations> scanDurationsByName(const RepFile& file, EventKind kind, const StatsOptions& o, unsigned threads) {
    if (!schemaOf(kind).hasEnd || !schemaOf(kind).hasName)
        return makeError("durations by name need a kind with an end and a name");
    ScannedDurations out;
    const auto& infos = file.trackInfos();
    std::vector<size_t> tracks;
    for (size_t i = 0; i < infos.size(); ++i)
        if (infos[i].key.kind == kind && infos[i].eventCount > 0) {
            tracks.push_back(i);
            out.events += infos[i].eventCount;
        }
    const std::vector<uint32_t> base(tracks.size(), 0);
    if (Status s = scanTracks(file, tracks, base, false, o, threads, out.m_parts, out.m_keys); !s) return makeError(s.error());
    return out;
}

Result<ScannedNvtx> scanNvtxRanges(const RepFile& file, const StatsOptions& o, unsigned threads) {
    const Report& meta = file.metadata();
    const uint64_t stride = 2 * uint64_t{std::max<size_t>(meta.strings.size(), 1)};
    ScannedNvtx out;
    out.stride = static_cast<uint32_t>(std::min<uint64_t>(stride, UINT32_MAX));
    const auto& infos = file.trackInfos();
    std::vector<size_t> tracks;
    std::vector<uint32_t> base;
    std::map<std::string, uint32_t> groupOfPrefix;
    for (size_t i = 0; i < infos.size(); ++i) {
        const TrackKey& k = infos[i].key;
        if (k.kind != EventKind::NvtxRange || infos[i].eventCount == 0) continue;
        // nvtx_sum's label: "domain:name" in a named domain, the name alone in the default one.
        std::string prefix;
        if (k.domain != 0) {
            const NvtxDomain* d = meta.findDomain(k.pid, k.domain);
            prefix = (d ? d->name : std::string()) + ":";
        }
        auto [it, added] = groupOfPrefix.try_emplace(prefix, static_cast<uint32_t>(out.prefixes.size()));
        if (added) out.prefixes.push_back(prefix);
        if (uint64_t{it->second + 1} * stride > UINT32_MAX)
            return makeError("too many NVTX domains and names to scan");
        tracks.push_back(i);
        base.push_back(static_cast<uint32_t>(it->second * stride));
        out.durations.events += infos[i].eventCount;
    }
    if (Status s = scanTracks(file, tracks, base, true, o, threads, out.durations.m_parts, out.durations.m_keys); !s)
        return makeError(s.error());
    return out;
}

bool nvtxScanFits(const Report& metadata) {
    std::set<std::string> prefixes;
    for (const NvtxDomain& d : metadata.nvtxDomains) prefixes.insert(d.name);
    // Each worker holds one slot per (domain label, name id, style); beyond this many it is
    // cheaper to load the ranges (model/analysis/NvtxReports.cpp groups them as it goes).
    constexpr uint64_t kMaxSlots = uint64_t{1} << 24;
    return (prefixes.size() + 1) * 2 * uint64_t{std::max<size_t>(metadata.strings.size(), 1)} <= kMaxSlots;
}

namespace {

Status scanTracks(const RepFile& file, const std::vector<size_t>& tracks, const std::vector<uint32_t>& base, bool rangeTypeKeys,
                  const StatsOptions& o, unsigned threads, std::vector<std::unique_ptr<ScannedDurations::Part>>& partsOut,
                  std::vector<uint32_t>& keysOut) {
    if (threads == 0) threads = ThreadPool::usableCpus();
    const auto& infos = file.trackInfos();
    uint64_t events = 0;
    for (size_t i : tracks) events += infos[i].eventCount;
    // Step 1: contiguous runs of tracks of about equal event counts, one per worker: a part's
    // values then follow those of the parts before it, as one pass over the tracks puts them.
    const size_t nparts = std::max<size_t>(1, std::min<size_t>(threads, tracks.size()));
    std::vector<std::unique_ptr<ScannedDurations::Part>> parts;
    std::vector<std::vector<size_t>> partTracks(nparts);  // positions in `tracks`
    for (size_t p = 0; p < nparts; ++p) parts.push_back(std::make_unique<ScannedDurations::Part>());
    uint64_t seen = 0;
    for (size_t k = 0; k < tracks.size(); ++k) {
        const uint64_t n = infos[tracks[k]].eventCount;
        const size_t p = std::min<size_t>(nparts - 1, static_cast<size_t>((seen + n / 2) * nparts / std::max<uint64_t>(events, 1)));
        parts[p]->tracks.push_back(tracks[k]);
        partTracks[p].push_back(k);
        seen += n;
    }
    // Step 2: each worker scans its tracks on its own connection to the file.
    const size_t nstrings = file.metadata().strings.size();
    const uint64_t columns = rangeTypeKeys ? uint64_t{1} << cols::Nvtx::RangeType : 0;
    std::mutex errorMutex;
    std::string error;
    std::atomic<bool> stop{false};
    parallelFor(nparts, threads, [&](size_t p) {
        ScannedDurations::Part& part = *parts[p];
        part.slot.assign(rangeTypeKeys ? 2 * nstrings : nstrings, UINT32_MAX);
        auto connection = file.openAnother();
        Status s = connection ? Status{} : Status(makeError(connection.error()));
        for (size_t k = 0; s && !stop && k < part.tracks.size(); ++k) {
            const uint32_t trackBase = base[partTracks[p][k]];
            s = (*connection)->scanTrack(part.tracks[k], columns, [&](const Track& c) -> Status {
                const size_t n = c.size();
                const bool bounded = o.bounded();
                auto fold = [&](auto keyOf) {
                    for (size_t i = 0; i < n; ++i) {
                        if (bounded && !o.inWindow(c.start[i], c.end[i])) continue;
                        const uint32_t key = trackBase + keyOf(i);
                        if (key >= part.slot.size()) part.slot.resize(size_t{key} + 1, UINT32_MAX);
                        uint32_t& slot = part.slot[key];
                        if (slot == UINT32_MAX) {
                            slot = static_cast<uint32_t>(part.chains.size());
                            part.chains.emplace_back();
                            part.keys.push_back(key);
                        }
                        part.chains[slot].push(c.end[i] - c.start[i]);
                    }
                };
                // Name ids are checked against the string table by the scan.
                if (rangeTypeKeys) {
                    const auto rangeType = c.col<uint8_t>(cols::Nvtx::RangeType);
                    constexpr auto kStartEnd = static_cast<uint8_t>(RangeType::StartEnd);
                    fold([&](size_t i) { return 2 * c.name[i] + (rangeType[i] == kStartEnd ? 1u : 0u); });
                } else {
                    fold([&](size_t i) { return c.name[i]; });
                }
                if (o.cancelled()) return Status(makeError(std::string(kCancelled)));
                return stop ? Status(makeError("stopped")) : Status{};
            });
        }
        if (!s) {
            std::lock_guard lock(errorMutex);
            if (error.empty() || error == "stopped") error = s.error();
            stop = true;
        }
    });
    if (!error.empty()) return Status(makeError(error));
    // Step 3: keys in order of first appearance over the parts in order.
    std::vector<bool> listed;
    for (const auto& part : parts)
        for (uint32_t key : part->keys)
            if (key >= listed.size() || !listed[key]) {
                if (key >= listed.size()) listed.resize(size_t{key} + 1, false);
                listed[key] = true;
                keysOut.push_back(key);
            }
    partsOut = std::move(parts);
    return Status{};
}

}  // namespace

std::vector<std::pair<uint32_t, DurationStats>> ScannedDurations::summarizeGroups(const std::vector<uint32_t>& groupOfKey,
                                                                                  unsigned threads) const {
    // Groups in order of first appearance, each with its keys' indexes in that order.
    std::vector<uint32_t> groups;
    std::vector<std::vector<size_t>> members;
    {
        std::vector<std::pair<uint32_t, uint32_t>> index;  // (group, position), looked up by binary search
        for (size_t i = 0; i < m_keys.size(); ++i) {
            const uint32_t g = groupOfKey[i];
            auto it = std::lower_bound(index.begin(), index.end(), std::pair<uint32_t, uint32_t>{g, 0});
            if (it == index.end() || it->first != g) {
                it = index.insert(it, {g, static_cast<uint32_t>(groups.size())});
                groups.push_back(g);
                members.emplace_back();
            }
            members[it->second].push_back(i);
        }
    }
    std::vector<size_t> sizes(groups.size(), 0);
    for (size_t g = 0; g < groups.size(); ++g)
        for (size_t i : members[g])
            for (const auto& part : m_parts) {
                const uint32_t key = m_keys[i];
                if (key < part->slot.size() && part->slot[key] != UINT32_MAX) sizes[g] += part->chains[part->slot[key]].count;
            }
    std::vector<size_t> bySize(groups.size());
    std::iota(bySize.begin(), bySize.end(), size_t{0});
    std::sort(bySize.begin(), bySize.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
    std::vector<std::pair<uint32_t, DurationStats>> out(groups.size());
    // Each group is summarized where its blocks lie, in order (no copy into one buffer).
    parallelFor(bySize.size(), threads, [&](size_t k) {
        const size_t g = bySize[k];
        std::vector<ValueRun> runs;
        ValueExtent extent;
        for (size_t i : members[g])
            for (const auto& part : m_parts) {
                const uint32_t key = m_keys[i];
                if (key < part->slot.size() && part->slot[key] != UINT32_MAX) {
                    const Chain& chain = part->chains[part->slot[key]];
                    chain.appendRuns(runs);
                    extent.add(chain.extent);
                }
            }
        out[g] = {groups[g], summarizeRuns(runs, &extent)};
    });
    return out;
}

Result<std::shared_ptr<const ScannedKinds>> scanKinds(const RepFile& file, KindSet kinds, const StatsOptions& window,
                                                      unsigned threads) {
    auto out = std::make_shared<ScannedKinds>();
    for (EventKind k : kAllEventKinds) {
        if (!kinds.has(k)) continue;
        if (k == EventKind::NvtxRange) {
            auto n = scanNvtxRanges(file, window, threads);
            if (!n) return std::move(n).takeError();
            out->nvtx = std::make_shared<ScannedNvtx>(std::move(*n));
            continue;
        }
        auto d = scanDurationsByName(file, k, window, threads);
        if (!d) return std::move(d).takeError();
        out->kinds.emplace_back(k, std::move(*d));
    }
    return std::shared_ptr<const ScannedKinds>(std::move(out));
}

}  // namespace sl::analysis
