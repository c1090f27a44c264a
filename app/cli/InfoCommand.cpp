// `sightline info REPORT`: what a report holds, for people (text) and scripts (--format json).
// `sightline info REPORT --event TRACK:INDEX|NAME`: one event's details, from the formatter the
// GUI's details panel uses (model/analysis/EventQueryDetails.h).
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "app/cli/CommandLine.h"
#include "app/cli/Command.h"
#include "app/cli/ReportInput.h"
#include "model/analysis/EventQueryDetails.h"
#include "model/rep/RepReader.h"
#include "model/util/Format.h"
#include "model/util/Utf8.h"
#include "model/util/JsonWriter.h"

namespace sl::cli {
namespace {

struct KindTotals {
    uint64_t events = 0;
    uint64_t tracks = 0;
};

// Event counts per kind and the time span, from the track index alone (no events decoded).
struct EventTotals {
    std::map<EventKind, KindTotals> kinds;
    uint64_t total = 0;
    int64_t tMin = INT64_MAX, tMax = INT64_MIN;
};

EventTotals eventTotals(const RepFile& file) {
    EventTotals e;
    for (const auto& t : file.trackInfos()) {
        e.kinds[t.key.kind].events += t.eventCount;
        e.kinds[t.key.kind].tracks += 1;
        e.total += t.eventCount;
        if (t.eventCount) {
            e.tMin = std::min(e.tMin, t.tMin);
            e.tMax = std::max(e.tMax, t.tMax);
        }
    }
    return e;
}

void printText(const RepFile& file, const Report& r) {
    const Session& s = r.session;
    std::string cmd;
    for (const auto& a : s.argv) cmd += (cmd.empty() ? "" : " ") + a;
    std::error_code ec;
    auto size = std::filesystem::file_size(file.path(), ec);
    std::printf("Report       %s (format %d, %s)\n", file.path().c_str(), file.formatVersion(), formatBytes(size).c_str());
    std::printf("Command      %s\n", cmd.empty() ? "(none)" : cmd.c_str());
    std::printf("Directory    %s\n", s.workingDirectory.c_str());
    {
        // Imports often carry no host details: print only what is known.
        std::string host = s.hostName.empty() ? "unknown" : s.hostName, details;
        for (const std::string* part : {&s.os, &s.cpuModel})
            if (!part->empty()) details += (details.empty() ? "" : "; ") + *part;
        if (!details.empty()) host += " (" + details + ")";
        std::printf("Host         %s\n", host.c_str());
    }
    std::printf("Started      %s\n", formatUtc(s.startUtcNs).c_str());
    std::printf("Duration     %s\n", formatDuration(s.durationNs).c_str());
    std::printf("Source       %s, written by sightline %s\n", s.source.c_str(), s.toolVersion.c_str());
    if (!s.captureOptions.empty()) std::printf("Options      %s\n", s.captureOptions.c_str());

    auto at = [&r](int64_t t) { return t == kUnknownTime ? std::string("?") : formatDuration(t - r.timeOrigin()); };
    std::printf("\nProcesses (%zu)\n", r.processes.size());
    for (const auto& p : r.processes) {
        std::string exit = p.exitSignal == kExitStatusUnknown ? "ended (status unknown)"
                         : p.exitSignal ? "signal " + std::to_string(p.exitSignal)
                         : p.end != kUnknownTime ? "exit " + std::to_string(p.exitCode) : "running";
        std::printf("  %-8lld parent %-8lld %s %-12s %s\n", static_cast<long long>(p.pid),
                    static_cast<long long>(p.parentPid), padToColumns(p.name, 20).c_str(), exit.c_str(),
                    p.commandLine.c_str());
        if (p.mpiRank >= 0) std::printf("           MPI rank %d of %d\n", p.mpiRank, p.mpiWorldSize);
        for (const auto& rp : r.reparents)
            if (rp.pid == p.pid)
                std::printf("           orphaned at %s when %lld ended; adopted by %lld\n", at(rp.time).c_str(),
                            static_cast<long long>(rp.fromPid), static_cast<long long>(rp.toPid));
    }
    std::printf("\nThreads (%zu)\n", r.threads.size());
    for (const auto& t : r.threads)
        std::printf("  %-8lld pid %-8lld %s %s .. %s\n", static_cast<long long>(t.tid), static_cast<long long>(t.pid),
                    padToColumns(t.name, 24).c_str(), at(t.start).c_str(), at(t.end).c_str());
    std::printf("\nGPUs (%zu)\n", r.gpus.size());
    for (const auto& g : r.gpus)
        std::printf("  %d: %s, %d SMs, %s, compute %d.%d, %s\n", g.deviceId, g.name.c_str(), g.smCount,
                    formatBytes(static_cast<uint64_t>(g.memoryBytes)).c_str(), g.computeMajor, g.computeMinor, g.pciBusId.c_str());

    if (!r.nvtxDomains.empty() || !r.nvtxCategories.empty()) {
        std::printf("\nNVTX domains (%zu) and categories (%zu)\n", r.nvtxDomains.size(), r.nvtxCategories.size());
        for (const auto& d : r.nvtxDomains)
            std::printf("  domain %-4u pid %-8lld %s\n", d.domainId, static_cast<long long>(d.pid), d.name.c_str());
        for (const auto& c : r.nvtxCategories)
            std::printf("  category %-4u of %s pid %-8lld %s\n", c.category,
                        padToColumns(r.domainName(c.pid, c.domainId), 12).c_str(), static_cast<long long>(c.pid),
                        c.name.c_str());
    }
    if (!r.metricSeries.empty()) {
        std::printf("\nMetric series (%zu)\n", r.metricSeries.size());
        for (const auto& m : r.metricSeries)
            std::printf("  %-4u %-36s %-6s source %s\n", m.seriesId, m.name.c_str(), m.unit.c_str(), m.source.c_str());
    }
    if (!r.programOutput.empty()) {
        size_t bytes[3] = {0, 0, 0};
        for (const auto& o : r.programOutput) bytes[o.stream == 2 ? 2 : 1] += o.text.size();
        std::printf("\nProgram output  %s on stdout, %s on stderr (%zu chunks)\n", formatBytes(bytes[1]).c_str(),
                    formatBytes(bytes[2]).c_str(), r.programOutput.size());
    }

    const EventTotals totals = eventTotals(file);
    const auto& kinds = totals.kinds;
    const uint64_t total = totals.total;
    const int64_t tMin = totals.tMin, tMax = totals.tMax;
    std::printf("\nEvents       %s", formatCount(total).c_str());
    if (total) std::printf(" over %s", formatDuration(tMax - tMin).c_str());
    std::printf("\n");
    for (const auto& [k, v] : kinds)
        std::printf("  %-26s %14s in %llu tracks\n", std::string(schemaOf(k).label).c_str(), formatCount(v.events).c_str(),
                    static_cast<unsigned long long>(v.tracks));
    if (!r.callStacks.empty() || !r.stackFrames.empty())
        std::printf("  %-26s %14s distinct, of %s frames\n", "Call stacks", formatCount(r.callStacks.size()).c_str(),
                    formatCount(r.stackFrames.size()).c_str());
    // Numbered as `--event TRACK:INDEX` takes them.
    std::printf("\nTracks (%zu)\n", file.trackInfos().size());
    for (size_t i = 0; i < file.trackInfos().size(); ++i) {
        const auto& t = file.trackInfos()[i];
        std::printf("  %4zu  %s %12s events, %u lanes\n", i, padToColumns(r.trackTitle(r.tracks[i]), 70).c_str(),
                    formatCount(t.eventCount).c_str(), t.laneCount);
    }
    std::printf("\nDiagnostics (%zu)\n", r.diagnostics.size());
    if (r.diagnostics.empty()) std::printf("  none: nothing was dropped or skipped\n");
    for (const auto& d : r.diagnostics)
        std::printf("  %-32s %12s  %s%s\n", d.name.c_str(), formatCount(static_cast<uint64_t>(d.count)).c_str(),
                    d.reason.c_str(), d.pid ? (" (pid " + std::to_string(d.pid) + ")").c_str() : "");
}

void printJson(const RepFile& file, const Report& r) {
    JsonWriter j(std::cout);
    const Session& s = r.session;
    j.beginObject();
    j.field("report", file.path()).field("format_version", file.formatVersion());
    j.key("session").beginObject();
    j.key("argv").beginArray();
    for (const auto& a : s.argv) j.value(a);
    j.endArray();
    j.field("working_directory", s.workingDirectory).field("host_name", s.hostName).field("os", s.os);
    j.field("cpu_model", s.cpuModel).field("tool_version", s.toolVersion).field("capture_options", s.captureOptions);
    j.field("source", s.source).field("start_utc_ns", s.startUtcNs).key("start_monotonic_ns");
    if (s.startMonotonicNs == kUnknownTime) j.null(); else j.value(s.startMonotonicNs);
    j.field("duration_ns", s.durationNs);
    j.key("environment").beginObject();
    for (const auto& [k, v] : s.environment) j.field(k, v);
    j.endObject();
    j.endObject();
    auto time = [&](const char* k, int64_t t) {
        j.key(k);
        if (t == kUnknownTime) j.null(); else j.value(t);
    };
    j.key("processes").beginArray();
    for (const auto& p : r.processes) {
        j.beginObject().field("pid", p.pid).field("parent_pid", p.parentPid).field("name", p.name);
        j.field("command_line", p.commandLine);
        time("start_ns", p.start);
        time("end_ns", p.end);
        j.field("exit_code", p.exitCode).field("exit_signal", p.exitSignal);
        if (p.mpiRank >= 0) j.field("mpi_rank", p.mpiRank).field("mpi_world_size", p.mpiWorldSize);
        j.endObject();
    }
    j.endArray();
    j.key("reparents").beginArray();
    for (const auto& rp : r.reparents) {
        j.beginObject().field("pid", rp.pid);
        time("time_ns", rp.time);
        j.field("from_pid", rp.fromPid).field("to_pid", rp.toPid).endObject();
    }
    j.endArray();
    j.key("threads").beginArray();
    for (const auto& t : r.threads) {
        j.beginObject().field("tid", t.tid).field("pid", t.pid).field("name", t.name);
        time("start_ns", t.start);
        time("end_ns", t.end);
        j.endObject();
    }
    j.endArray();
    j.key("gpus").beginArray();
    for (const auto& g : r.gpus) {
        j.beginObject().field("device_id", g.deviceId).field("name", g.name).field("uuid", g.uuid);
        j.field("pci_bus_id", g.pciBusId).field("sm_count", g.smCount).field("memory_bytes", g.memoryBytes);
        j.field("compute_capability", std::to_string(g.computeMajor) + "." + std::to_string(g.computeMinor));
        j.field("sm_clock_khz", g.smClockKHz).field("memory_clock_khz", g.memoryClockKHz).endObject();
    }
    j.endArray();
    const EventTotals totals = eventTotals(file);
    const auto& kinds = totals.kinds;
    const uint64_t total = totals.total;
    const int64_t tMin = totals.tMin, tMax = totals.tMax;
    j.key("events").beginObject().field("total", total);
    j.field("t_min_ns", total ? tMin : 0).field("t_max_ns", total ? tMax : 0);
    j.key("by_kind").beginObject();
    for (const auto& [k, v] : kinds) j.field(schemaOf(k).id, v.events);
    j.endObject();
    // CPU samples (by_kind.cpu_sample) reference these distinct call stacks and frames.
    j.field("call_stacks", static_cast<uint64_t>(r.callStacks.size()));
    j.field("stack_frames", static_cast<uint64_t>(r.stackFrames.size()));
    j.endObject();
    j.key("tracks").beginArray();
    for (size_t i = 0; i < file.trackInfos().size(); ++i) {
        const auto& t = file.trackInfos()[i];
        j.beginObject().field("kind", schemaOf(t.key.kind).id).field("title", r.trackTitle(r.tracks[i]));
        j.field("pid", t.key.pid).field("tid", t.key.tid).field("device", t.key.device);
        j.field("context", t.key.context).field("stream", t.key.stream).field("domain", t.key.domain);
        j.field("series", t.key.series).field("events", t.eventCount).field("lanes", t.laneCount);
        j.field("t_min_ns", t.tMin).field("t_max_ns", t.tMax).endObject();
    }
    j.endArray();
    j.key("nvtx_domains").beginArray();
    for (const auto& d : r.nvtxDomains)
        j.beginObject().field("pid", d.pid).field("domain_id", d.domainId).field("name", d.name).endObject();
    j.endArray();
    j.key("nvtx_categories").beginArray();
    for (const auto& c : r.nvtxCategories)
        j.beginObject().field("pid", c.pid).field("domain_id", c.domainId).field("category", c.category).field("name", c.name).endObject();
    j.endArray();
    j.key("metric_series").beginArray();
    for (const auto& m : r.metricSeries)
        j.beginObject().field("series_id", m.seriesId).field("name", m.name).field("unit", m.unit).field("source", m.source)
            .field("device_id", m.deviceId).field("pid", m.pid).endObject();
    j.endArray();
    j.key("program_output").beginArray();
    for (const auto& o : r.programOutput)
        j.beginObject().field("pid", o.pid).field("stream", o.stream).field("time_ns", o.time).field("text", o.text).endObject();
    j.endArray();
    j.key("diagnostics").beginArray();
    for (const auto& d : r.diagnostics)
        j.beginObject().field("name", d.name).field("count", d.count).field("reason", d.reason).field("pid", d.pid).endObject();
    j.endArray();
    j.endObject();
    std::cout << "\n";
}

// "TRACK:INDEX" (numbers), else an event name: its first event in time (the earliest start over
// every track). An error message when there is no such event.
Result<analysis::EventRef> findEvent(const Report& r, const std::string& spec) {
    const size_t colon = spec.find(':');
    uint32_t track = 0, index = 0;
    auto number = [](std::string_view s, uint32_t& out) {
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        return !s.empty() && ec == std::errc() && end == s.data() + s.size();
    };
    if (colon != std::string::npos && number(std::string_view(spec).substr(0, colon), track) &&
        number(std::string_view(spec).substr(colon + 1), index)) {
        if (track >= r.tracks.size())
            return makeError("--event " + spec + ": there is no track " + std::to_string(track) + " (the report has " +
                         std::to_string(r.tracks.size()) + ", numbered from 0 under Tracks in `sightline info`)");
        if (index >= r.tracks[track].size())
            return makeError("--event " + spec + ": track " + std::to_string(track) + " has " +
                         std::to_string(r.tracks[track].size()) + " events (numbered from 0)");
        return analysis::EventRef{track, index};
    }
    analysis::EventRef best;
    int64_t bestStart = INT64_MAX;
    for (uint32_t t = 0; t < r.tracks.size(); ++t)
        for (uint32_t i = 0; i < r.tracks[t].size() && r.tracks[t].start[i] < bestStart; ++i)
            if (analysis::eventName(r, r.tracks[t], i) == spec) {
                best = {t, i};
                bestStart = r.tracks[t].start[i];
                break;  // a track is in start order: its first match is its earliest
            }
    if (!best.valid()) return makeError("--event: no event is named '" + spec + "' (or give TRACK:INDEX)");
    return best;
}

int printEvent(const std::string& path, const std::string& spec, bool json) {
    auto report = openReportInput(path);
    if (!report) return fail(report.error());
    const Report& r = **report;
    auto event = findEvent(r, spec);
    if (!event) return fail(path + ": " + event.error());
    const analysis::CorrelationIndex correlation(r);
    const auto fields = analysis::eventDetails(r, *event, &correlation);
    if (json) {
        JsonWriter j(std::cout);
        j.beginObject().field("track", event->track).field("index", event->index);
        j.key("fields").beginArray();
        for (const auto& f : fields) j.beginObject().field("field", f.field).field("value", f.value).endObject();
        j.endArray().endObject();
        std::cout << "\n";
    } else {
        std::printf("Event %u:%u\n", event->track, event->index);
        for (const auto& f : fields) std::printf("  %-26s %s\n", f.field.c_str(), f.value.c_str());
    }
    return 0;
}

int runInfo(int argc, char** argv) {
    int exitCode = 0;
    auto args = parseCommandLine("info", argc, argv, &exitCode);
    if (!args) return exitCode;
    const std::string format = args->value("format");
    const bool verify = args->isTrue("verify");
    const std::vector<std::string> inputs = reportPaths(args->positionals);
    if (inputs.size() != 1) return usageError("info", "expected one REPORT");
    if (const std::string event = args->value("event"); !event.empty())
        return printEvent(inputs[0], event, format == "json");
    auto file = RepFile::open(inputs[0]);
    if (!file) return fail(file.error());
    if (verify) {
        for (size_t i = 0; i < (*file)->trackInfos().size(); ++i) {
            auto t = (*file)->readTrack(i);
            if (!t) return fail(t.error());
        }
    }
    if (format == "json") printJson(**file, (*file)->metadata());
    else printText(**file, (*file)->metadata());
    return 0;
}

const Registrar kInfo({"info", "show what a report holds (session, processes, devices, event counts)", runInfo, false, 50});

}  // namespace
}  // namespace sl::cli
