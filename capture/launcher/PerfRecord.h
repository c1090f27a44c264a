#pragma once
// Reading perf ring records (CpuSampler, SchedTracer): fields at byte offsets, copied out (the
// record bytes carry no alignment), and the sample_id trailer both tracers ask for
// (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU: pid, tid, time, cpu, res).
#include <cstdint>
#include <cstring>

namespace sl::capture::perf {

template <class T>
T load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

constexpr uint64_t kSampleIdBytes = 24;
// The time in the sample_id trailer of a record of `size` bytes starting at `record`.
inline uint64_t trailerTime(const uint8_t* record, uint64_t size) {
    return load<uint64_t>(record + size - 16);
}

}  // namespace sl::capture::perf
