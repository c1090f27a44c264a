#pragma once
// Helpers for the importer tests: fixture paths, temporary files and queries over a Report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "model/core/Report.h"
#include "model/import/ImportFile.h"

namespace sl::test {

inline std::string fixture(const std::string& name) {
    return std::string(SIGHTLINE_IMPORT_DATA) + "/" + name;
}

// A fresh directory under the system temp dir, removed at destruction.
class TempDir {
public:
    TempDir() {
        static int counter = 0;
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_path = std::filesystem::temp_directory_path() /
                 ("sl_import_" + std::string(info ? info->name() : "x") + "_" +
                  std::to_string(::getpid()) + "_" + std::to_string(++counter));
        std::filesystem::remove_all(m_path);
        std::filesystem::create_directories(m_path);
    }
    ~TempDir() { std::filesystem::remove_all(m_path); }
    std::string file(const std::string& name) const { return (m_path / name).string(); }
    std::string write(const std::string& name, const std::string& content) const {
        std::ofstream(file(name), std::ios::binary) << content;
        return file(name);
    }
    size_t entries() const {
        size_t n = 0;
        for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(m_path)) ++n;
        return n;
    }
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

inline std::shared_ptr<Report> importOk(const std::string& path) {
    auto r = importFile(path);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error());
    return r.ok() ? *r : std::make_shared<Report>();
}

// Names of every event of a kind, counted.
inline std::map<std::string, int> nameCounts(const Report& r, EventKind kind) {
    std::map<std::string, int> out;
    for (const Track* t : r.tracksOfKind(kind))
        for (size_t i = 0; i < t->size(); ++i) ++out[std::string(r.str(t->nameAt(i)))];
    return out;
}

inline std::set<int64_t> apiCorrelations(const Report& r) {
    std::set<int64_t> out;
    for (const Track* t : r.tracksOfKind(EventKind::CudaApi))
        for (size_t i = 0; i < t->size(); ++i) out.insert(t->intAt(cols::CudaApi::Correlation, i));
    return out;
}

// GPU events of a kind whose correlation id names an API call in the report.
inline int resolvedCount(const Report& r, EventKind kind, int correlationColumn = 0) {
    const auto api = apiCorrelations(r);
    int n = 0;
    for (const Track* t : r.tracksOfKind(kind))
        for (size_t i = 0; i < t->size(); ++i)
            n += api.count(t->intAt(correlationColumn, i)) ? 1 : 0;
    return n;
}

inline uint64_t domainEvents(const Report& r, EventKind kind, std::string_view domainName) {
    uint64_t n = 0;
    for (const Track* t : r.tracksOfKind(kind))
        if (r.domainName(t->key.pid, t->key.domain) == domainName) n += t->size();
    return n;
}

}  // namespace sl::test
