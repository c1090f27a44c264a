#pragma once
// Two hand-built reports with known differences for the compare tests (times in ns):
// baseline: session start 1000; NVTX "step" at 1100-1300, 1400-1600, 1700-1900 and "warmup"
//   at 1010-1090; kernel kA at 1150-1250 and 1450-1550; cudaLaunchKernel 1120-1130, 1420-1430.
// comparison: session start 5000; NVTX "step" at 5200-5500 and 5600-5900, "init" at
//   5010-5100; kernel kA at 5250-5400, kB at 5650-5700; cudaLaunchKernel 5220-5230.
#include <memory>

#include "model/core/ReportBuilder.h"

namespace sl::test {

std::shared_ptr<Report> makeBaselineReport();
std::shared_ptr<Report> makeComparisonReport();

}  // namespace sl::test
