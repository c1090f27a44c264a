// Benchmark: selection statistics over a generated report (full range, half, 1%) and the
// events index (open = initial sort by start, sort by duration and name, name filter) on the
// largest track of that report and on a single 10M-event kernel track.
// Usage: bench_analysis_gui [events=10000000] [repeats=3]
#include <time.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "model/analysis/EventQuery.h"
#include "model/analysis/SelectionStats.h"
#include "model/gen/SyntheticGenerator.h"
#include "tests/analysis-gui/AnalysisFixture.h"
#include "tests/bench/ProcessCpu.h"

using namespace sl;
using namespace sl::analysis;
using Clock = std::chrono::steady_clock;

namespace {

double g_lastCpuMs = 0;  // CPU time of the best run of the last bestMs()

template <class Fn>
double bestMs(int repeats, Fn&& fn) {
    double best = 1e300;
    for (int k = 0; k < repeats; ++k) {
        const auto t0 = Clock::now();
        const double c0 = bench::processCpuMs();
        fn();
        const double wall = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (wall < best) {
            best = wall;
            g_lastCpuMs = bench::processCpuMs() - c0;
        }
    }
    return best;
}

void benchQuery(const char* label, std::shared_ptr<const Report> r, uint32_t track, int repeats) {
    std::printf("%s: %zu events\n", label, r->tracks[track].size());
    auto report = [&](const char* what, double wall, size_t rows) {
        std::printf("  %-24s %8.1f ms wall, %8.1f ms CPU (%zu rows)\n", what, wall, g_lastCpuMs,
                    rows);
    };
    std::unique_ptr<EventQuery> q;
    double ms =
        bestMs(repeats, [&] { q = std::make_unique<EventQuery>(r, std::vector<uint32_t>{track}); });
    report("open (sort by start)", ms, q->rowCount());
    ms = bestMs(repeats, [&] { q->sort(EventColumn::Duration, true); });
    report("sort by duration desc", ms, q->rowCount());
    ms = bestMs(repeats, [&] { q->sort(EventColumn::Name, false); });
    report("sort by name", ms, q->rowCount());
    ms = bestMs(repeats, [&] { q->sort(EventColumn::End, false); });
    report("sort by end", ms, q->rowCount());
    const std::string needle(r->str(r->tracks[track].nameAt(0)));
    ms = bestMs(repeats, [&] { (void)q->setFilter({needle}); });
    report(("filter '" + needle + "'").c_str(), ms, q->rowCount());
    EventFilter re{"^" + needle.substr(0, 3) + ".*$"};
    re.regex = true;
    ms = bestMs(repeats, [&] { (void)q->setFilter(re); });
    report("filter regex", ms, q->rowCount());
}

}  // namespace

int main(int argc, char** argv) {
    const uint64_t events = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
    GeneratorOptions o;
    o.events = events;
    auto t0 = Clock::now();
    std::shared_ptr<const Report> r = generateReport(o);
    std::printf("generated %llu events in %.1f s\n",
                static_cast<unsigned long long>(r->eventCount()),
                std::chrono::duration<double>(Clock::now() - t0).count());

    const int64_t a = r->tMin(), b = r->tMax(), span = b - a;
    struct Case {
        const char* name;
        int64_t t0, t1;
    } cases[] = {{"full", a, b + 1},
                 {"half", a + span / 4, a + span / 4 + span / 2},
                 {"1%", a + span / 2, a + span / 2 + span / 100}};
    for (const auto& c : cases) {
        SelectionStats st;
        const double ms = bestMs(repeats, [&] { st = computeSelectionStats(*r, {c.t0, c.t1}); });
        std::printf("selection stats %-5s %8.1f ms wall, %8.1f ms CPU (%llu events, %zu groups)\n",
                    c.name, ms, g_lastCpuMs, static_cast<unsigned long long>(st.eventCount()),
                    st.groups.size());
    }
    uint32_t largest = 0;
    for (uint32_t i = 0; i < r->tracks.size(); ++i)
        if (r->tracks[i].size() > r->tracks[largest].size()) largest = i;
    benchQuery("events view, largest track of the generated report", r, largest, repeats);
    r.reset();

    t0 = Clock::now();
    std::shared_ptr<const Report> big = test::makeBigKernelTrack(events, 200);
    std::printf("built one kernel track of %zu events in %.1f s\n", big->tracks[0].size(),
                std::chrono::duration<double>(Clock::now() - t0).count());
    benchQuery("events view, single kernel track", big, 0, repeats);
    SelectionStats st;
    const double ms = bestMs(repeats, [&] {
        st = computeSelectionStats(*big, {big->tMin(), big->tMax() + 1});
    });
    std::printf(
        "selection stats over the single track, full %8.1f ms wall, %8.1f ms CPU (%llu events)\n",
        ms, g_lastCpuMs, static_cast<unsigned long long>(st.eventCount()));
    return 0;
}
