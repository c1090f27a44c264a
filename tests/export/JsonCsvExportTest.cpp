// The Chrome-trace JSON export is valid (Python's json module loads it) and has the expected
// slices, tracks, flows and counters; the CSV export writes one file per table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/export/ChromeTraceExporter.h"
#include "model/export/CsvExporter.h"
#include "model/gen/SyntheticGenerator.h"
#include "tests/analysis/Fixtures.h"

namespace sl::exporter {
namespace {

namespace fs = std::filesystem;

std::string tempDir() {
    std::string tmpl = (fs::temp_directory_path() / "sl-export-json-XXXXXX").string();
    return ::mkdtemp(tmpl.data());
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Runs a Python check over the file; the script prints a summary we compare.
std::string pythonSummary(const std::string& json) {
    const std::string py = SIGHTLINE_PYTHON3;
    const std::string out = json + ".summary";
    const std::string cmd = py +
                            " -c \"import json,sys,collections; d=json.load(open(sys.argv[1])); ev=d['traceEvents']; "
                            "c=collections.Counter(e['ph'] for e in ev); "
                            "print(' '.join(f'{k}={c[k]}' for k in sorted(c)))\" " +
                            json + " > " + out;
    if (std::system(cmd.c_str()) != 0) return "python failed";
    std::string s = slurp(out);
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
}

TEST(ChromeTraceExport, LoadsWithPythonJson) {
    if (std::string(SIGHTLINE_PYTHON3).empty()) GTEST_SKIP() << "python3 not found";
    const std::string dir = tempDir();
    auto r = test::makeStatsReport();
    auto stats = exportChromeTrace(*r, dir + "/t.json");
    ASSERT_TRUE(stats.ok()) << stats.error();
    // X: 7 API + 7 kernels + 3 memcpy + 1 memset + 3 OSRT + 3 NVTX + 2 running = 26; flows: 7 pairs;
    // M: process, thread, GPU stream name + sort index.
    EXPECT_EQ(pythonSummary(dir + "/t.json"), "M=4 X=26 f=7 s=7");
    const std::string text = slurp(dir + "/t.json");
    EXPECT_NE(text.find("\"name\":\"GPU 0 stream 1\""), std::string::npos);
    EXPECT_NE(text.find("\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kA\",\"pid\":7,\"tid\":1000000001,\"ts\":1.015,\"dur\":0.100"),
              std::string::npos);
    fs::remove_all(dir);
}

TEST(ChromeTraceExport, GeneratedReportWithCountersIsValid) {
    if (std::string(SIGHTLINE_PYTHON3).empty()) GTEST_SKIP() << "python3 not found";
    const std::string dir = tempDir();
    GeneratorOptions g;
    g.events = 5'000;
    auto r = generateReport(g);
    auto stats = exportChromeTrace(*r, dir + "/g.json");
    ASSERT_TRUE(stats.ok()) << stats.error();
    const std::string s = pythonSummary(dir + "/g.json");
    EXPECT_NE(s.find("C="), std::string::npos) << s;  // metric counters
    EXPECT_NE(s.find("f="), std::string::npos) << s;
    EXPECT_EQ(stats->rows, r->eventCount());
    fs::remove_all(dir);
}

TEST(CsvExport, OneFilePerTable) {
    const std::string dir = tempDir() + "/out";
    auto r = test::makeStatsReport();
    auto stats = exportCsv(*r, dir);
    ASSERT_TRUE(stats.ok()) << stats.error();
    const std::string kernels = slurp(dir + "/CUPTI_ACTIVITY_KIND_KERNEL.csv");
    EXPECT_EQ(kernels.substr(0, kernels.find('\n')),
              "start,end,deviceId,contextId,streamId,correlationId,globalPid,demangledName,shortName,mangledName,launchType,"
              "cacheConfig,registersPerThread,gridX,gridY,gridZ,blockX,blockY,blockZ,staticSharedMemory,dynamicSharedMemory,"
              "localMemoryPerThread,localMemoryTotal,gridId,sharedMemoryExecuted,graphNodeId,sharedMemoryLimitConfig,graphId");
    EXPECT_EQ(std::count(kernels.begin(), kernels.end(), '\n'), 8);
    EXPECT_TRUE(fs::exists(dir + "/StringIds.csv"));
    EXPECT_TRUE(fs::exists(dir + "/ENUM_CUDA_MEMCPY_OPER.csv"));
    for (const auto& [name, rows] : stats->tables) EXPECT_TRUE(fs::exists(dir + "/" + name + ".csv")) << name;
    auto again = exportCsv(*r, dir);
    EXPECT_FALSE(again.ok());
    fs::remove_all(fs::path(dir).parent_path());
}

}  // namespace
}  // namespace sl::exporter
