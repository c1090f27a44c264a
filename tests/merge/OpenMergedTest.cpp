// openMergedReports on real files: a folder expands to its reports, a file that cannot be
// opened is named and the others still open.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model/gen/SyntheticGenerator.h"
#include "model/merge/OpenMerged.h"

namespace sl {
namespace {

namespace fs = std::filesystem;

fs::path makeFolder(const std::string& name) {
    fs::path dir =
        fs::temp_directory_path() / ("sl-merge-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (int i = 0; i < 2; ++i) {
        GeneratorOptions o;
        o.events = 5'000;
        o.seed = static_cast<uint64_t>(i + 1);
        auto r = generateReportFile(o, (dir / ("rank" + std::to_string(i) + ".rep")).string());
        EXPECT_TRUE(r) << r.error();
    }
    return dir;
}

TEST(OpenMerged, FolderOpensEveryReport) {
    const fs::path dir = makeFolder("folder");
    std::ofstream(dir / "notes.txt") << "not a report";  // not a .rep: not taken
    auto r = openMergedReports({{dir.string()}, {}}, {});
    ASSERT_TRUE(r) << r.error();
    EXPECT_TRUE(r->skipped.empty());
    ASSERT_EQ(r->merged.parts.size(), 2u);
    EXPECT_EQ(r->merged.parts[1].rank, 1);
    EXPECT_EQ(r->merged.parts[1].rankSource, "file name");
    fs::remove_all(dir);
}

TEST(OpenMerged, BadFileIsNamedAndTheOthersOpen) {
    const fs::path dir = makeFolder("bad");
    const fs::path bad = dir / "rank5.rep";
    std::ofstream(bad) << "garbage, not SQLite";
    const std::string missing = (dir / "rank9.rep").string() + ".gone";
    MergeRequest req;
    req.paths = {(dir / "rank0.rep").string(), bad.string(), (dir / "rank1.rep").string(), missing};
    req.offsetsNs[(dir / "rank1.rep").string()] = 5'000;
    auto r = openMergedReports(req, {});
    ASSERT_TRUE(r) << r.error();
    ASSERT_EQ(r->skipped.size(), 2u);
    EXPECT_EQ(r->skipped[0].rfind(bad.string(), 0), 0u) << r->skipped[0];
    EXPECT_EQ(r->skipped[1].rfind(missing, 0), 0u) << r->skipped[1];
    ASSERT_EQ(r->merged.parts.size(), 2u);
    EXPECT_EQ(r->merged.parts[1].offsetNs, 5'000);
    fs::remove_all(dir);
}

TEST(OpenMerged, NothingOpensIsAnError) {
    auto r = openMergedReports({{"/nonexistent/a.rep"}, {}}, {});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().find("/nonexistent/a.rep"), std::string::npos) << r.error();
    auto empty =
        openMergedReports({{fs::temp_directory_path().string() + "/sl-merge-no-such-dir"}, {}}, {});
    EXPECT_FALSE(empty);
}

TEST(OpenMerged, CancelStops) {
    const fs::path dir = makeFolder("cancel");
    auto r = openMergedReports({{dir.string()}, {}}, [](double) { return false; });
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error(), "cancelled");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace sl
