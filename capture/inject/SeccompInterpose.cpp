// A process that sandboxes itself with seccomp (issue #15): a filter allowing only the calls
// the program makes from then on killed it (SIGSYS) at its exit, when the module opened its
// stream; strict mode killed it at its first write(), whose interposer read the time-stamp
// counter (which strict mode disables) and whose fault the module's handler then met with a
// forbidden sigprocmask. So before a filter or strict mode is installed (prctl, or seccomp()
// through syscall(), as libseccomp does), the process's capture ends, complete and said: what
// it recorded is written, the writer thread joined, the program's signal dispositions put back,
// the capture switch turned off (no clock read), the descriptors closed, and the images it execs
// run without the module (InjectMain.cpp, withoutOurEnvironment). A raw seccomp system call
// (the program's own assembly) is not seen.
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "capture/common/CaptureGate.h"
#include "capture/inject/InjectCommon.h"

namespace sl::inject {

// Whether a filter install with these arguments can succeed: libseccomp's feature probes
// (seccomp_api_get) make calls that fail on purpose (strict mode with flags 1, a filter with no
// program: EINVAL, EFAULT) and must not end a capture. The kernel refuses a filter without
// no_new_privs to a process lacking CAP_SYS_ADMIN (EACCES; approximated by euid 0).
bool filterCanInstall(unsigned long flags, unsigned long program) {
    constexpr unsigned long kKnownFlags = 0x3f;  // SECCOMP_FILTER_FLAG_* up to WAIT_KILLABLE_RECV
    if (program == 0 || (flags & ~kKnownFlags) != 0) return false;
    return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 || geteuid() == 0;
}

void sealForSandbox(const char* how) {
    if (ProcessWriter::sealed() || ProcessWriter::inVforkChild()) return;
    ProcessWriter::ToolScope scope;
    g_osrtOn.store(false);
    if (ProcessWriter::active()) {
        char comm[17] = {};
        prctl(PR_GET_NAME, comm, 0, 0, 0);
        char reason[600];
        std::snprintf(reason, sizeof reason,
                      "process %lld (%s) called %s: what it did after that is not recorded (the "
                      "filter may refuse or punish any system call the profiler would make in it "
                      "or in what it runs); its end and exit status are the kernel's and its "
                      "reaper's",
                      static_cast<long long>(ProcessWriter::pid()), comm, how);
        const int64_t count = 1;
        std::string_view strs[2] = {"capture.sandboxed", reason};
        ProcessWriter::emitMeta(capture::MetaKind::Diagnostic, &count, 1, strs, 2);
        runFinalFlushHooks(capture::ExitHow::Sealed);
    }
    ProcessWriter::seal();
    uninstallSignalHandlers();
    capture::CaptureGate::shutOff();
    removeOurEnvironment();
}

}  // namespace sl::inject

#if defined(__x86_64__) && defined(__linux__)
// SyscallStub.S's two C ends (hidden: reached by jumps from the stub only).
extern "C" long sl_seccomp_syscall(long, long op, long flags, long args) {
    if (op == SECCOMP_SET_MODE_STRICT && flags == 0 && args == 0)
        sl::inject::sealForSandbox("seccomp(SECCOMP_SET_MODE_STRICT)");
    else if (op == SECCOMP_SET_MODE_FILTER &&
             sl::inject::filterCanInstall(static_cast<unsigned long>(flags),
                                          static_cast<unsigned long>(args)))
        sl::inject::sealForSandbox("seccomp(SECCOMP_SET_MODE_FILTER)");
    const long r = sl::inject::kernelCall(SYS_seccomp, op, flags, args);
    if (static_cast<unsigned long>(r) >= static_cast<unsigned long>(-4095)) {
        errno = static_cast<int>(-r);
        return -1;
    }
    return r;
}

extern "C" long sl_syscall_failed(long r) {
    errno = static_cast<int>(-r);
    return -1;
}
#endif
