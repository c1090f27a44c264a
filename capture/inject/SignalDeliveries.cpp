#include "capture/inject/SignalDeliveries.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>

#include "capture/common/SessionEnv.h"
#include "capture/common/SignalBoard.h"
#include "capture/inject/InjectCommon.h"

namespace sl::inject {
namespace {

using capture::SignalBoardEntry;

// The mapped page and this process's entry in it; the entry is ours while its pid is
// g_boardPid and the process is still the one that claimed it (g_claimedBy: getpid() then,
// which a forked child, until it claims its own, does not share).
void* g_boardPage = nullptr;
SignalBoardEntry* g_entry = nullptr;
int64_t g_boardPid = 0;
pid_t g_launcher = 0;  // the launcher's pid, as the kernel gives si_pid

// From the environment at load, before main (the claim may run in a signal handler).
__attribute__((constructor(102))) void readLauncher() {
    if (const char* v = std::getenv(capture::env::kLauncherPid)) g_launcher = static_cast<pid_t>(std::atoi(v));
}
long g_claimedBy = 0;
bool g_noBoard = false;

void unmapBoard() {
    if (g_boardPage) syscall(SYS_munmap, g_boardPage, 4096);
    g_boardPage = nullptr;
    g_entry = nullptr;
    g_boardPid = 0;
    g_claimedBy = 0;
}

}  // namespace

void claimSignalBoardEntry() {
    // Sealed (a seccomp filter): no system call of ours; its handlers are the program's own.
    // No board (none made, none reachable): asked once per image, not at every sigaction.
    if (g_entry || g_noBoard || ProcessWriter::sealed()) return;
    const char* dir = ProcessWriter::arenaDir();
    const int64_t pid = ProcessWriter::pid();
    // A pid only the process's own namespace knows could be another process's on the board.
    if (!dir || !*dir || pid <= 0 || ProcessWriter::inVforkChild() || ProcessWriter::pidsUnresolved()) return;
    const int saved = errno;
    // The path without snprintf: this may run in a signal handler (sigaction there) or in a
    // forked child of a threaded program.
    char path[1200];
    const size_t dirLen = std::strlen(dir), nameLen = sizeof capture::kSignalBoardFile;
    if (dirLen + 1 + nameLen > sizeof path) return;
    std::memcpy(path, dir, dirLen);
    path[dirLen] = '/';
    std::memcpy(path + dirLen + 1, capture::kSignalBoardFile, nameLen);
    const long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        g_noBoard = true;
        errno = saved;
        return;
    }
    struct stat st {};
    const uint64_t offset = capture::signalBoardOffset(pid);
    const uint64_t page = offset & ~uint64_t(4095);
    void* base = MAP_FAILED;
    // Backed before it is written: on a full tmpfs the write to a hole of the sparse file
    // raised SIGBUS in the program. Without room there is no entry (the signal is sent on).
    if (syscall(SYS_fstat, fd, &st) == 0 && static_cast<uint64_t>(st.st_size) >= page + 4096 &&
        syscall(SYS_fallocate, fd, 0, page, 4096) == 0)
        base = reinterpret_cast<void*>(
            syscall(SYS_mmap, nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, page));
    syscall(SYS_close, fd);
    errno = saved;
    if (base == MAP_FAILED || base == nullptr) return;
    auto* entry = reinterpret_cast<SignalBoardEntry*>(static_cast<char*>(base) + (offset - page));
    // A new owner starts with nothing delivered (an earlier image of this pid, or another
    // process whose pid shares the entry, left its times).
    for (int64_t& t : entry->deliveredNs) __atomic_store_n(&t, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&entry->pid, pid, __ATOMIC_RELEASE);
    g_boardPage = base;
    g_entry = entry;
    g_boardPid = pid;
    g_claimedBy = kernelCall(SYS_getpid);
}

void signalBoardAfterFork() {
    if (ProcessWriter::sealed()) {
        g_entry = nullptr;  // no munmap under the filter; nothing is written without an entry
        return;
    }
    const bool had = g_entry != nullptr;
    unmapBoard();
    if (had) claimSignalBoardEntry();
}

void noteSignalDelivered(int sig, const siginfo_t* info) {
    SignalBoardEntry* e = g_entry;
    const int i = capture::signalBoardIndex(sig);
    if (!e || i < 0) return;
    // A forked child before it claims its own entry (its parent's is mapped), or an entry
    // another process has claimed since: not ours to write.
    if (kernelCall(SYS_getpid) != g_claimedBy || __atomic_load_n(&e->pid, __ATOMIC_ACQUIRE) != g_boardPid)
        return;
    const bool sent = info && (info->si_code == SI_USER || info->si_code == SI_QUEUE);
    const int64_t how = !sent ? capture::kDeliveryNotKill
                        : g_launcher > 0 && info->si_pid == g_launcher ? capture::kDeliveryFromLauncher
                                                                      : 0;
    __atomic_store_n(&e->senderPid[i], sent ? static_cast<int32_t>(info->si_pid) : 0, __ATOMIC_RELAXED);
    __atomic_store_n(&e->deliveredNs[i], (capture::nowNs() & ~capture::kDeliveryHow) | how,
                     __ATOMIC_RELEASE);
}

}  // namespace sl::inject
