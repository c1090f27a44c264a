// NVTX text end to end (issue #15): category names and wide-string messages with non-ASCII
// characters from tests/clients/nvtx_text reach the report and every export (SQLite in nsys's
// schema, CSV, Chrome JSON, the text summary) and the stats, through the real `sightline`.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "model/rep/Sqlite.h"
#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

// What `command` prints on stdout (empty when it cannot run).
std::string output(const std::string& command) {
    std::string out;
    if (FILE* p = popen(command.c_str(), "r")) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
        pclose(p);
    }
    return out;
}

std::string fileText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

class NvtxText : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = new CaptureDir();
        s_exit = profile(s_dir->file("t.rep"), {"-s", "none"}, {client("nvtx_text")});
    }
    static void TearDownTestSuite() { delete s_dir; }
    static std::string rep() { return s_dir->file("t.rep"); }
    static std::string cli() { return std::string(SIGHTLINE_CLI) + " "; }
    static CaptureDir* s_dir;
    static int s_exit;
};
CaptureDir* NvtxText::s_dir = nullptr;
int NvtxText::s_exit = -1;

const std::vector<std::string> kMessages = {"wide_é_push", "start_日本", "cat2_🚀", "mark_✓",
                                            "cat1_ascii", "net_range"};

TEST_F(NvtxText, WideMessagesAndCategoriesInTheReport) {
    ASSERT_EQ(s_exit, 0);
    auto r = load(rep());
    ASSERT_TRUE(r);
    for (const std::string m : {"wide_é_push", "start_日本", "cat2_🚀"})
        EXPECT_EQ(events(*r, EventKind::NvtxRange, m).size(), 1u) << m;
    EXPECT_EQ(events(*r, EventKind::NvtxMark, "mark_✓").size(), 1u);
    std::string longText;
    for (int i = 0; i < 1000; ++i) longText += "é";
    EXPECT_EQ(events(*r, EventKind::NvtxRange, longText).size(), 1u) << "a long wide message was cut";
    const int64_t pid = r->processes.at(0).pid;
    const uint32_t d = domainId(*r, pid, "domaine_ü");
    ASSERT_NE(d, UINT32_MAX) << "the wide domain name was not kept";
    EXPECT_EQ(r->categoryName(pid, 0, 1), "compute");
    EXPECT_EQ(r->categoryName(pid, 0, 2), "catégorie_wide");
    EXPECT_EQ(r->categoryName(pid, d, 3), "io");
    EXPECT_EQ(r->categoryName(pid, d, 4), "réseau");
}

// nsys's schema: category names are NVTX_EVENTS rows of eventType 33 (category, text, domainId).
TEST_F(NvtxText, SqliteExportHasCategoryRowsAndUtf8Text) {
    ASSERT_EQ(s_exit, 0);
    const std::string db = s_dir->file("t.sqlite");
    ASSERT_EQ(std::system((cli() + "export -q -f true -o " + db + " " + rep()).c_str()), 0);
    sqlite::Db d;
    ASSERT_TRUE(d.openReadOnly(db).ok());
    std::set<std::tuple<std::string, int64_t, bool>> categories;  // name, id, in the domain
    {
        sqlite::Stmt s(d, "SELECT text, category, domainId FROM NVTX_EVENTS WHERE eventType = 33");
        ASSERT_TRUE(s.valid()) << s.prepareError();
        while (s.step()) categories.emplace(std::string(s.text(0)), s.i64(1), s.i64(2) != 0);
    }
    EXPECT_EQ(categories, (std::set<std::tuple<std::string, int64_t, bool>>{
                              {"compute", 1, false},
                              {"catégorie_wide", 2, false},
                              {"io", 3, true},
                              {"réseau", 4, true}}));
    std::set<std::string> texts;
    sqlite::Stmt s(d, "SELECT text FROM NVTX_EVENTS WHERE eventType IN (34, 59, 60)");
    ASSERT_TRUE(s.valid()) << s.prepareError();
    while (s.step()) texts.emplace(s.text(0));
    for (const auto& m : kMessages) EXPECT_TRUE(texts.count(m)) << m;
}

TEST_F(NvtxText, CsvJsonTextAndStatsShowThem) {
    ASSERT_EQ(s_exit, 0);
    const std::string csv = s_dir->file("t_csv");
    ASSERT_EQ(std::system((cli() + "export -q -t csv -f true -o " + csv + " " + rep()).c_str()),
              0);
    const std::string nvtxCsv = fileText(csv + "/NVTX_EVENTS.csv");
    for (const std::string s : {"catégorie_wide", "réseau", "wide_é_push", "cat2_🚀"})
        EXPECT_NE(nvtxCsv.find(s), std::string::npos) << "CSV lacks " << s;

    const std::string json = output(cli() + "export -q -t json -o - " + rep());
    EXPECT_NE(json.find("\"name\":\"cat2_🚀\""), std::string::npos);
    EXPECT_NE(json.find("\"category\":\"catégorie_wide\""), std::string::npos);
    EXPECT_NE(json.find("\"category\":\"réseau\""), std::string::npos);
    EXPECT_NE(json.find("\"category\":\"compute\""), std::string::npos);

    const std::string text = output(cli() + "export -q -t text -o - " + rep());
    for (const std::string s : {"catégorie_wide", "réseau", "domaine_ü"})
        EXPECT_NE(text.find(s), std::string::npos) << "text summary lacks " << s;

    const std::string stats = output(cli() + "stats -q -r nvtx_sum " + rep());
    for (const std::string s : {"wide_é_push", "start_日本", "cat2_🚀"})
        EXPECT_NE(stats.find(s), std::string::npos) << "nvtx_sum lacks " << s;
}

}  // namespace
}  // namespace sl::test
