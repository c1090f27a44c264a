// sightline.open() and the metadata of a report (session, processes, threads, GPUs, diagnostics,
// tracks, the string table), as plain Python values: metadata is small, so it is copied once.
#include <algorithm>
#include <filesystem>

#include <pybind11/stl.h>

#include "app/python/module/PyReport.h"
#include "model/import/OpenAny.h"

namespace py = pybind11;

namespace sl::python {
namespace {

// kUnknownTime becomes None, so a script cannot mistake it for a time.
py::object timeOrNone(int64_t t) { return t == kUnknownTime ? py::object(py::none()) : py::int_(t); }

py::dict sessionDict(const Session& s) {
    py::dict env;
    for (const auto& [k, v] : s.environment) env[toPy(k)] = toPy(v);
    py::dict d;
    py::list argv;
    for (const auto& a : s.argv) argv.append(toPy(a));
    d["argv"] = argv;
    d["working_directory"] = toPy(s.workingDirectory);
    d["environment"] = env;
    d["host_name"] = s.hostName;
    d["os"] = s.os;
    d["cpu_model"] = s.cpuModel;
    d["tool_version"] = s.toolVersion;
    d["capture_options"] = s.captureOptions;
    d["source"] = s.source;
    d["start_utc_ns"] = s.startUtcNs;
    d["start_monotonic_ns"] = timeOrNone(s.startMonotonicNs);
    d["duration_ns"] = s.durationNs;
    return d;
}

py::list processList(const Report& r) {
    py::list out;
    for (const auto& p : r.processes) {
        py::dict d;
        d["pid"] = p.pid;
        d["parent_pid"] = p.parentPid;
        d["name"] = toPy(p.name);
        d["command_line"] = toPy(p.commandLine);
        d["start_ns"] = timeOrNone(p.start);
        d["end_ns"] = timeOrNone(p.end);
        d["exit_code"] = p.exitCode;
        d["exit_signal"] = p.exitSignal;
        d["mpi_rank"] = p.mpiRank >= 0 ? py::object(py::int_(p.mpiRank)) : py::object(py::none());
        d["mpi_world_size"] = p.mpiRank >= 0 ? py::object(py::int_(p.mpiWorldSize)) : py::object(py::none());
        out.append(d);
    }
    return out;
}

py::list threadList(const Report& r) {
    py::list out;
    for (const auto& t : r.threads)
        out.append(py::dict(py::arg("tid") = t.tid, py::arg("pid") = t.pid, py::arg("name") = toPy(t.name),
                            py::arg("start_ns") = timeOrNone(t.start), py::arg("end_ns") = timeOrNone(t.end)));
    return out;
}

py::list gpuList(const Report& r) {
    py::list out;
    for (const auto& g : r.gpus)
        out.append(py::dict(py::arg("device_id") = g.deviceId, py::arg("name") = g.name, py::arg("uuid") = g.uuid,
                            py::arg("pci_bus_id") = g.pciBusId, py::arg("sm_count") = g.smCount,
                            py::arg("memory_bytes") = g.memoryBytes,
                            py::arg("compute_capability") = std::to_string(g.computeMajor) + "." + std::to_string(g.computeMinor),
                            py::arg("sm_clock_khz") = g.smClockKHz, py::arg("memory_clock_khz") = g.memoryClockKHz));
    return out;
}

py::list diagnosticList(const Report& r) {
    py::list out;
    for (const auto& d : r.diagnostics)
        out.append(py::dict(py::arg("name") = d.name, py::arg("count") = d.count, py::arg("reason") = d.reason,
                            py::arg("pid") = d.pid));
    return out;
}

py::list metricSeriesList(const Report& r) {
    py::list out;
    for (const auto& m : r.metricSeries)
        out.append(py::dict(py::arg("series_id") = m.seriesId, py::arg("name") = m.name, py::arg("unit") = m.unit,
                            py::arg("source") = m.source, py::arg("device_id") = m.deviceId, py::arg("pid") = m.pid));
    return out;
}

py::list nvtxDomainList(const Report& r) {
    py::list out;
    for (const auto& d : r.nvtxDomains)
        out.append(py::dict(py::arg("pid") = d.pid, py::arg("domain_id") = d.domainId, py::arg("name") = d.name));
    return out;
}

std::string_view ownerName(OwnerKind o) {
    switch (o) {
        case OwnerKind::Thread: return "thread";
        case OwnerKind::Stream: return "stream";
        case OwnerKind::Series: return "series";
        case OwnerKind::ProcessDevice: return "process_device";
    }
    return "unknown";
}

// Only the key fields the kind's owner uses (TrackKey leaves the others 0 or -1).
py::dict ownerDict(const TrackKey& k) {
    py::dict d;
    switch (schemaOf(k.kind).owner) {
        case OwnerKind::Thread:
            d["pid"] = k.pid;
            d["tid"] = k.tid;
            if (k.kind == EventKind::NvtxRange || k.kind == EventKind::NvtxMark) d["domain"] = k.domain;
            break;
        case OwnerKind::Stream:
            d["pid"] = k.pid;
            d["device"] = k.device;
            d["context"] = k.context;
            d["stream"] = k.stream;
            break;
        case OwnerKind::Series: d["series"] = k.series; break;
        case OwnerKind::ProcessDevice:
            d["pid"] = k.pid;
            d["device"] = k.device;
            break;
    }
    return d;
}

py::dict schemaDict(const KindSchema& s) {
    static const char* kTypes[] = {"int64", "uint64", "int32", "uint32", "int16", "uint8", "float64"};
    py::list columns;
    for (const auto& c : s.columns)
        columns.append(py::make_tuple(std::string(c.name), kTypes[static_cast<int>(c.type)]));
    return py::dict(py::arg("id") = std::string(s.id), py::arg("label") = std::string(s.label),
                    py::arg("owner") = std::string(ownerName(s.owner)), py::arg("has_end") = s.hasEnd,
                    py::arg("has_name") = s.hasName, py::arg("columns") = columns);
}

// The kinds this build knows, from the schema table (ids are small integers; a kind added to
// model/core appears here without a change to the module).
std::vector<const KindSchema*> knownKinds() {
    std::vector<const KindSchema*> out;
    for (int raw = 0; raw < 256; ++raw)
        if (const KindSchema* s = findSchema(static_cast<uint8_t>(raw))) out.push_back(s);
    return out;
}

std::shared_ptr<PyReport> openReport(const py::object& pathLike, const py::object& kinds, const py::object& pids) {
    const std::string path = py::str(py::module_::import("os").attr("fspath")(pathLike));
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        PyErr_SetString(PyExc_FileNotFoundError, (path + ": no such file").c_str());
        throw py::error_already_set();
    }
    auto out = std::make_shared<PyReport>();
    out->path = path;
    if (!kinds.is_none()) {
        KindSet wanted;
        for (const auto& k : kinds) wanted |= KindSet{kindById(py::str(k)).kind};
        out->loaded = wanted;
    }
    if (!pids.is_none())
        for (const auto& p : pids) out->pids.insert(p.cast<int64_t>());
    ReadOptions ro;
    ro.levelOfDetail = false;  // the timeline's index: nothing here draws
    if (!kinds.is_none() || !out->pids.empty())
        ro.wantTrack = [want = out.get()](const TrackKey& key) { return want->hasEvents(key); };
    Result<std::shared_ptr<Report>> loaded = [&] {
        py::gil_scoped_release unlocked;  // reading decodes on worker threads; let Python run
        return openAnyReport(path, {}, ro);  // an import's unwanted tracks come back emptied
    }();
    if (!loaded) throw ReportError(loaded.error());
    for (int64_t pid : out->pids)
        if (!(*loaded)->findProcess(pid)) throw ReportError(path + ": no process " + std::to_string(pid));
    out->report = std::move(*loaded);
    return out;
}

py::list trackList(const std::shared_ptr<PyReport>& self) {
    py::list out;
    for (size_t i = 0; i < self->r().tracks.size(); ++i) out.append(PyTrack{self, i});
    return out;
}

}  // namespace

