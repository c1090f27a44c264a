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

#include <cerrno>
#include <cstdio>

#include "capture/common/CaptureGate.h"
#include "capture/inject/InjectCommon.h"

namespace sl::inject {

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
}

}  // namespace sl::inject

#if defined(__x86_64__) && defined(__linux__)
// SyscallStub.S's two C ends (hidden: reached by jumps from the stub only).
extern "C" long sl_seccomp_syscall(long, long op, long flags, long args) {
    if (op == SECCOMP_SET_MODE_STRICT || op == SECCOMP_SET_MODE_FILTER)
        sl::inject::sealForSandbox(op == SECCOMP_SET_MODE_STRICT
                                       ? "seccomp(SECCOMP_SET_MODE_STRICT)"
                                       : "seccomp(SECCOMP_SET_MODE_FILTER)");
    long r;
    asm volatile("syscall"
                 : "=a"(r)
                 : "a"(long{SYS_seccomp}), "D"(op), "S"(flags), "d"(args)
                 : "rcx", "r11", "memory");
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
