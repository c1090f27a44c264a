// mergeReports against its inputs: counts, ranks, names, ids kept apart and times moved by
// each report's wall-clock start plus the user's offset.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "model/analysis/CorrelationIndex.h"
#include "model/gen/SyntheticGenerator.h"
#include "model/merge/ReportMerge.h"

namespace sl {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

std::shared_ptr<Report> smallReport(uint64_t seed, int64_t utcDelta) {
    GeneratorOptions o;
    o.events = 20'000;
    o.seed = seed;
    auto r = generateReport(o);
    r->session.startUtcNs += utcDelta;
    return r;
}

// What a test remembers of an input before the merge consumes it.
struct Snapshot {
    uint64_t events = 0;
    size_t processes = 0, gpus = 0, tracks = 0;
    int64_t kernelStart = 0;
    std::string kernelName;
    std::string launchName;
    int64_t tMin = 0;
};

Snapshot snap(const Report& r) {
    Snapshot s;
    s.events = r.eventCount();
    s.processes = r.processes.size();
    s.gpus = r.gpus.size();
    s.tracks = r.tracks.size();
    s.tMin = r.tMin();
    const Track* k = r.tracksOfKind(EventKind::Kernel).at(0);
    s.kernelStart = k->start[0];
    s.kernelName = std::string(r.str(k->name[0]));
    s.launchName =
        std::string(r.str(r.kernelLaunches[k->col<uint32_t>(cols::Kernel::Launch)[0]].shortName));
    return s;
}

TEST(ReportMerge, RanksIdsNamesAndShiftedTimes) {
    // Rank 0 by its MPI rank, rank 1 by RANK in its environment, rank 2 by its file name; the
    // second started 1.5 s and the third 0.25 s after the first, and the third is moved 2 ms by
    // hand.
    std::vector<MergeInput> in(3);
    in[0] = {smallReport(1, 0), "/x/a.rep", 0};
    in[0].report->processes[0].mpiRank = 0;
    in[1] = {smallReport(2, 1'500'000'000), "/x/b.rep", 0};
    in[1].report->session.environment.push_back({"RANK", "1"});
    in[2] = {smallReport(3, 250'000'000), "/x/node7-rank2.rep", 2'000'000};
    std::vector<Snapshot> before;
    for (const auto& i : in) before.push_back(snap(*i.report));
    const int64_t expectShift[3] = {0, 1'500'000'000, 252'000'000};

    auto merged = mergeReports(std::move(in));
    ASSERT_TRUE(merged) << merged.error();
    const Report& m = *merged->report;
    ASSERT_EQ(merged->parts.size(), 3u);
    EXPECT_EQ(merged->parts[0].rankSource, "MPI rank");
    EXPECT_EQ(merged->parts[1].rankSource, "RANK");
    EXPECT_EQ(merged->parts[2].rankSource, "file name");
    EXPECT_EQ(m.session.source, "merged");
    uint64_t events = 0;
    size_t processes = 0, gpus = 0, tracks = 0;
    for (const auto& s : before) {
        events += s.events;
        processes += s.processes;
        gpus += s.gpus;
        tracks += s.tracks;
    }
    EXPECT_EQ(m.eventCount(), events);
    EXPECT_EQ(m.processes.size(), processes);
    EXPECT_EQ(m.gpus.size(), gpus);
    EXPECT_EQ(m.tracks.size(), tracks);

    // The generator gives every report pid 4242 and GPUs 0 and 1: they move apart.
    std::set<int64_t> pids;
    std::set<int32_t> devices;
    for (const Process& p : m.processes) pids.insert(p.pid);
    for (const Gpu& g : m.gpus) devices.insert(g.deviceId);
    EXPECT_EQ(pids.size(), processes);
    EXPECT_EQ(devices.size(), gpus);
    for (int i = 0; i < 3; ++i) {
        const MergedPart& part = merged->parts[static_cast<size_t>(i)];
        EXPECT_EQ(part.rank, i);
        EXPECT_EQ(part.alignNs + part.offsetNs, expectShift[i]);
        const int64_t pid = 4242 + part.pidDelta;
        const Process* p = m.findProcess(pid);
        ASSERT_NE(p, nullptr) << "rank " << i;
        EXPECT_EQ(p->mpiRank, i);
        EXPECT_EQ(p->mpiWorldSize, 3);
        // Its first kernel track: same name, same launch, start moved by the expected shift.
        const Track* k = nullptr;
        for (const Track& t : m.tracks)
            if (t.key.kind == EventKind::Kernel && t.key.pid == pid) {
                k = &t;
                break;
            }
        ASSERT_NE(k, nullptr);
        const Snapshot& s = before[static_cast<size_t>(i)];
        EXPECT_EQ(k->start[0], s.kernelStart + expectShift[i]);
        EXPECT_EQ(m.str(k->name[0]), s.kernelName);
        EXPECT_EQ(m.str(m.kernelLaunches[k->col<uint32_t>(cols::Kernel::Launch)[0]].shortName),
                  s.launchName);
        EXPECT_GE(k->key.device, part.deviceDelta);
        // The level of detail follows the shifted times: a window over the whole track sees all.
        EXPECT_EQ(k->overlapping(0, k->tMin, k->tMax + 1).size(), k->lane(0).size());
    }
    EXPECT_EQ(m.tMin(), before[0].tMin);
    EXPECT_EQ(m.tMax() >= before[0].tMin + expectShift[1], true);
}

TEST(ReportMerge, OneRankTwiceIsRefused) {
    std::vector<MergeInput> in(2);
    in[0] = {smallReport(1, 0), "/x/rank3.rep", 0};
    in[1] = {smallReport(2, 0), "/y/rank3.rep", 0};
    auto merged = mergeReports(std::move(in));
    ASSERT_FALSE(merged);
    EXPECT_NE(merged.error().find("rank 3 is both /x/rank3.rep and /y/rank3.rep"),
              std::string::npos)
        << merged.error();
}

TEST(ReportMerge, NoRankFallsBackToPlace) {
    std::vector<MergeInput> in(2);
    in[0] = {smallReport(1, 0), "/x/first.rep", 0};
    in[1] = {smallReport(2, 0), "/x/second.rep", -kSecond};
    auto merged = mergeReports(std::move(in));
    ASSERT_TRUE(merged) << merged.error();
    EXPECT_EQ(merged->parts[1].rank, 1);
    EXPECT_EQ(merged->parts[1].rankSource, "place");
    EXPECT_EQ(partTitle(merged->parts[1]), "Rank 1");
    // Moved a second earlier: the merged session starts with it.
    EXPECT_EQ(merged->report->session.startMonotonicNs,
              merged->report->processes[0].start - kSecond);
}

TEST(ReportMerge, StringsOfLaterInputsAreRemapped) {
    // A name only the second report has must come out as itself, not as the first's id.
    auto a = smallReport(1, 0), b = smallReport(2, 0);
    Track* t = nullptr;
    for (Track& tr : b->tracks)
        if (tr.schema().hasName && !tr.empty()) t = &tr;
    ASSERT_NE(t, nullptr);
    t->name[0] = b->strings.intern("only in the second report");
    const TrackKey key = t->key;
    std::vector<MergeInput> in(2);
    in[0] = {a, "/x/r0.rep", 0};
    in[1] = {b, "/x/r1.rep", 0};
    auto merged = mergeReports(std::move(in));
    ASSERT_TRUE(merged) << merged.error();
    TrackKey moved = key;
    moved.pid += merged->parts[1].pidDelta;
    if (moved.device >= 0) moved.device += merged->parts[1].deviceDelta;
    const Track* out = merged->report->findTrack(moved);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(merged->report->str(out->name[0]), "only in the second report");
}

TEST(ReportMerge, KernelsFindTheirLaunchWithinTheirRank) {
    // Every input has pid 4242 and the same correlation ids: after the merge each rank's kernel
    // must lead to its own rank's API call, never another's.
    std::vector<MergeInput> in(3);
    for (int i = 0; i < 3; ++i)
        in[static_cast<size_t>(i)] = {smallReport(static_cast<uint64_t>(i + 1), i * 1'000'000),
                                      "/x/rank" + std::to_string(i) + ".rep", 0};
    auto merged = mergeReports(std::move(in));
    ASSERT_TRUE(merged) << merged.error();
    const Report& m = *merged->report;
    const analysis::CorrelationIndex index(m);
    for (const MergedPart& part : merged->parts) {
        const int64_t pid = 4242 + part.pidDelta;
        const Track* kernels = nullptr;
        for (const Track& t : m.tracks)
            if (t.key.kind == EventKind::Kernel && t.key.pid == pid) kernels = &t;
        ASSERT_NE(kernels, nullptr);
        const uint32_t corr = kernels->col<uint32_t>(cols::Kernel::Correlation)[0];
        const analysis::EventRef api = index.apiCall(pid, corr);
        ASSERT_TRUE(api.valid()) << "rank " << part.rank;
        const Track& apiTrack = m.tracks[api.track];
        EXPECT_EQ(apiTrack.key.pid, pid);
        EXPECT_LE(apiTrack.start[api.index], kernels->start[0]);  // launched before it ran
    }
}

}  // namespace
}  // namespace sl
