#pragma once
// A hand-built report of CPU samples with known call stacks, for the sample_sum, export and
// round-trip tests. Every number an expectation uses can be derived from the comment below.
#include <memory>

#include "model/core/Report.h"

namespace sl::test {

// Process 5 ("app"), threads 6 and 7; modules /usr/bin/app and /usr/lib/libm.so.6. Stacks
// (leaf first), CPU in brackets, times in ns from a session start of 0:
//   S1 square < compute < main           thread 6 at 100, 200, 300, 400 [cpu 0]
//   S2 sqrt(libm) < compute < main       thread 6 at 500, 600, 700      [cpu 1]
//   S3 compute < main                    thread 6 at 800, 900           [cpu 1]
//   S4 libm+0x1234 (unresolved) < sqrt < compute < main   thread 7 at 1000 [cpu 2]
//   S5 recurse < recurse < main          thread 7 at 1100, 1200         [cpu -1: unknown]
// 12 samples, 6 distinct frames, 5 distinct stacks.
std::shared_ptr<Report> makeSampleReport();

}  // namespace sl::test
