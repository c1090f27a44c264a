#include "tests/analysis/GoldenFixtures.h"

#include <map>
#include <mutex>

#include "model/gen/SyntheticGenerator.h"
#include "tests/analysis/Fixtures.h"

#ifdef SIGHTLINE_HAVE_IMPORT
#include "model/import/ImportFile.h"
#endif

namespace sl::test {

std::vector<std::string> goldenFixtureNames() {
    std::vector<std::string> names{"projection", "stats", "generated"};
#ifdef SIGHTLINE_HAVE_IMPORT
    for (const char* n : {"nsys_pipit", "nsys_extrap_concurrent", "nsys_extrap_con_kernel"}) names.emplace_back(n);
#endif
    return names;
}

std::string externalFixturePath(const std::string& file) {
    return std::string(SIGHTLINE_TEST_DATA) + "/analysis/external/" + file;
}

std::shared_ptr<const Report> goldenFixture(const std::string& name) {
    static std::mutex m;
    static std::map<std::string, std::shared_ptr<const Report>> cache;
    std::lock_guard lock(m);
    if (auto it = cache.find(name); it != cache.end()) return it->second;
    std::shared_ptr<const Report> r;
    if (name == "projection") r = makeProjectionReport();
    else if (name == "stats") r = makeStatsReport();
    else if (name == "generated") {
        GeneratorOptions o;
        o.events = 2500;
        o.seed = 11;
        o.threads = 2;
        o.gpus = 2;
        r = generateReport(o);
    }
#ifdef SIGHTLINE_HAVE_IMPORT
    const std::pair<const char*, const char*> imported[] = {{"nsys_pipit", "pipit_saxpy_mpi_cuda.sqlite"},
                                                            {"nsys_extrap_concurrent", "extrap_concurrent_s1.sqlite"},
                                                            {"nsys_extrap_con_kernel", "extrap_con_kernel.sqlite"}};
    for (const auto& [n, file] : imported) {
        if (name != n) continue;
        auto loaded = importFile(externalFixturePath(file));
        if (loaded) r = *loaded;
    }
#endif
    if (r) cache[name] = r;
    return r;
}

}  // namespace sl::test
