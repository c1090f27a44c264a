#pragma once
// nsys's DIAGNOSTIC_EVENT.severity values (its ENUM_DIAGNOSTIC_SEVERITY_LEVEL ids), read by the
// nsys import (where an export lacks the enum table) and written by the SQLite export: one
// definition for both.
#include <cstdint>

namespace sl::nsys {

constexpr int64_t kDiagnosticInfo = 1;
constexpr int64_t kDiagnosticWarning = 2;
constexpr int64_t kDiagnosticError = 3;
constexpr int64_t kDiagnosticFatal = 4;

}  // namespace sl::nsys
