#pragma once
// How much a diagnostic of the report matters, by its name: one definition for the end-of-capture
// summary ("warning: " / "note: "), and the severity exports give it (DIAGNOSTIC_EVENT).
#include <string_view>

namespace sl {

enum class DiagnosticLevel {
    Said,     // the profiler already said it while capturing (the unavailable CUDA module)
    Note,     // loses nothing (frames without a symbol are still in the report as module+offset)
    Warning,  // data lost or left out
};

DiagnosticLevel diagnosticLevel(std::string_view name);

}  // namespace sl
