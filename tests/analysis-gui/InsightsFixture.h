#pragma once
// Reports whose `analyze` findings are known by hand, for the Insights dock and the compare
// view's findings (times in ns, origin 0). Process 10 ("app"), threads 11 ("main") and 12
// ("worker"), GPU 0 stream 7:
//   main:   cudaLaunchKernel [9 ms, 9.01 ms]        -> kernel k1 [10 ms, 110 ms]
//   main:   cudaDeviceSynchronize [9.02 ms, 110 ms]    (waits for k1)
//   worker: cudaLaunchKernel [105 ms, 105.01 ms]    -> kernel k2 [710 ms, 790 ms]
// Warnings, by time lost: gpu_gaps (the GPU idle 600 ms between k1 and k2, over the 500 ms
// threshold), gpu_time_util (GPU time [10, 790] ms in 30 chunks of 26 ms; chunks 4-26,
// [114, 712) ms, are under 50% in use: 596 ms idle in them), cuda_api_sync (100.98 ms). k2 was
// launched before k1 ended, so gpu_idle_breakdown finds no host wait (info).
#include <memory>

#include "model/core/ReportBuilder.h"

namespace sl::test {

inline constexpr int64_t kMs = 1'000'000;

// `syncEnd`: where cudaDeviceSynchronize and k1 end (110 ms above); `secondKernel`: whether
// k2 and its launch exist (without them the GPU has no gap).
std::shared_ptr<Report> makeInsightsReport(int64_t syncEnd = 110 * kMs, bool secondKernel = true);

}  // namespace sl::test
