// `sightline import INPUT [-o OUT.rep]`: converts an nsys SQLite export or a Chrome/Kineto trace
// (.json, .json.gz) into a Sightline report. The input format is recognized by content. A
// directory is a capture session `sightline profile` kept because its report could not be
// written: its raw streams are merged as the profiler would have. Without INPUT it lists the
// kept captures.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "app/cli/CommandLine.h"
#include "app/cli/Command.h"
#include "app/cli/InputStem.h"
#include "capture/launcher/SessionFacts.h"
#include "model/import/ImportFile.h"
#include "model/util/Format.h"

namespace sl::cli {
namespace {

// trace.json.gz -> trace.rep, run.sqlite -> run.rep, in the current directory's sense of INPUT.
std::string defaultOutput(const std::string& input) {
    const std::string out = inputStem(input) + ".rep";
    return out == input ? input + ".rep" : out;  // never the input itself
}

// `sightline import` without INPUT: the captures kept in TMPDIR (a profiler killed, a report
// that could not be written), newest first, each with its command and whether its profiler
// still runs. After `kill -9` of the profiler nothing else says where its capture went.
int listKeptCaptures() {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path tmp = fs::temp_directory_path(ec);
    struct Kept {
        fs::file_time_type when;
        std::string dir, line;
    };
    std::vector<Kept> kept;
    for (const auto& e : fs::directory_iterator(tmp, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("sightline-session-", 0) != 0 || !capture::isSessionDirectory(e.path()))
            continue;
        auto facts = capture::readSessionFacts(e.path().string());
        std::string command;
        bool running = false;
        if (facts) {
            for (const auto& a : facts->command) command += (command.empty() ? "" : " ") + a;
            for (int64_t pid : {facts->launcherPid, facts->writerPid})
                running = running || (pid > 0 && fs::exists("/proc/" + std::to_string(pid), ec));
        }
        kept.push_back({fs::last_write_time(e.path(), ec), e.path().string(),
                        (command.empty() ? std::string("(command unknown)") : command) +
                            (running ? "   [its profiler is still running]" : "")});
    }
    if (kept.empty()) {
        std::printf("No kept captures in %s.\n", tmp.c_str());
        return 0;
    }
    std::sort(kept.begin(), kept.end(), [](const Kept& a, const Kept& b) { return a.when > b.when; });
    std::printf("Captures kept in %s (newest first); make a report with "
                "`sightline import DIR -o REPORT.rep`:\n",
                tmp.c_str());
    for (const Kept& k : kept) std::printf("  %s  %s\n", k.dir.c_str(), k.line.c_str());
    return 0;
}

int runImport(int argc, char** argv) {
    int exitCode = 0;
    auto args = parseCommandLine("import", argc, argv, &exitCode);
    if (!args) return exitCode;
    std::string output = args->value("output");
    const bool force = args->isTrue("force-overwrite"), quiet = args->isTrue("quiet");
    const std::vector<std::string>& inputs = args->positionals;
    if (inputs.empty()) return listKeptCaptures();
    if (inputs.size() != 1) return usageError("import", "expected one INPUT");
    std::error_code ec;
    if (capture::isSessionDirectory(inputs[0])) {
        // -o's file must be new (or -f); without -o the first free report%n is taken at the end.
        if (!output.empty() && !force &&
            std::filesystem::exists(std::filesystem::symlink_status(output, ec)))
            return fail("'" + output + "' already exists (use -f/--force-overwrite to replace it)");
        auto say = [quiet](const std::string& line) {
            if (!quiet) std::fprintf(stderr, "sightline: %s\n", line.c_str());
        };
        auto written = capture::reportFromSession(inputs[0], output, say, quiet, force);
        if (!written) return fail(written.error());
        if (!quiet) {
            // Its buffers may be apart from it, on /dev/shm (a profiler that was killed).
            auto facts = capture::readSessionFacts(inputs[0]);
            const std::string arenas = facts && !facts->arenaDir.empty() &&
                                               std::filesystem::is_directory(facts->arenaDir, ec)
                                           ? " and " + facts->arenaDir
                                           : std::string();
            std::fprintf(stderr,
                         "sightline: the raw capture in %s%s is left as it was (it can be "
                         "imported again); remove it when the report is what you need\n",
                         inputs[0].c_str(), arenas.c_str());
        }
        return 0;
    }
    if (output.empty()) output = defaultOutput(inputs[0]);
    if (!force && std::filesystem::exists(output, ec))
        return fail("'" + output + "' already exists (use -f/--force-overwrite to replace it)");
    const auto t0 = std::chrono::steady_clock::now();
    WriteOptions w;
    w.overwrite = true;
    auto written = importFileToReport(inputs[0], output, {}, w);
    if (!written) return fail(written.error());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!quiet) {
        std::fprintf(stderr, "Imported %s events (%s) in %.2f s: %s%s\n",
                     formatCount(written->events).c_str(), written->source.c_str(), s,
                     output.c_str(),
                     written->diagnostics == 0
                         ? ""
                         : (", " + std::to_string(written->diagnostics) +
                            " diagnostics (see sightline info)")
                               .c_str());
    }
    return 0;
}

const Registrar kImport({"import",
                         "convert an nsys SQLite export, a Chrome/Kineto trace or a kept capture to a report",
                         runImport, false, 30});

}  // namespace
}  // namespace sl::cli
