#pragma once
// A hand-built report whose selection statistics, events view and correlations are known by
// hand. Times in ns. Process 1 ("app"), thread 2 ("main"); GPU 0 context 1 streams 7 and 8;
// GPU 1 context 1 stream 9.
//   API (thread 2)                 -> GPU operation
//   c1 cudaLaunchKernel [100,120]  -> kernel kA  stream 7 [200,300]  grid 4x1x1 block 256x1x1, 32 regs
//   c2 cudaLaunchKernel [130,150]  -> kernel kA  stream 7 [300,450]
//   c3 cudaMemcpyAsync  [160,170]  -> memcpy HtoD stream 8 [250,350] 1000 B
//   c4 cudaLaunchKernel [400,420]  -> kernel kB  stream 8 [500,700]  grid 8x2x1 block 128x1x1, 40 regs
//   c5 cudaMemcpyAsync  [430,440]  -> memcpy DtoH stream 7 [600,650] 2000 B
//   c6 cudaLaunchKernel [50,60]    -> kernel kA  GPU 1 stream 9 [0,1000]
//   NVTX (thread 2): "step" [90,180] (holds c1-c3), "step2" [390,445] (holds c4, c5)
#include <memory>

#include "model/core/ReportBuilder.h"

namespace sl::test {

std::shared_ptr<Report> makeAnalysisReport();

// One kernel track of `n` kernels named k0..k(names-1) on GPU 0 stream 1, start = 10*i,
// duration = (i * 7919) % 1000 + 1 (a scrambled but known order).
std::shared_ptr<Report> makeBigKernelTrack(size_t n, uint32_t names);

}  // namespace sl::test
