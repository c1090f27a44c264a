#pragma once
// Hand-built reports with known numbers for the analysis tests. Every value used by an
// expectation is written here, so the expected results can be checked by hand.
#include <memory>

#include "model/core/ReportBuilder.h"

namespace sl::test {

// Process 10 with threads 11 and 12; GPU 0 stream 7. Times in ns:
//   thread 11: NVTX A "outer" [100,1000] > B "inner1" [150,400] > (domain 1 "data") F [150,250];
//              C "inner2" [450,900]; E start/end [100,2000] ended by thread 12 (excluded).
//   API c1 cudaLaunchKernel [160,180] -> kernel k1 [500,600]
//   API c2 cudaMemcpyAsync  [200,220] -> memcpy HtoD [650,700], 1000 bytes
//   API c3 cudaLaunchKernel [460,950] -> kernel k2 [1200,1300]   (inside A, not inside C)
//   API c4 cudaLaunchKernel [1100,1120] -> kernel k1 [1400,1500] (outside every range)
//   thread 12: NVTX D "idle" [100,2000] with no API calls of its own.
// Process 20 reuses correlation id 1: API [50,60] thread 21 -> kernel k2 on GPU 1 [70,90].
std::shared_ptr<Report> makeProjectionReport();

// Known durations for the summaries (process 7, thread 8, GPU 0 stream 1; session start 1000):
//   kernel "kA" x4: 100, 200, 300, 400 ns; kernel "kB" x3: 50, 50, 80 ns (launched by
//   cudaLaunchKernel_v7000 calls of 10 ns each, 5 ns before the kernel starts);
//   memcpy HtoD 2 x 1,000,000 B (1000 and 3000 ns), DtoH 1 x 500,000 B (2000 ns); memset 1 x 64 B (10 ns);
//   OS runtime: read x2 (10, 30 ns), write x1 (5 ns); NVTX push/pop "step" x2 (1000, 3000 ns)
//   and a start/end "io" in domain "disk" (500 ns); thread running 2 slices (700 + 300 ns) on CPUs 0, 3.
std::shared_ptr<Report> makeStatsReport();
// makeStatsReport() with changes, for diff: kA takes twice as long (x4: 200..800), kB is gone,
// a new kernel "kC" x1 (1000 ns) appears; one more write (15 ns).
std::shared_ptr<Report> makeStatsReportChanged();

}  // namespace sl::test
