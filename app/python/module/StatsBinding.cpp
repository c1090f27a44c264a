// Report.stats(): every `sightline stats -r` report, run by the same registry (runReport) on the
// loaded report. The table comes back as plain columns (numpy arrays for numbers, lists for
// text, with null masks); the package's __init__.py turns it into a pandas DataFrame.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "app/python/module/PyReport.h"
#include "model/analysis/StatsReports.h"

namespace py = pybind11;

namespace sl::python {
namespace {

using namespace sl::analysis;

std::string_view measureName(Measure m) {
    switch (m) {
        case Measure::None: return "none";
        case Measure::Duration: return "duration";
        case Measure::Timestamp: return "timestamp";
        case Measure::Percent: return "percent";
        case Measure::Id: return "id";
    }
    return "none";
}

py::dict columnDict(const Table& t, size_t c) {
    const TableColumn& col = t.columns[c];
    py::dict d;
    d["header"] = t.header(c);  // as `stats --format csv` prints it: "Total Time (ns)"
    d["name"] = col.name;
    d["measure"] = std::string(measureName(col.measure));
    d["decimals"] = col.decimals;
    switch (col.type) {
        case CellType::Int:
            d["type"] = "int";
            d["values"] = py::array_t<int64_t>(static_cast<py::ssize_t>(col.ints.size()), col.ints.data());
            break;
        case CellType::Real:
            d["type"] = "real";
            d["values"] = py::array_t<double>(static_cast<py::ssize_t>(col.reals.size()), col.reals.data());
            break;
        case CellType::Text: {
            d["type"] = "text";
            py::list texts;
            for (const auto& s : col.texts) texts.append(toPy(s));
            d["values"] = texts;
            break;
        }
    }
    if (col.nulls.empty()) d["nulls"] = py::none();
    else d["nulls"] = py::array_t<bool>(static_cast<py::ssize_t>(col.nulls.size()),
                                        reinterpret_cast<const bool*>(col.nulls.data()));
    return d;
}

py::dict runStats(const PyReport& self, const std::string& spec, const py::object& start, const py::object& end) {
    const std::string name = spec.substr(0, spec.find(':'));
    const ReportInfo* info = findReport(name);
    if (!info) throw ReportError("unknown stats report '" + name + "' (sightline.stats_reports() lists them)");
    const KindSet missing = info->reads.without(self.loaded);
    for (int raw = 0; raw < 32; ++raw)  // KindSet has a bit per kind id
        if (const KindSchema* s = findSchema(static_cast<uint8_t>(raw)); s && missing.has(s->kind))
            self.requireLoaded(s->kind);
    StatsOptions opts;
    if (!start.is_none()) opts.start = start.cast<int64_t>();
    if (!end.is_none()) opts.end = end.cast<int64_t>();
    Result<Table> table = [&] {
        py::gil_scoped_release unlocked;
        return runReport(self.r(), spec, opts);
    }();
    if (!table) throw ReportError(table.error());
    py::list columns;
    for (size_t c = 0; c < table->columns.size(); ++c) columns.append(columnDict(*table, c));
    py::dict d;
    d["name"] = table->name;
    d["title"] = table->title;
    d["skipped"] = table->skipped;
    d["columns"] = columns;
    return d;
}

}  // namespace

void bindStats(py::module_& m) {
    m.def("stats_reports", [] {
        py::list out;
        for (const ReportInfo& r : allReports()) {
            py::list reads;  // the kinds it reads: what open(path, kinds=...) must load for it
            for (int raw = 0; raw < 32; ++raw)
                if (const KindSchema* s = findSchema(static_cast<uint8_t>(raw)); s && r.reads.has(s->kind))
                    reads.append(std::string(s->id));
            out.append(py::dict(py::arg("name") = std::string(r.name), py::arg("title") = std::string(r.title),
                                py::arg("alias") = std::string(r.alias), py::arg("args") = std::string(r.args),
                                py::arg("default") = r.isDefault, py::arg("description") = std::string(r.description),
                                py::arg("reads") = reads));
        }
        return out;
    }, "Every stats report: name, title, old nsys alias, accepted arguments, default set, description,\n"
       "the event kinds it reads.");
    auto report = py::reinterpret_borrow<py::class_<PyReport, std::shared_ptr<PyReport>>>(m.attr("Report"));
    report.def("_stats", &runStats, py::arg("spec"), py::arg("start") = py::none(), py::arg("end") = py::none(),
               "One stats report (\"name[:arg]\") as plain columns; Report.stats() is the DataFrame form.");
}

}  // namespace sl::python
