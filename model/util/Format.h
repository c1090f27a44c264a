#pragma once
// Human-readable formatting of times, durations and sizes for CLI output.
#include <cstdint>
#include <string>

namespace sl {

std::string formatDuration(int64_t ns);    // "1.234 ms", "2.500 s", "850 ns"
std::string formatUtc(int64_t nsSinceEpoch);  // "2026-11-21 10:00:00.123 UTC"
std::string formatBytes(uint64_t bytes);   // "1.50 MiB"
std::string formatCount(uint64_t n);       // "12,345,678"

}  // namespace sl
