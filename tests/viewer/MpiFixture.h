#pragma once
// A two-rank MPI report for the viewer tests (-t mpi): times are relative to kOrigin, in ms.
//   Process 50 "mpirun" (no rank) > Thread 50: OS runtime waitpid [0, 10].
//   Process 200 "mpi_app", rank 1 (listed before rank 0) > Thread 200 "mpi_app":
//     MPI_Init [0, 0.6], MPI_Recv from 0 tag 7 4096 B [0.8, 1.5], MPI_Allreduce [1.6, 3],
//     MPI_Recv from 0 tag 8 1 MiB [4, 6], MPI_Bcast root 0 [6, 7], MPI_Barrier [7, 9],
//     MPI_Finalize [9.5, 10].
//   Process 100 "mpi_app", rank 0 > Thread 100 "mpi_app":
//     MPI_Init [0, 0.5], MPI_Send to 1 tag 7 4096 B [1, 1.5], MPI_Allreduce [2, 3],
//     MPI_Isend to 1 tag 8 1 MiB [4, 4.1], MPI_Wait [4.1, 6], MPI_Bcast root 0 [6.5, 7],
//     MPI_Barrier [8, 9], MPI_Finalize [9.5, 10];
//   and Thread 102 "progress": OS runtime poll [0, 5] and [5, 10], no MPI.
#include <memory>
#include <string>

#include "model/core/ReportBuilder.h"

namespace sl::test {

struct MpiCallSpec {
    const char* name;
    MpiCallClass cls;
    double startMs, endMs;
    int32_t peer = -1, tag = -1, root = -1;
    int64_t bytes = 0, recvBytes = 0;
    uint64_t request = 0;
};

inline void addMpiCall(ReportBuilder& b, int64_t pid, int64_t tid, int64_t origin,
                       const MpiCallSpec& c) {
    constexpr double kMsNs = 1e6;
    const int64_t extra[] = {
        static_cast<int64_t>(c.cls),    0x44000001, c.peer, c.tag, c.root, c.bytes, c.recvBytes,
        static_cast<int64_t>(c.request)};
    b.addRaw(TrackKey::forThread(EventKind::Mpi, pid, tid),
             origin + static_cast<int64_t>(c.startMs * kMsNs),
             origin + static_cast<int64_t>(c.endMs * kMsNs), b.intern(c.name), extra);
}

inline std::shared_ptr<Report> makeMpiReport() {
    constexpr int64_t kOrigin = 1'000'000'000, kMs = 1'000'000;
    ReportBuilder b;
    Report& r = b.report();
    r.session.source = "test";
    r.session.startMonotonicNs = kOrigin;
    r.session.durationNs = 10 * kMs;
    auto process = [&](int64_t pid, const char* name, int32_t rank) {
        Process p;
        p.pid = pid;
        p.parentPid = 50;
        p.name = name;
        p.commandLine = std::string("./") + name;
        p.start = kOrigin;
        p.end = kOrigin + 10 * kMs;
        p.mpiRank = rank;
        p.mpiWorldSize = rank >= 0 ? 2 : 0;
        r.processes.push_back(p);
        r.threads.push_back({pid, pid, name, kOrigin, kOrigin + 10 * kMs});
    };
    process(50, "mpirun", -1);
    process(200, "mpi_app", 1);
    process(100, "mpi_app", 0);
    r.threads.push_back({102, 100, "progress", kOrigin, kOrigin + 10 * kMs});

    b.add(OsRuntimeCall{50, 50, kOrigin, kOrigin + 10 * kMs, b.intern("waitpid"), 0, 0});
    b.add(OsRuntimeCall{100, 102, kOrigin, kOrigin + 5 * kMs, b.intern("poll"), 0, 0});
    b.add(OsRuntimeCall{100, 102, kOrigin + 5 * kMs, kOrigin + 10 * kMs, b.intern("poll"), 0, 0});

    using C = MpiCallClass;
    const MpiCallSpec rank0[] = {
        {"MPI_Init", C::Other, 0, 0.5},
        {"MPI_Send", C::P2p, 1, 1.5, 1, 7, -1, 4096, 0, 0},
        {"MPI_Allreduce", C::Collective, 2, 3, -1, -1, -1, 8, 8, 0},
        {"MPI_Isend", C::P2p, 4, 4.1, 1, 8, -1, 1 << 20, 0, 0x10},
        {"MPI_Wait", C::StartWait, 4.1, 6, -1, -1, -1, 0, 0, 0x10},
        {"MPI_Bcast", C::Collective, 6.5, 7, -1, -1, 0, 64, 0, 0},
        {"MPI_Barrier", C::Collective, 8, 9},
        {"MPI_Finalize", C::Other, 9.5, 10},
    };
    const MpiCallSpec rank1[] = {
        {"MPI_Init", C::Other, 0, 0.6},
        {"MPI_Recv", C::P2p, 0.8, 1.5, 0, 7, -1, 0, 4096, 0},
        {"MPI_Allreduce", C::Collective, 1.6, 3, -1, -1, -1, 8, 8, 0},
        {"MPI_Recv", C::P2p, 4, 6, 0, 8, -1, 0, 1 << 20, 0},
        {"MPI_Bcast", C::Collective, 6, 7, -1, -1, 0, 0, 64, 0},
        {"MPI_Barrier", C::Collective, 7, 9},
        {"MPI_Finalize", C::Other, 9.5, 10},
    };
    for (const MpiCallSpec& c : rank0) addMpiCall(b, 100, 100, kOrigin, c);
    for (const MpiCallSpec& c : rank1) addMpiCall(b, 200, 200, kOrigin, c);
    return b.finish();
}

}  // namespace sl::test
