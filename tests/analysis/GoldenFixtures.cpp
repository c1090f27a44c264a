#include "tests/analysis/GoldenFixtures.h"

#include <map>
#include <mutex>

#include "model/gen/SyntheticGenerator.h"
#include "tests/analysis/Fixtures.h"

namespace sl::test {

std::vector<std::string> goldenFixtureNames() { return {"projection", "stats", "generated"}; }

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
    if (r) cache[name] = r;
    return r;
}

}  // namespace sl::test
