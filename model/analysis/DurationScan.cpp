#include "model/analysis/DurationScan.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>

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

Result<ScannedDurations> scanDurationsByName(const RepFile& file, EventKind kind, const StatsOptions& o, unsigned threads) {
    if (!schemaOf(kind).hasEnd || !schemaOf(kind).hasName)
        return makeError("durations by name need a kind with an end and a name");
    if (threads == 0) threads = ThreadPool::usableCpus();
    ScannedDurations out;
    const auto& infos = file.trackInfos();
    std::vector<size_t> tracks;
    for (size_t i = 0; i < infos.size(); ++i)
        if (infos[i].key.kind == kind && infos[i].eventCount > 0) {
            tracks.push_back(i);
            out.events += infos[i].eventCount;
        }
    // Step 1: contiguous runs of tracks of about equal event counts, one per worker: a part's
    // values then follow those of the parts before it, as one pass over the tracks puts them.
    const size_t nparts = std::max<size_t>(1, std::min<size_t>(threads, tracks.size()));
    for (size_t p = 0; p < nparts; ++p) out.m_parts.push_back(std::make_unique<ScannedDurations::Part>());
    uint64_t seen = 0;
    for (size_t i : tracks) {
        const uint64_t n = infos[i].eventCount;
        const size_t p = std::min<size_t>(nparts - 1, static_cast<size_t>((seen + n / 2) * nparts / std::max<uint64_t>(out.events, 1)));
        out.m_parts[p]->tracks.push_back(i);
        seen += n;
    }
    // Step 2: each worker scans its tracks on its own connection to the file.
    const size_t nstrings = file.metadata().strings.size();
    std::mutex errorMutex;
    std::string error;
    std::atomic<bool> stop{false};
    parallelFor(nparts, threads, [&](size_t p) {
        ScannedDurations::Part& part = *out.m_parts[p];
        part.slot.assign(nstrings, UINT32_MAX);
        auto connection = file.openAnother();
        Status s = connection ? Status{} : Status(makeError(connection.error()));
        for (size_t k = 0; s && !stop && k < part.tracks.size(); ++k)
            s = (*connection)->scanTrack(part.tracks[k], 0, [&](const Track& c) -> Status {
                const size_t n = c.size();
                const bool bounded = o.bounded();
                for (size_t i = 0; i < n; ++i) {
                    if (bounded && !o.inWindow(c.start[i], c.end[i])) continue;
                    const uint32_t name = c.name[i];  // checked against the string table by the scan
                    if (name >= part.slot.size()) part.slot.resize(size_t{name} + 1, UINT32_MAX);
                    uint32_t& slot = part.slot[name];
                    if (slot == UINT32_MAX) {
                        slot = static_cast<uint32_t>(part.chains.size());
                        part.chains.emplace_back();
                        part.keys.push_back(name);
                    }
                    part.chains[slot].push(c.end[i] - c.start[i]);
                }
                if (o.cancelled()) return Status(makeError(std::string(kCancelled)));
                return stop ? Status(makeError("stopped")) : Status{};
            });
        if (!s) {
            std::lock_guard lock(errorMutex);
            if (error.empty() || error == "stopped") error = s.error();
            stop = true;
        }
    });
    if (!error.empty()) return makeError(error);
    // Step 3: name ids in order of first appearance over the parts in order.
    std::vector<bool> listed(nstrings, false);
    for (const auto& part : out.m_parts)
        for (uint32_t key : part->keys)
            if (key >= listed.size() || !listed[key]) {
                if (key >= listed.size()) listed.resize(size_t{key} + 1, false);
                listed[key] = true;
                out.m_keys.push_back(key);
            }
    return out;
}

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
        auto d = scanDurationsByName(file, k, window, threads);
        if (!d) return std::move(d).takeError();
        out->kinds.emplace_back(k, std::move(*d));
    }
    return std::shared_ptr<const ScannedKinds>(std::move(out));
}

}  // namespace sl::analysis
