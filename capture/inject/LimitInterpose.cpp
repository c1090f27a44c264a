// setrlimit and prlimit of RLIMIT_AS: a program lowering its own address-space limit (a test
// harness, a sandbox, Python's resource.setrlimit) must keep the room it would have without
// the capture. Once the call succeeded, the buffers give back what is past their share of the
// new limit (ProcessWriter::fitAddressSpace; unmapping needs no room under it); the call itself
// is the program's, unchanged.
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "capture/inject/InjectCommon.h"

namespace sl::inject {
namespace {

// After the program's call succeeded (a refused one changes no limit): the buffers fit the
// new limit, given back to their default when it is raised again.
int afterAddressSpaceLimit(int result, int resource, const struct rlimit* limit) {
    if (result != 0 || resource != RLIMIT_AS || !limit || ProcessWriter::inTool() ||
        ProcessWriter::inVforkChild())
        return result;
    const int saved = errno;
    ProcessWriter::fitAddressSpace(limit->rlim_cur == RLIM_INFINITY
                                       ? UINT64_MAX
                                       : static_cast<uint64_t>(limit->rlim_cur));
    errno = saved;
    return result;
}

}  // namespace

// The kernel's call, not libc's through dlsym: a sanitizer runtime preloaded with the module
// calls setrlimit (RLIMIT_CORE) while it starts, before dlsym may be used, and the program
// died at its start (the sanitizer build's tests found it). glibc's setrlimit, setrlimit64 and
// prlimit are this same system call on 64-bit Linux.
static long limitCall(pid_t pid, int resource, const void* limit, void* old) {
    return syscall(SYS_prlimit64, pid, resource, limit, old);
}

SL_EXPORT int setrlimit(__rlimit_resource_t resource, const struct rlimit* limit) {
    const int r = static_cast<int>(limitCall(0, resource, limit, nullptr));
    return afterAddressSpaceLimit(r, resource, limit);
}

SL_EXPORT int setrlimit64(__rlimit_resource_t resource, const struct rlimit64* limit) {
    const int r = static_cast<int>(limitCall(0, resource, limit, nullptr));
    return afterAddressSpaceLimit(r, resource, reinterpret_cast<const struct rlimit*>(limit));
}

// prlimit of another process changes nothing here.
SL_EXPORT int prlimit(pid_t pid, enum __rlimit_resource resource, const struct rlimit* limit,
                      struct rlimit* old) {
    const int r = static_cast<int>(limitCall(pid, resource, limit, old));
    return pid == 0 || pid == getpid() ? afterAddressSpaceLimit(r, resource, limit) : r;
}

SL_EXPORT int prlimit64(pid_t pid, enum __rlimit_resource resource, const struct rlimit64* limit,
                        struct rlimit64* old) {
    const int r = static_cast<int>(limitCall(pid, resource, limit, old));
    return pid == 0 || pid == getpid()
               ? afterAddressSpaceLimit(r, resource, reinterpret_cast<const struct rlimit*>(limit))
               : r;
}

}  // namespace sl::inject
