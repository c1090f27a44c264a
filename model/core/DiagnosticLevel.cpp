#include "model/core/DiagnosticLevel.h"

namespace sl {

DiagnosticLevel diagnosticLevel(std::string_view name) {
    if (name == "cuda.unavailable" || name == "capture.range_window") return DiagnosticLevel::Said;
    if (name == "sampling.frames_unresolved" || name == "capture.from_kept_session" ||
        name == "capture.stream_recovered" || name == "capture.pid_namespaces" ||
        name == "python.samples_joined" || name == "pytorch.enabled" ||
        name == "cuda.cupti_loaded" || name == "cuda.no_driver" || name == "mpi.not_found" ||
        name == "openmp.not_found" || name == "openmp.no_ompt" || name == "cublas.not_found" ||
        name == "cudnn.not_found" || name == "nccl.not_found")
        return DiagnosticLevel::Note;
    return DiagnosticLevel::Warning;
}

}  // namespace sl