const KindSchema& kindById(const std::string& id) {
    if (const KindSchema* s = findSchema(std::string_view(id))) return *s;
    std::string known;
    for (const KindSchema* s : knownKinds()) known += (known.empty() ? "" : ", ") + std::string(s->id);
    throw py::value_error("unknown event kind '" + id + "' (known: " + known + ")");
}

void PyReport::requireLoaded(const TrackKey& track) const {
    requireLoaded(track.kind);
    if (!hasEvents(track))
        throw ReportError(path + ": the tracks of process " + std::to_string(track.pid) +
                          " were not loaded (the report was opened with pids=...)");
}

void PyReport::requireLoaded(EventKind kind) const {
    if (!loaded.has(kind))
        throw ReportError(path + ": kind '" + std::string(schemaOf(kind).id) +
                          "' was not loaded (open the report with it in kinds=...)");
}

void bindReport(py::module_& m) {
    m.def("kinds", [] {
        py::list out;
        for (const KindSchema* s : knownKinds()) out.append(std::string(s->id));
        return out;
    }, "The ids of every event kind this build knows, in schema order.");
    m.def("schema", [](const std::string& id) { return schemaDict(kindById(id)); }, py::arg("kind"),
          "The schema of a kind: label, owner, whether it has an end and a name, its columns and their dtypes.");

    py::class_<PyReport, std::shared_ptr<PyReport>> report(m, "Report", "An opened report (read-only).");
    m.def("open", &openReport, py::arg("path"), py::arg("kinds") = py::none(), py::arg("pids") = py::none(),
          "Opens a report read-only: a .rep file, an nsys SQLite export or a Chrome/Kineto JSON trace.\n"
          "kinds: load only the events of these kinds; pids: only the tracks of these processes (one\n"
          "rank of a report that holds several). Metadata is always complete.");
    report.def_property_readonly("path", [](const PyReport& s) { return s.path; })
        .def_property_readonly("session", [](const PyReport& s) { return sessionDict(s.r().session); })
        .def_property_readonly("processes", [](const PyReport& s) { return processList(s.r()); })
        .def_property_readonly("threads", [](const PyReport& s) { return threadList(s.r()); })
        .def_property_readonly("gpus", [](const PyReport& s) { return gpuList(s.r()); })
        .def_property_readonly("diagnostics", [](const PyReport& s) { return diagnosticList(s.r()); })
        .def_property_readonly("metric_series", [](const PyReport& s) { return metricSeriesList(s.r()); })
        .def_property_readonly("nvtx_domains", [](const PyReport& s) { return nvtxDomainList(s.r()); })
        .def_property_readonly("tracks", &trackList)
        .def_property_readonly("t_min", [](const PyReport& s) { return s.r().tMin(); })
        .def_property_readonly("t_max", [](const PyReport& s) { return s.r().tMax(); })
        .def_property_readonly("time_origin", [](const PyReport& s) { return s.r().timeOrigin(); })
        .def("kinds", [](const PyReport& s) {
            py::list out;
            for (const KindSchema* k : knownKinds())
                for (const auto& t : s.r().tracks)
                    if (t.key.kind == k->kind) {
                        out.append(std::string(k->id));
                        break;
                    }
            return out;
        }, "The ids of the kinds that have tracks in this report.")
        .def("event_count", [](const PyReport& s, const py::object& kind) {
            if (kind.is_none()) return s.r().eventCount();
            const KindSchema& k = kindById(py::str(kind));
            s.requireLoaded(k.kind);
            return s.r().eventCount(k.kind);
        }, py::arg("kind") = py::none(), "Events in the report, or of one kind.")
        .def("string", [](const PyReport& s, uint32_t id) {
            if (id >= s.r().strings.size())
                throw py::index_error("string id " + std::to_string(id) + " is not in the string table (" +
                                      std::to_string(s.r().strings.size()) + " strings)");
            return toPy(s.r().str(id));
        }, py::arg("id"), "The string of a name id.")
        .def_property_readonly("string_count", [](const PyReport& s) { return s.r().strings.size(); })
        .def("call_stack", [](const PyReport& s, uint32_t id) {
            const Report& r = s.r();
            if (id >= r.callStacks.size())
                throw py::index_error("call stack " + std::to_string(id) + " is not in the report (" +
                                      std::to_string(r.callStacks.size()) + " stacks)");
            py::list out;
            for (uint32_t f : r.callStacks[id].frames) {
                const StackFrame& frame = r.stackFrames.at(f);
                py::dict d;
                d["function"] = toPy(r.str(frame.function));
                d["module"] = toPy(r.str(frame.module));
                d["offset"] = frame.offset;
                d["python"] = r.isPythonFrame(frame);
                d["text"] = toPy(r.frameText(f));
                out.append(std::move(d));
            }
            return out;
        }, py::arg("id"),
             "The frames of a call stack, leaf first: the `stack` column of cpu_sample events.\n"
             "Each frame: function, module, offset (a Python frame: its source file and line), python, text.")
        .def_property_readonly("call_stack_count", [](const PyReport& s) { return s.r().callStacks.size(); })
        .def("__repr__", [](const PyReport& s) {
            return "<sightline.Report " + s.path + ": " + std::to_string(s.r().eventCount()) + " events in " +
                   std::to_string(s.r().tracks.size()) + " tracks>";
        });

    py::class_<PyTrack>(m, "Track", "The events of one kind with one owner.")
        .def_property_readonly("index", [](const PyTrack& t) { return t.index; })
        .def_property_readonly("kind", [](const PyTrack& t) { return std::string(t.t().schema().id); })
        .def_property_readonly("owner_kind", [](const PyTrack& t) { return std::string(ownerName(t.t().schema().owner)); })
        .def_property_readonly("owner", [](const PyTrack& t) { return ownerDict(t.t().key); })
        .def_property_readonly("title", [](const PyTrack& t) { return toPy(t.owner->r().trackTitle(t.t())); })
        .def_property_readonly("event_count", [](const PyTrack& t) {
            t.owner->requireLoaded(t.t().key);
            return t.t().size();
        })
        .def_property_readonly("lanes", [](const PyTrack& t) { return t.t().laneCount(); })
        .def("__len__", [](const PyTrack& t) {
            t.owner->requireLoaded(t.t().key);
            return t.t().size();
        })
        .def("__repr__", [](const PyTrack& t) {
            return "<sightline.Track " + std::to_string(t.index) + " " + std::string(t.t().schema().id) + ": " +
                   t.owner->r().trackTitle(t.t()) + ", " + std::to_string(t.t().size()) + " events>";
        });
}

}  // namespace sl::python
