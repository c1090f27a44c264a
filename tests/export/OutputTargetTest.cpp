// Files the tools write replace their name by a rename: a device, pipe or socket at that name
// was replaced by a regular file (as root, `export -f -o /dev/null` broke /dev/null), and a
// symbolic link by the file. Links are written through now; anything else is refused.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "model/export/ChromeTraceExporter.h"
#include "model/export/SqliteExporter.h"
#include "model/gen/SyntheticGenerator.h"
#include "model/rep/RepReader.h"
#include "model/rep/RepWriter.h"
#include "model/util/OutputTarget.h"
#include "tests/unit/TestUtil.h"

namespace sl {
namespace {

namespace fs = std::filesystem;

std::string targetOf(const std::string& path) {
    auto t = outputTarget(path);
    return t.ok() ? *t : "error: " + t.error();
}

std::shared_ptr<Report> smallReport() {
    GeneratorOptions o;
    o.events = 500;
    return generateReport(o);
}

TEST(OutputTarget, NamesThatAreNotFilesAreRefusedAndLinksFollowed) {
    test::TempDir dir;
    EXPECT_EQ(targetOf(dir.file("new.rep")), dir.file("new.rep"));
    const std::string fifo = dir.file("pipe");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    auto refused = outputTarget(fifo);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("is a named pipe"), std::string::npos) << refused.error();
    EXPECT_NE(targetOf(dir.path()).find("is a directory"), std::string::npos);
    // A relative link, and a link to a link; a dangling one names the file to make.
    std::ofstream(dir.file("real.json")) << "old";
    fs::create_symlink("real.json", dir.file("a.json"));
    fs::create_symlink(dir.file("a.json"), dir.file("b.json"));
    EXPECT_EQ(targetOf(dir.file("b.json")), dir.file("real.json"));
    fs::create_symlink("missing.rep", dir.file("dangling.rep"));
    EXPECT_EQ(targetOf(dir.file("dangling.rep")), dir.file("missing.rep"));
    fs::create_symlink("pipe", dir.file("topipe"));
    EXPECT_FALSE(outputTarget(dir.file("topipe")).ok());
    fs::create_symlink("loop", dir.file("loop"));
    EXPECT_FALSE(outputTarget(dir.file("loop")).ok());
}

TEST(OutputTarget, WritersLeaveDevicesAndLinksInPlace) {
    test::TempDir dir;
    auto r = smallReport();
    const std::string fifo = dir.file("pipe");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    exporter::ExportOptions o;
    o.overwrite = true;
    EXPECT_FALSE(exporter::exportChromeTrace(*r, fifo, o).ok());
    EXPECT_FALSE(exporter::exportSqlite(*r, fifo, o).ok());
    WriteOptions w;
    w.overwrite = true;
    EXPECT_FALSE(writeReport(*r, fifo, w).ok());
    struct stat st {};
    ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the pipe was replaced";
    // Through links: the link stays, its file gets the output.
    for (const char* name : {"t.json", "t.sqlite", "t.rep"}) {
        std::ofstream(dir.file(std::string("real-") + name)) << "old";
        fs::create_symlink(std::string("real-") + name, dir.file(name));
    }
    ASSERT_TRUE(exporter::exportChromeTrace(*r, dir.file("t.json"), o).ok());
    ASSERT_TRUE(exporter::exportSqlite(*r, dir.file("t.sqlite"), o).ok());
    ASSERT_TRUE(writeReport(*r, dir.file("t.rep"), w).ok());
    for (const char* name : {"t.json", "t.sqlite", "t.rep"}) {
        EXPECT_TRUE(fs::is_symlink(dir.file(name))) << name;
        EXPECT_GT(fs::file_size(dir.file(std::string("real-") + name)), 3u) << name;
    }
    EXPECT_TRUE(readReport(dir.file("t.rep")).ok());
}

}  // namespace
}  // namespace sl
