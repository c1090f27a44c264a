// Events as numpy arrays. A track's start, end, name and every column stored as a vector of its
// own width are zero-copy, read-only views whose base holds the Report (so they outlive the
// Python Report object safely); a column of one repeated value (Column::uniform) becomes a
// read-only stride-0 view of that one value. Events of a kind over all tracks are copied into
// one array per column, with the track index of each event.
#include <cstring>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "app/python/module/PyReport.h"

namespace py = pybind11;

namespace sl::python {
namespace {

// Calls f.template operator()<T>() with the C++ type of a schema column type.
template <class F>
decltype(auto) withType(ColumnType type, F&& f) {
    switch (type) {
        case ColumnType::I64: return f.template operator()<int64_t>();
        case ColumnType::U64: return f.template operator()<uint64_t>();
        case ColumnType::I32: return f.template operator()<int32_t>();
        case ColumnType::U32: return f.template operator()<uint32_t>();
        case ColumnType::I16: return f.template operator()<int16_t>();
        case ColumnType::U8: return f.template operator()<uint8_t>();
        case ColumnType::F64: return f.template operator()<double>();
    }
    throw ReportError("unknown column type");
}

// A capsule owning a reference to the report: the base object of every view.
py::capsule keepAlive(const std::shared_ptr<const Report>& r) {
    return py::capsule(new std::shared_ptr<const Report>(r),
                       [](void* p) { delete static_cast<std::shared_ptr<const Report>*>(p); });
}

template <class T>
py::array readOnlyView(const T* data, size_t n, py::ssize_t stride, const py::object& base) {
    py::array_t<T> a({static_cast<py::ssize_t>(n)}, {stride}, data, base);
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return a;
}

template <class T>
py::array vectorView(const std::vector<T>& v, const py::object& base) {
    static const T kNone{};  // an empty vector may have no data pointer
    return readOnlyView<T>(v.empty() ? &kNone : v.data(), v.size(), sizeof(T), base);
}

// The uniform value lives in the capsule so the stride-0 view has storage to point at.
template <class T>
py::array uniformView(T value, size_t n, const std::shared_ptr<const Report>& r) {
    struct Held {
        std::shared_ptr<const Report> report;
        T value;
    };
    auto* held = new Held{r, value};
    py::capsule base(held, [](void* p) { delete static_cast<Held*>(p); });
    return readOnlyView<T>(&held->value, n, 0, base);
}

py::array columnView(const Column& c, const std::shared_ptr<const Report>& r, const py::object& base) {
    return withType(c.type(), [&]<class T>() -> py::array {
        if (c.uniform()) return uniformView<T>(c.view<T>().size() ? c.view<T>()[0] : T{}, c.size(), r);
        // Written out, values<T>() only returns the vector (writeOut is a no-op); the report is
        // immutable and nothing is changed through it.
        return vectorView(const_cast<Column&>(c).values<T>(), base);
    });
}

py::dict trackEvents(const PyTrack& self) {
    const Track& t = self.t();
    self.owner->requireLoaded(t.key);
    const KindSchema& s = t.schema();
    const auto& r = self.owner->report;
    py::object base = keepAlive(r);
    py::dict d;
    d["start"] = vectorView(t.start, base);
    // Instants have no end column: their end is their start (the same memory).
    d["end"] = s.hasEnd ? vectorView(t.end, base) : d["start"];
    if (s.hasName) d["name"] = vectorView(t.name, base);
    for (size_t c = 0; c < s.columns.size() && c < t.cols.size(); ++c)
        d[py::str(std::string(s.columns[c].name))] = columnView(t.cols[c], r, base);
    return d;
}

// Copies `part` of each track into one array.
template <class T, class Get>
py::array concat(const std::vector<const Track*>& tracks, size_t total, Get get) {
    py::array_t<T> out(static_cast<py::ssize_t>(total));
    T* dst = out.mutable_data();
    for (const Track* t : tracks) dst = get(*t, dst);
    return out;
}

py::dict kindEvents(const PyReport& self, const std::string& kindId) {
    const KindSchema& s = kindById(kindId);
    self.requireLoaded(s.kind);
    std::vector<const Track*> tracks;
    std::vector<uint32_t> trackIndex;
    size_t total = 0;
    for (size_t i = 0; i < self.r().tracks.size(); ++i)
        if (self.r().tracks[i].key.kind == s.kind && self.hasEvents(self.r().tracks[i].key)) {
            tracks.push_back(&self.r().tracks[i]);
            trackIndex.push_back(static_cast<uint32_t>(i));
            total += self.r().tracks[i].size();
        }
    auto copyVec = [&](auto member) {
        using T = typename std::remove_reference_t<decltype(tracks[0]->*member)>::value_type;
        return concat<T>(tracks, total, [member](const Track& t, T* dst) {
            if (!(t.*member).empty()) std::memcpy(dst, (t.*member).data(), t.size() * sizeof(T));
            return dst + t.size();
        });
    };
    py::dict d;
    {
        size_t k = 0;
        d["track"] = concat<uint32_t>(tracks, total, [&](const Track& t, uint32_t* dst) {
            std::fill(dst, dst + t.size(), trackIndex[k++]);
            return dst + t.size();
        });
    }
    d["start"] = copyVec(&Track::start);
    d["end"] = s.hasEnd ? copyVec(&Track::end) : d["start"];
    if (s.hasName) d["name"] = copyVec(&Track::name);
    for (size_t c = 0; c < s.columns.size(); ++c)
        d[py::str(std::string(s.columns[c].name))] = withType(s.columns[c].type, [&]<class T>() {
            return concat<T>(tracks, total, [c](const Track& t, T* dst) {
                if (c < t.cols.size()) {
                    const ColumnView<T> v = t.cols[c].view<T>();
                    std::copy(v.begin(), v.end(), dst);
                } else {
                    std::fill(dst, dst + t.size(), T{});  // a column newer than the file
                }
                return dst + t.size();
            });
        });
    return d;
}

}  // namespace

void bindEvents(py::module_& m) {
    auto report = py::reinterpret_borrow<py::class_<PyReport, std::shared_ptr<PyReport>>>(m.attr("Report"));
    report.def("events", &kindEvents, py::arg("kind"),
               "The events of one kind over all its loaded tracks, as numpy arrays (copied): track (index into\n"
               "tracks), start, end, name (kinds with names) and the kind's schema columns.");
    report.def("strings", [](const PyReport& s, const py::array_t<uint32_t, py::array::forcecast>& ids) {
        const auto& st = s.r().strings;
        py::list out;
        for (py::ssize_t i = 0; i < ids.size(); ++i) {
            const uint32_t id = ids.data()[i];
            if (id >= st.size()) throw py::index_error("string id " + std::to_string(id) + " is not in the string table");
            out.append(toPy(st.get(id)));
        }
        return out;
    }, py::arg("ids"), "The strings of an array of name ids, as a list.");
    report.def("string_table", [](const PyReport& s) {
        py::list out;
        for (size_t i = 0; i < s.r().strings.size(); ++i) out.append(toPy(s.r().strings.get(static_cast<uint32_t>(i))));
        return out;
    }, "Every string, indexed by name id (for pandas.Categorical.from_codes).");
    auto track = py::reinterpret_borrow<py::class_<PyTrack>>(m.attr("Track"));
    track.def("events", &trackEvents,
              "The track's events as read-only numpy arrays viewing the report's memory: start, end,\n"
              "name (kinds with names) and the kind's schema columns. Ordered by lane, then start.");
    track.def_property_readonly("lane_offsets", [](const PyTrack& t) {
        t.owner->requireLoaded(t.t().key);
        return vectorView(t.t().laneOffsets, keepAlive(t.owner->report));
    }, "Lane l holds events [lane_offsets[l], lane_offsets[l+1]).");
}

}  // namespace sl::python
