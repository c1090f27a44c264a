// nvtx_sum groups by interned ids and builds each "domain:name" label once; its table must be
// the one of grouping every range by its label string in one pass (values in the same order,
// so the same floating-point sums): the same name in two processes' domains of one name, the
// same text under two string ids, both styles, several threads, a window.
#include <gtest/gtest.h>

#include <map>

#include "model/analysis/StatsReports.h"
#include "model/core/ReportBuilder.h"

namespace sl::analysis {
namespace {

std::shared_ptr<Report> makeReport() {
    ReportBuilder b;
    Report& r = b.report();
    r.session.startMonotonicNs = 0;
    for (int64_t pid : {7, 9}) {
        b.ensureProcess(pid).name = "app";
        r.nvtxDomains.push_back({pid, 1, "io"});  // one domain name in two processes
        r.nvtxDomains.push_back({pid, 2, pid == 7 ? "net" : "disk"});
    }
    const uint32_t names[] = {b.intern("read"), b.intern("step"), b.intern("load"), b.intern("step")};
    uint64_t x = 5;
    auto next = [&] {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<int64_t>(x >> 42);
    };
    for (int64_t pid : {7, 9})
        for (int64_t tid = pid * 10; tid < pid * 10 + 3; ++tid) {
            int64_t t = 100 + tid;
            for (int i = 0; i < 3000; ++i) {
                NvtxRangeEvent e;
                e.pid = pid; e.tid = tid;
                e.domain = static_cast<uint32_t>(next() % 3);
                e.message = names[next() % 4];
                e.rangeType = next() % 3 == 0 ? RangeType::StartEnd : RangeType::PushPop;
                e.start = t; e.end = t + 1 + next();
                b.add(e);
                t = e.end + 7;
            }
        }
    return b.finish();
}

// The groups by label string, values in one pass over the tracks.
Table byLabels(const Report& r, const StatsOptions& o) {
    std::map<std::pair<std::string, std::string>, std::vector<int64_t>> groups;
    for (const auto& tr : r.tracks)
        if (tr.key.kind == EventKind::NvtxRange)
            for (size_t i = 0; i < tr.size(); ++i)
                if (o.inWindow(tr.start[i], tr.end[i]))
                    groups[{std::string(nvtxStyle(tr, i)), nvtxRangeName(r, tr, i, false)}].push_back(tr.end[i] - tr.start[i]);
    std::vector<SummaryGroup> g;
    for (auto& [key, v] : groups) g.push_back({{key.first, key.second}, std::move(v)});
    Table t("nvtx_sum", "NVTX Range Summary");
    fillSummary(t, {"Instances", {"Style", "Range"}}, g);
    return t;
}

TEST(NvtxSum, SameTableAsGroupingByLabelStrings) {
    auto r = makeReport();
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (const auto& t : r->tracks)
        if (t.key.kind == EventKind::NvtxRange && !t.empty()) t0 = std::min(t0, t.tMin), t1 = std::max(t1, t.tMax);
    for (bool windowed : {false, true}) {
        StatsOptions o;
        if (windowed) o.start = t0 + (t1 - t0) / 3, o.end = t0 + (t1 - t0) / 2;
        const Table expected = byLabels(*r, o);
        auto got = runReport(*r, "nvtx_sum", o);
        ASSERT_TRUE(got.ok()) << got.error();
        ASSERT_GE(expected.rowCount(), 10u);
        ASSERT_EQ(got->columns.size(), expected.columns.size());
        ASSERT_EQ(got->rowCount(), expected.rowCount());
        for (size_t c = 0; c < expected.columns.size(); ++c) {
            EXPECT_EQ(got->columns[c].ints, expected.columns[c].ints) << expected.columns[c].name;
            EXPECT_EQ(got->columns[c].reals, expected.columns[c].reals) << expected.columns[c].name;  // bit for bit
            EXPECT_EQ(got->columns[c].texts, expected.columns[c].texts) << expected.columns[c].name;
        }
    }
}

}  // namespace
}  // namespace sl::analysis
