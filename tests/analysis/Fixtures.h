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

}  // namespace sl::test
