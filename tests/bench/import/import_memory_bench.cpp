// bench_import_memory [--events N] [--input FILE.json] [--pairs K] [--dir DIR]: peak memory and
// wall time of importing a Kineto JSON trace into a report, each run in a child process of its
// own, alternating: the in-memory import written whole (importFile + writeReport, what
// `sightline import` did before streaming) and the streamed import (importFileToReport, what it
// does now); then one plain single-threaded simdjson pass over the same file (every event's
// fields read, nothing kept), the parse-speed baseline. Prints each run, then medians, ranges
// and peak bytes per event. Without --input a trace of about N events (default 1,000,000) is
// generated in DIR and removed at the end (kept with --keep 1).
#include <simdjson.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "TraceGenerators.h"
#include "model/import/ImportFile.h"
#include "model/rep/RepWriter.h"

namespace {

struct Run {
    double seconds = 0;
    double peakMiB = 0;
    bool ok = false;
};

// Runs `work` in a child process: its wall time and peak resident memory.
Run inChild(const std::function<bool()>& work) {
    std::fflush(nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(work() ? 0 : 1);
    int status = 0;
    rusage u{};
    ::wait4(pid, &status, 0, &u);
    Run r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.peakMiB = static_cast<double>(u.ru_maxrss) / 1024.0;
    r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return r;
}

bool inMemory(const std::string& input, const std::string& output) {
    auto r = sl::importFile(input);
    if (!r) return std::fprintf(stderr, "import: %s\n", r.error().c_str()), false;
    auto st = sl::writeReport(**r, output);
    if (!st) return std::fprintf(stderr, "write: %s\n", st.error().c_str()), false;
    return true;
}

bool streamed(const std::string& input, const std::string& output) {
    auto r = sl::importFileToReport(input, output);
    if (!r) return std::fprintf(stderr, "import: %s\n", r.error().c_str()), false;
    return true;
}

// Every field of every event read as a raw token, as an importer's parse must.
bool plainParse(const std::string& input) {
    namespace od = simdjson::ondemand;
    simdjson::padded_string text;
    if (simdjson::padded_string::load(input).get(text)) return false;
    od::parser parser;
    od::document doc;
    if (parser.iterate(text).get(doc)) return false;
    od::array events;
    if (doc["traceEvents"].get_array().get(events)) return false;
    uint64_t n = 0, bytes = 0;
    for (auto item : events) {
        od::object obj;
        if (item.get_object().get(obj)) return false;
        for (auto field : obj) {
            od::value v;
            if (field.value().get(v)) return false;
            od::json_type t;
            if (v.type().get(t)) return false;
            if (t == od::json_type::object) {
                od::object args;
                if (v.get_object().get(args)) return false;
                for (auto a : args) {
                    od::value av;
                    if (a.value().get(av)) return false;
                    bytes += av.raw_json_token().size();
                }
            } else {
                bytes += v.raw_json_token().size();
            }
        }
        ++n;
    }
    std::fprintf(stderr, "(plain parse: %llu events, %llu value bytes)\n",
                 static_cast<unsigned long long>(n), static_cast<unsigned long long>(bytes));
    return n > 0;
}

void summary(const char* label, std::vector<Run> runs, uint64_t events) {
    if (runs.empty()) return;
    auto med = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    };
    std::vector<double> t, m;
    for (const Run& r : runs) {
        t.push_back(r.seconds);
        m.push_back(r.peakMiB);
    }
    const double mm = med(m);
    std::printf("%-34s wall %6.2f s (%.2f-%.2f), peak %8.1f MiB (%.1f-%.1f) = %6.1f B/event\n",
                label, med(t), *std::min_element(t.begin(), t.end()),
                *std::max_element(t.begin(), t.end()), mm, *std::min_element(m.begin(), m.end()),
                *std::max_element(m.begin(), m.end()),
                mm * 1048576.0 / static_cast<double>(std::max<uint64_t>(1, events)));
}

}  // namespace

int main(int argc, char** argv) {
    uint64_t events = 1000000;
    int pairs = 3;
    bool keep = false;
    std::string input, dir = std::filesystem::temp_directory_path() / "sightline_bench_import_mem";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--events"))
            events = std::stoull(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--input"))
            input = argv[i + 1];
        else if (!std::strcmp(argv[i], "--pairs"))
            pairs = std::stoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--dir"))
            dir = argv[i + 1];
        else if (!std::strcmp(argv[i], "--keep"))
            keep = std::strcmp(argv[i + 1], "0") != 0;
    }
    std::filesystem::create_directories(dir);
    const bool generated = input.empty();
    uint64_t expected = 0;
    if (generated) {
        input = dir + "/bench.pt.trace.json";
        // The generator writes about 3.125 events per 4 asked (flows are not events).
        auto g = sl::bench::writeKinetoJson(input, events * 128 / 100);
        if (!g) return std::fprintf(stderr, "generate: %s\n", g.error().c_str()), 1;
        expected = g->events;
    }
    if (!expected) {
        // Counted in a child of its own: the parent stays small, so the children's peaks are
        // their own.
        int fds[2];
        if (::pipe(fds) != 0) return 1;
        Run r = inChild([&] {
            auto w = sl::importFileToReport(input, dir + "/count.rep");
            if (!w) return std::fprintf(stderr, "import: %s\n", w.error().c_str()), false;
            return ::write(fds[1], &w->events, sizeof w->events) == sizeof w->events;
        });
        if (!r.ok || ::read(fds[0], &expected, sizeof expected) != sizeof expected) return 1;
        ::close(fds[0]);
        ::close(fds[1]);
    }
    std::printf("%s: %llu events, %.1f MiB\n", input.c_str(),
                static_cast<unsigned long long>(expected),
                static_cast<double>(std::filesystem::file_size(input)) / 1048576.0);
    std::vector<Run> before, after, parse;
    int rc = 0;
    for (int p = 0; p < pairs; ++p) {
        for (int k = 0; k < 2; ++k) {
            const bool old = (p + k) % 2 == 0;  // alternate which goes first
            const std::string out = dir + (old ? "/memory.rep" : "/streamed.rep");
            Run r = inChild([&] { return old ? inMemory(input, out) : streamed(input, out); });
            std::printf("  %-9s wall %6.2f s, peak %8.1f MiB%s\n", old ? "in-memory" : "streamed",
                        r.seconds, r.peakMiB, r.ok ? "" : "  FAILED");
            rc |= r.ok ? 0 : 1;
            (old ? before : after).push_back(r);
        }
    }
    for (int p = 0; p < std::min(pairs, 2); ++p) {
        Run r = inChild([&] { return plainParse(input); });
        std::printf("  %-9s wall %6.2f s, peak %8.1f MiB%s\n", "parse", r.seconds, r.peakMiB,
                    r.ok ? "" : "  FAILED");
        parse.push_back(r);
    }
    summary("in-memory import + write (before)", before, expected);
    summary("streamed import (now)", after, expected);
    summary("plain simdjson pass (baseline)", parse, expected);
    std::filesystem::remove(dir + "/memory.rep");
    std::filesystem::remove(dir + "/streamed.rep");
    std::filesystem::remove(dir + "/count.rep");
    if (generated && !keep) std::filesystem::remove_all(dir);
    return rc;
}
