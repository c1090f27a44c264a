// setrlimit and prlimit of RLIMIT_AS: a program lowering its own address-space limit (a test
// harness, a sandbox, Python's resource.setrlimit) must keep the room it would have without
// the capture. The buffers give back what is past their share of the new limit first
// (ProcessWriter::fitAddressSpace); the call itself is the program's, unchanged.
#include <sys/resource.h>

#include "capture/inject/InjectCommon.h"

namespace sl::inject {
namespace {

void beforeAddressSpaceLimit(int resource, const struct rlimit* limit) {
    if (resource != RLIMIT_AS || !limit || limit->rlim_cur == RLIM_INFINITY ||
        ProcessWriter::inTool() || ProcessWriter::inVforkChild())
        return;
    ProcessWriter::fitAddressSpace(static_cast<uint64_t>(limit->rlim_cur));
}

}  // namespace

SL_EXPORT int setrlimit(__rlimit_resource_t resource, const struct rlimit* limit) {
    SL_REAL(setrlimit);
    beforeAddressSpaceLimit(resource, limit);
    return real_setrlimit.get()(resource, limit);
}

SL_EXPORT int setrlimit64(__rlimit_resource_t resource, const struct rlimit64* limit) {
    SL_REAL(setrlimit64);
    beforeAddressSpaceLimit(resource, reinterpret_cast<const struct rlimit*>(limit));
    return real_setrlimit64.get()(resource, limit);
}

// prlimit of another process changes nothing here.
SL_EXPORT int prlimit(pid_t pid, enum __rlimit_resource resource, const struct rlimit* limit,
                      struct rlimit* old) {
    SL_REAL(prlimit);
    if (pid == 0 || pid == getpid()) beforeAddressSpaceLimit(resource, limit);
    return real_prlimit.get()(pid, resource, limit, old);
}

SL_EXPORT int prlimit64(pid_t pid, enum __rlimit_resource resource, const struct rlimit64* limit,
                        struct rlimit64* old) {
    SL_REAL(prlimit64);
    if (pid == 0 || pid == getpid())
        beforeAddressSpaceLimit(resource, reinterpret_cast<const struct rlimit*>(limit));
    return real_prlimit64.get()(pid, resource, limit, old);
}

}  // namespace sl::inject
