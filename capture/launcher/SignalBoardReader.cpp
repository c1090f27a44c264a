#include "capture/launcher/SignalBoardReader.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cerrno>
#include <unordered_set>

#include "capture/common/Clock.h"
#include "capture/common/SignalBoard.h"
#include "capture/common/SoftLimit.h"
#include "capture/launcher/ProcTree.h"

namespace sl::capture {
namespace {

// A process whose handler ran this long before the profiler's own had the signal still had
// the same one: the kernel delivers a group's signal to each member in one call, and the
// program may run its handler before the profiler's (another CPU, the profiler not scheduled).
constexpr int64_t kSameSignalNs = 50'000'000;
// How long after the profiler had the signal the processes are asked: the sender's next call
// (a group after a process) comes within microseconds; a person's, or a script's next line,
// later than this.
constexpr int64_t kSettleNs = 5'000'000;

}  // namespace

SignalBoardReader::SignalBoardReader(const std::string& dir) : m_path(dir + "/" + kSignalBoardFile) {
    // Under a file-size limit below its size (`ulimit -f 100`) the board is not made: sizing it
    // would raise SIGXFSZ in the profiler. Its processes are then sent the signal, as before.
    if (softLimit(RLIMIT_FSIZE) < kSignalBoardBytes) return;
    m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (m_fd < 0) return;
    if (::ftruncate(m_fd, static_cast<off_t>(kSignalBoardBytes)) != 0) {
        ::close(m_fd);
        m_fd = -1;
        ::unlink(m_path.c_str());
    }
}

SignalBoardReader::~SignalBoardReader() {
    if (m_fd < 0) return;
    ::close(m_fd);
    ::unlink(m_path.c_str());
}

bool SignalBoardReader::deliveredSince(int64_t pid, int sig, int64_t sinceNs, From from,
                                       int64_t sender) const {
    const int i = signalBoardIndex(sig);
    if (m_fd < 0 || i < 0 || pid <= 0) return false;
    SignalBoardEntry e{};
    if (::pread(m_fd, &e, sizeof e, static_cast<off_t>(signalBoardOffset(pid))) != sizeof e) return false;
    const int64_t at = e.deliveredNs[i];
    if (e.pid != pid || at == 0 || (at & ~kDeliveryHow) < (sinceNs & ~kDeliveryHow)) return false;
    switch (from) {
        case From::Anyone: return true;
        case From::AnotherSender: return (at & kDeliveryHow) == 0;
        case From::TheSender: return (at & kDeliveryHow) == 0 && sender > 0 && e.senderPid[i] == sender;
    }
    return false;
}

uint64_t pendingSignals(int64_t pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%lld/status", static_cast<long long>(pid));
    FILE* f = std::fopen(path, "re");
    if (!f) return 0;
    char line[256];
    uint64_t mask = 0;
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, "ShdPnd:", 7) != 0) continue;
        mask = std::strtoull(line + 7, nullptr, 16);
        break;
    }
    std::fclose(f);
    return mask;
}

SignalSendOn sendOnSignal(const SignalBoardReader& board, int sig, int64_t receivedNs, int64_t sender,
                          const std::vector<int64_t>& pids, bool toldCounts) {
    const int64_t wait = receivedNs + kSettleNs - nowNs();
    if (wait > 0) {
        struct timespec ts {0, static_cast<long>(wait)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
    const int64_t since = receivedNs - kSameSignalNs;
    const auto had = [&](int64_t pid) {
        if (sender > 0 ? board.deliveredSince(pid, sig, since, SignalBoardReader::From::TheSender, sender)
                       : board.deliveredSince(pid, sig, since, SignalBoardReader::From::AnotherSender))
            return true;
        if (toldCounts)
            for (int other : kBoardSignals)
                if (board.deliveredSince(pid, other, receivedNs, SignalBoardReader::From::AnotherSender))
                    return true;
        return false;
    };
    // Pending: it is coming (a second copy would merge with it anyway). Delivered since: it
    // came. The board is read again after the pending check: a signal taken off the queue just
    // then has its handler's note a few microseconds later.
    // Told to stop with another board signal that waits to be delivered (blocked in a critical
    // section, or not scheduled yet) counts as told (a review found such a worker killed).
    uint64_t watched = 1ULL << (sig - 1);
    if (toldCounts)
        for (int other : kBoardSignals)  // not SIGALRM: an interval timer's is pending too
            if (other != SIGALRM) watched |= 1ULL << (other - 1);
    std::unordered_set<int64_t> hadIt;
    if (board.ok())
        for (int64_t pid : pids)
            if (had(pid) || (pendingSignals(pid) & watched) || had(pid)) hadIt.insert(pid);
    // A process told to stop leaves its own children to its clean-up (a worker's `sleep` in its
    // save): they are spared with it.
    const auto underATold = [&](int64_t pid) {
        if (!toldCounts || hadIt.empty()) return false;
        const int64_t self = getpid();
        for (int64_t p = parentOf(pid), depth = 0; p > 1 && p != self && depth < 64; p = parentOf(p), ++depth)
            if (hadIt.count(p)) return true;
        return false;
    };
    SignalSendOn done;
    for (int64_t pid : pids) {
        if (hadIt.count(pid) || underATold(pid)) {
            ++done.spared;
            continue;
        }
        if (::kill(static_cast<pid_t>(pid), sig) == 0) done.sentTo.push_back(pid);
    }
    return done;
}

bool handledStop(const SignalBoardReader& board, int64_t pid, int sig, int64_t receivedNs) {
    return board.ok() &&
           board.deliveredSince(pid, sig, receivedNs - kSameSignalNs, SignalBoardReader::From::Anyone);
}

bool programHandledAStop(const SignalBoardReader& board, int64_t receivedNs) {
    if (!board.ok()) return false;
    for (int64_t pid : descendantsOf(getpid()))
        for (int i = 0; i < kBoardStopSignalCount; ++i)
            if (handledStop(board, pid, kBoardSignals[i], receivedNs)) return true;
    return false;
}

}  // namespace sl::capture
