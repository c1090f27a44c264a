// Golden tests: every stats report on every fixture report gives a committed expected CSV
// (tests/data/analysis/golden/<fixture>/<report>.csv; a skipped report stores its reason).
// Regenerate after an intended change with SIGHTLINE_UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "model/analysis/StatsReports.h"
#include "model/analysis/TableFormatter.h"
#include "model/gen/SyntheticGenerator.h"
#include "tests/analysis/GoldenFixtures.h"

namespace sl::analysis {
namespace {

namespace fs = std::filesystem;

std::string render(const Report& r, const std::string& report) {
    auto t = runReport(r, report, {});
    if (!t) return "ERROR: " + t.error() + "\n";
    if (!t->skipped.empty()) return "SKIPPED: " + t->skipped + "\n";
    std::ostringstream out;
    writeTable(out, *t, {TableFormat::Csv, "ns"});
    return out.str();
}

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Case {
    std::string fixture, report;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.fixture << "/" << c.report; }

std::vector<Case> allCases() {
    std::vector<Case> out;
    for (const auto& f : test::goldenFixtureNames())
        for (const auto& r : allReports()) out.push_back({f, std::string(r.name)});
    return out;
}

class Golden : public ::testing::TestWithParam<Case> {};

TEST_P(Golden, MatchesCommittedCsv) {
    const Case& c = GetParam();
    std::shared_ptr<const Report> report = test::goldenFixture(c.fixture);
    ASSERT_TRUE(report) << "fixture " << c.fixture << " unavailable";
    const std::string got = render(*report, c.report);
    const fs::path path = fs::path(SIGHTLINE_TEST_DATA) / "analysis" / "golden" / c.fixture / (c.report + ".csv");
    if (std::getenv("SIGHTLINE_UPDATE_GOLDEN")) {
        fs::create_directories(path.parent_path());
        std::ofstream(path, std::ios::binary) << got;
    }
    ASSERT_TRUE(fs::exists(path)) << path << " is missing (run with SIGHTLINE_UPDATE_GOLDEN=1)";
    EXPECT_EQ(got, readFile(path)) << "report " << c.report << " on " << c.fixture;
}

INSTANTIATE_TEST_SUITE_P(Reports, Golden, ::testing::ValuesIn(allCases()), [](const auto& param) {
    return param.param.fixture + "_" + param.param.report;
});

}  // namespace
}  // namespace sl::analysis
