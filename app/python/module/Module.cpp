// sightline._core: the compiled half of `import sightline` (issue #20). The package's
// __init__.py re-exports it and adds the pandas conversion.
#include <pybind11/pybind11.h>

#include "app/python/module/PyReport.h"

namespace py = pybind11;

PYBIND11_MODULE(_core, m) {
    m.doc() = "Read-only access to Sightline reports (.rep, nsys SQLite exports, Kineto JSON).";
    py::register_exception<sl::python::ReportError>(m, "ReportError", PyExc_RuntimeError);
    sl::python::bindReport(m);
    sl::python::bindEvents(m);
    sl::python::bindStats(m);
}
