#pragma once
// Recovers what processes committed but never wrote: after the tree has ended, each buffer
// arena still on disk (its process died without the final flush: SIGKILL, the OOM killer, a
// crash inside the flush) has its committed blocks that the stream lacks appended to the stream,
// with a Meta Recovered record saying how many. The stream's damaged tail (a block cut short by
// the death) is cut off first: its buffer is still in the arena. The stream file is then
// complete on its own (the session directory can be merged again later) and the arena removed.
#include <cstdint>
#include <string>
#include <vector>

namespace sl::capture {

struct SalvageSummary {
    int streams = 0;      // streams that received blocks
    uint64_t blocks = 0;  // blocks appended
    uint64_t bytes = 0;
    std::vector<std::string> problems;  // arenas that could not be read (kept in place)
    struct WriteLoss {  // blocks a process could not write to its stream (a full disk)
        int64_t pid;
        int err;
        uint64_t blocks, bytes;
        uint64_t recovered = 0;  // blocks of its arena appended to its stream here
    };
    std::vector<WriteLoss> writeLosses;
};

// Arenas are <arenaDir>/<stem>.slbuf, their streams <sessionDir>/<stem>.slraw or, for a process
// that wrote its stream only at its end, <arenaDir>/<stem>.slraw; a stream not made yet is made
// in <arenaDir> from the arena's header.
// With `someStillRun` (--kill=none, --wait=primary left processes running), an arena whose
// process is alive is read, never changed: its stream is replaced by a copy with the committed
// blocks it lacks (a snapshot), and the arena left to the process.
// With `copyDir` (`sightline import` of a kept session, which must leave it as it was):
// nothing is changed; each arena's stream, with the blocks it lacked, is written to
// <copyDir>/<stem>.slraw, to be merged in place of the original.
SalvageSummary salvageArenas(const std::string& sessionDir, const std::string& arenaDir,
                             bool someStillRun = false, const std::string& copyDir = {});

// Where the session's arenas should go: a new directory on a tmpfs (/dev/shm) when there is a
// writable one, so the buffers' pages are never written back to a disk; else "" (the arenas
// then go in the session directory).
std::string makeArenaDir();

}  // namespace sl::capture
