#pragma once
// The Python module's view of one opened report: the loaded Report (immutable, shared with every
// numpy array that views its columns, so an array keeps the report alive after the Python Report
// object is gone), the path it came from and which kinds were loaded (open(path, kinds=...)).
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include <pybind11/pybind11.h>

#include "model/core/Report.h"

namespace sl::python {

// Raised for everything the reader or an analysis refuses; the message is theirs
// (sightline.ReportError in Python).
struct ReportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct PyReport {
    std::shared_ptr<const Report> report;
    std::string path;
    KindSet loaded = KindSet::all();
    // open(path, pids=...): only these processes' tracks have events (one rank of a report
    // that holds several); empty: every process.
    std::set<int64_t> pids;

    const Report& r() const { return *report; }
    bool hasEvents(const TrackKey& k) const { return loaded.has(k.kind) && (pids.empty() || pids.count(k.pid)); }
    // Throw ReportError when a kind or a track was left out by open(path, kinds=..., pids=...):
    // its tracks have keys but no events, and empty arrays would be a silent wrong answer.
    void requireLoaded(EventKind kind) const;
    void requireLoaded(const TrackKey& track) const;
};

// A track of an opened report, by its index in Report::tracks.
struct PyTrack {
    std::shared_ptr<PyReport> owner;
    size_t index = 0;
    const Track& t() const { return owner->r().tracks[index]; }
};

// Each binds one part of the module (ReportBinding.cpp, EventArrays.cpp, StatsBinding.cpp).
void bindReport(pybind11::module_& m);
void bindEvents(pybind11::module_& m);
void bindStats(pybind11::module_& m);

// A string of the report as a Python str. Names come from traced binaries and imported files and
// are not always valid UTF-8: bad bytes become U+FFFD instead of failing the whole call.
inline pybind11::str toPy(std::string_view s) {
    PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
    if (!o) throw pybind11::error_already_set();
    return pybind11::reinterpret_steal<pybind11::str>(o);
}

// The schema of a kind by its id ("kernel"), or a ValueError naming the known ids.
const KindSchema& kindById(const std::string& id);

}  // namespace sl::python
