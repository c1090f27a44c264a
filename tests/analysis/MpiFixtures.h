#pragma once
// A hand-built report of MPI calls (EventKind::Mpi) of every class on two ranks, for the stats
// report, details and export tests. Times in ns on the report clock; the session starts at
// 1000, so relative times are these minus 1000:
//   process 100 (rank 0 of 2), comm 0x44000000, threads 100 "main" and 101 "progress":
//     100  MPI_Init       other      [1100, 1300]
//     100  MPI_Send       p2p        [1400, 1450] peer 1, tag 7, 4096 B sent
//     100  MPI_Isend      p2p        [1500, 1510] peer 1, tag 8, 1024 B sent, request 0xa1
//     100  MPI_Wait       startwait  [1520, 1600] request 0xa1
//     101  MPI_Ibarrier   collective [1650, 1690] request 0xc3
//     100  MPI_Allreduce  collective [1700, 1900] 800 B sent, 800 B received
//     100  MPI_Bcast      collective [2000, 2030] root 0, 64 B sent
//     100  MPI_Finalize   other      [3000, 3100]
//   process 200 (rank 1 of 2), comm 0x55d0c0ffee00, thread 200 "main":
//     MPI_Init other [1050, 1350]; MPI_Recv p2p [1380, 1460] peer 0, tag 7, 4096 B received;
//     MPI_Irecv p2p [1490, 1495] peer 0, tag 8, 1024 B received, request 0xb2;
//     MPI_Waitall startwait [1502, 1532] request 0xb2; MPI_Allreduce collective [1720, 1900]
//     800/800 B; MPI_Bcast collective [2005, 2030] root 0, 64 B received; MPI_Finalize other
//     [3010, 3060]
//   process 300 (no rank), thread 300: MPI_Initialized other [4000, 4001]
#include <memory>

#include "model/core/ReportBuilder.h"

namespace sl::test {

constexpr uint64_t kMpiComm0 = 0x44000000, kMpiComm1 = 0x55d0c0ffee00;

inline std::shared_ptr<Report> makeMpiReport() {
    ReportBuilder b;
    Report& r = b.report();
    r.session.startMonotonicNs = 1000;
    r.session.durationNs = 5000;
    r.session.source = "test";
    Process& p0 = b.ensureProcess(100);
    p0.name = "rank0";
    p0.mpiRank = 0;
    p0.mpiWorldSize = 2;
    Process& p1 = b.ensureProcess(200);
    p1.name = "rank1";
    p1.mpiRank = 1;
    p1.mpiWorldSize = 2;
    b.ensureProcess(300).name = "helper";
    b.ensureThread(100, 100).name = "main";
    b.ensureThread(100, 101).name = "progress";
    b.ensureThread(200, 200).name = "main";
    b.ensureThread(300, 300).name = "main";
    using C = MpiCallClass;
    auto call = [&](int64_t pid, int64_t tid, const char* name, int64_t s, int64_t e, C cls, uint64_t comm,
                    int32_t peer, int32_t tag, int32_t root, int64_t bytes, int64_t recv, uint64_t request) {
        const int64_t x[] = {static_cast<int64_t>(cls), static_cast<int64_t>(comm), peer, tag, root, bytes, recv,
                             static_cast<int64_t>(request)};
        b.addRaw(TrackKey::forThread(EventKind::Mpi, pid, tid), s, e, b.intern(name), x);
    };
    call(100, 100, "MPI_Init", 1100, 1300, C::Other, 0, -1, -1, -1, 0, 0, 0);
    call(100, 100, "MPI_Send", 1400, 1450, C::P2p, kMpiComm0, 1, 7, -1, 4096, 0, 0);
    call(100, 100, "MPI_Isend", 1500, 1510, C::P2p, kMpiComm0, 1, 8, -1, 1024, 0, 0xa1);
    call(100, 100, "MPI_Wait", 1520, 1600, C::StartWait, 0, -1, -1, -1, 0, 0, 0xa1);
    call(100, 101, "MPI_Ibarrier", 1650, 1690, C::Collective, kMpiComm0, -1, -1, -1, 0, 0, 0xc3);
    call(100, 100, "MPI_Allreduce", 1700, 1900, C::Collective, kMpiComm0, -1, -1, -1, 800, 800, 0);
    call(100, 100, "MPI_Bcast", 2000, 2030, C::Collective, kMpiComm0, -1, -1, 0, 64, 0, 0);
    call(100, 100, "MPI_Finalize", 3000, 3100, C::Other, 0, -1, -1, -1, 0, 0, 0);
    call(200, 200, "MPI_Init", 1050, 1350, C::Other, 0, -1, -1, -1, 0, 0, 0);
    call(200, 200, "MPI_Recv", 1380, 1460, C::P2p, kMpiComm1, 0, 7, -1, 0, 4096, 0);
    call(200, 200, "MPI_Irecv", 1490, 1495, C::P2p, kMpiComm1, 0, 8, -1, 0, 1024, 0xb2);
    call(200, 200, "MPI_Waitall", 1502, 1532, C::StartWait, 0, -1, -1, -1, 0, 0, 0xb2);
    call(200, 200, "MPI_Allreduce", 1720, 1900, C::Collective, kMpiComm1, -1, -1, -1, 800, 800, 0);
    call(200, 200, "MPI_Bcast", 2005, 2030, C::Collective, kMpiComm1, -1, -1, 0, 0, 64, 0);
    call(200, 200, "MPI_Finalize", 3010, 3060, C::Other, 0, -1, -1, -1, 0, 0, 0);
    call(300, 300, "MPI_Initialized", 4000, 4001, C::Other, 0, -1, -1, -1, 0, 0, 0);
    return b.finish();
}

}  // namespace sl::test
