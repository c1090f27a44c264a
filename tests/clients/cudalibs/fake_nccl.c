/* A stand-in libnccl.so.2 for the -t nccl tests: the real NCCL needs GPUs to make a
 * communicator, so this one makes them without (comms[i] = 0x1000 + i, of rank i among ndev),
 * so the profiler's per-communicator rank and size (ncclCommUserRank, ncclCommCount) and the
 * success path are tested. Only the functions cudalibs_calls.h calls, plus those two. */
#include <nccl.h>
#include <stdint.h>
#include <unistd.h>

#define COMM_BASE 0x1000

ncclResult_t ncclGetVersion(int* version) {
    *version = 99999;
    return ncclSuccess;
}
ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
    (void)devlist;
    if (ndev < 1 || ndev > 64) return ncclInvalidArgument;
    for (int i = 0; i < ndev; ++i) comms[i] = (ncclComm_t)(uintptr_t)(COMM_BASE + (ndev << 8) + i);
    return ncclSuccess;
}
static int valid(ncclComm_t c) { return (uintptr_t)c >= COMM_BASE && (uintptr_t)c < COMM_BASE + 0x10000; }
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
    if (!valid(comm)) return ncclInvalidArgument;
    *rank = (int)(((uintptr_t)comm - COMM_BASE) & 0xff);
    return ncclSuccess;
}
ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
    if (!valid(comm)) return ncclInvalidArgument;
    *count = (int)(((uintptr_t)comm - COMM_BASE) >> 8);
    return ncclSuccess;
}
ncclResult_t ncclAllReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream) {
    (void)s, (void)r, (void)n, (void)t, (void)op, (void)stream;
    return valid(comm) ? ncclSuccess : ncclInvalidArgument;
}
ncclResult_t ncclBroadcast(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t comm,
                           cudaStream_t stream) {
    (void)s, (void)r, (void)n, (void)t, (void)root, (void)stream;
    return valid(comm) ? ncclSuccess : ncclInvalidArgument;
}
ncclResult_t ncclSend(const void* s, size_t n, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t stream) {
    (void)s, (void)n, (void)t, (void)peer, (void)stream;
    return valid(comm) ? ncclSuccess : ncclInvalidArgument;
}
/* Sleeps 3 ms: a slow OS runtime call made inside the library, whose native stack
 * (--osrt-backtrace-threshold) must go from this function straight to the program's caller,
 * without the profiler's wrapper between them. */
ncclResult_t ncclCommDestroy(ncclComm_t comm) {
    usleep(3000);
    return valid(comm) ? ncclSuccess : ncclInvalidArgument;
}
