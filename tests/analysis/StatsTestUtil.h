#pragma once
// Helpers shared by the stats report tests of the hand-built fixtures (MpiReportsTest.cpp,
// OpenMpReportsTest.cpp) and the export tests: a report run to CSV, the report read back from
// a .rep as `sightline stats` reads it, and an event found by track and name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "model/analysis/EventQueryDetails.h"
#include "model/analysis/StatsReports.h"
#include "model/analysis/TableFormatter.h"
#include "model/rep/RepReader.h"
#include "model/rep/RepWriter.h"

namespace sl::test {

// The table as CSV, times in ns.
inline std::string csv(const analysis::Table& t) {
    std::ostringstream out;
    analysis::writeTable(out, t, {analysis::TableFormat::Csv, "ns"});
    return out.str();
}

// The stats report `spec` of `r` as CSV ("" and a failure where it does not run).
inline std::string runCsv(const Report& r, const std::string& spec, analysis::StatsOptions o = {}) {
    auto t = analysis::runReport(r, spec, o);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error());
    return t.ok() ? csv(*t) : std::string();
}

// Writes `r` to a .rep named after `stem`, reads it back as `sightline stats` does for the
// report `name` (only the tracks that report needs, and no OS runtime calls), and expects the
// report's CSV there to be `expected`.
inline void expectSameFromRep(const Report& r, const std::string& stem, const std::string& name,
                              const std::string& expected) {
    const std::string path = ::testing::TempDir() + "/" + stem + "_" + std::to_string(::getpid()) + ".rep";
    WriteOptions wo;
    wo.overwrite = true;
    ASSERT_TRUE(writeReport(r, path, wo).ok());
    auto part = readReport(path, analysis::statsReadOptions({name}, false));
    ASSERT_TRUE(part.ok()) << part.error();
    EXPECT_EQ((*part)->eventCount(EventKind::OsRuntime), 0u) << name;
    EXPECT_EQ(runCsv(**part, name), expected) << name;
    std::filesystem::remove(path);
}

// The event of `name` on the `kind` track of (pid, tid); invalid when there is none.
inline analysis::EventRef findEvent(const Report& r, EventKind kind, int64_t pid, int64_t tid, std::string_view name) {
    for (uint32_t ti = 0; ti < r.tracks.size(); ++ti) {
        const Track& t = r.tracks[ti];
        if (t.key.kind != kind || t.key.pid != pid || t.key.tid != tid) continue;
        for (uint32_t i = 0; i < t.size(); ++i)
            if (r.str(t.name[i]) == name) return {ti, i};
    }
    return {};
}

// None of `names` is among the event's detail fields.
inline void expectAbsent(const std::vector<analysis::EventField>& f, std::initializer_list<const char*> names) {
    for (const char* absent : names)
        for (const auto& field : f) EXPECT_NE(field.field, absent);
}

}  // namespace sl::test
