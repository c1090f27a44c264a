#include "capture/launcher/ArenaSalvage.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <set>
#include <vector>

#include "capture/common/RawFormat.h"
#include "capture/common/RawReader.h"
#include "model/core/Result.h"

namespace sl::capture {
namespace {

struct Slot {
    int64_t tid;
    uint64_t seq;
    const uint8_t* data;
    uint32_t bytes;
};

bool writeAll(int fd, const iovec* iov, int n) {
    std::vector<iovec> v(iov, iov + n);
    size_t first = 0;
    while (first < v.size()) {
        ssize_t w = ::writev(fd, v.data() + first, static_cast<int>(v.size() - first));
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        auto left = static_cast<size_t>(w);
        while (first < v.size() && left >= v[first].iov_len) left -= v[first++].iov_len;
        if (first < v.size()) {
            v[first].iov_base = static_cast<char*>(v[first].iov_base) + left;
            v[first].iov_len -= left;
        }
    }
    return true;
}

// A process that died before its first block was written has an arena and no stream yet
// (ProcessWriter defers the stream file when the arenas are on their own file system): the
// stream is made here from the arena's header, named as the process would have named it.
std::string createStream(const std::string& streamPath, const std::string& stem,
                         const ArenaHeader& a) {
    StreamHeader h{};
    std::memcpy(h.magic, kStreamMagic, 8);
    h.version = kStreamVersion;
    h.headerBytes = sizeof h;
    h.pid = a.pid;
    h.startMonotonicNs = a.startMonotonicNs;
    h.startUtcNs = a.startUtcNs;
    // <module>-<pid>-<n>
    const size_t last = stem.rfind('-');
    const size_t prev = last == std::string::npos || last == 0 ? std::string::npos
                                                               : stem.rfind('-', last - 1);
    const std::string module = prev == std::string::npos ? stem : stem.substr(0, prev);
    std::snprintf(h.module, sizeof h.module, "%s", module.c_str());
    const int fd = ::open(streamPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return streamPath + ": cannot create: " + std::strerror(errno);
    iovec iov{&h, sizeof h};
    const bool ok = writeAll(fd, &iov, 1);
    const int err = errno;
    ::close(fd);
    if (ok) return {};
    ::unlink(streamPath.c_str());
    return streamPath + ": cannot write its header: " + std::strerror(err);
}

// An arena file mapped read-only, its header checked.
struct MappedArena {
    void* map = MAP_FAILED;
    uint64_t size = 0;
    ArenaHeader h{};
    const uint8_t* base() const { return static_cast<const uint8_t*>(map); }
    const uint8_t* slot(uint32_t i) const {
        return base() + kArenaHeaderBytes + static_cast<uint64_t>(h.slotBytes) * i;
    }
    MappedArena() = default;
    MappedArena(const MappedArena&) = delete;
    MappedArena& operator=(const MappedArena&) = delete;
    ~MappedArena() {
        if (map != MAP_FAILED) munmap(map, size);
    }
    // "" or what is wrong.
    std::string open(const std::string& path) {
        int afd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (afd < 0) return path + ": cannot open: " + std::strerror(errno);
        struct stat st {};
        fstat(afd, &st);
        size = static_cast<uint64_t>(st.st_size);
        if (size < kArenaHeaderBytes) {
            ::close(afd);
            return path + ": too short for an arena header";
        }
        map = mmap(nullptr, size, PROT_READ, MAP_SHARED, afd, 0);
        ::close(afd);
        if (map == MAP_FAILED) return path + ": cannot map: " + std::strerror(errno);
        std::memcpy(&h, base(), sizeof h);
        if (std::memcmp(h.magic, kArenaMagic, 8) != 0 || h.slotBytes < sizeof(ArenaSlotHeader) ||
            kArenaHeaderBytes + static_cast<uint64_t>(h.slotBytes) * h.slotCount > size)
            return path + ": not a buffer arena (bad header)";
        return {};
    }
};

// A slot that holds a block: used, its own, plausibly a buffer (a hole reads as zeros).
bool holdsBlock(const ArenaSlotHeader& s, uint32_t index, uint32_t slotBytes) {
    return s.used != 0 && s.slot == index + 1 && s.used % 8 == 0 && s.used <= s.capacity &&
           s.capacity <= slotBytes - sizeof(ArenaSlotHeader);
}

// The process's stream: in the session directory, or (made at the process's end) beside its
// arena; "" when it has none yet.
std::string existingStream(const std::string& sessionStream, const std::string& arenaStream) {
    if (::access(sessionStream.c_str(), F_OK) == 0) return sessionStream;
    if (::access(arenaStream.c_str(), F_OK) == 0) return arenaStream;
    return {};
}

// Appends `blocks` (those `present` lacks, in thread and sequence order) to the stream at
// `path` from `goodEnd` on (a damaged tail is cut), then the Recovered record that says the
// arena was read, even with nothing missing; `running`: the process still ran (a snapshot). On
// failure the stream is cut back to `goodEnd` (no half block) and the reason returned.
std::string appendRecovered(const std::string& path, uint64_t goodEnd, std::vector<Slot> blocks,
                            const std::set<std::pair<int64_t, uint64_t>>& present, bool running,
                            SalvageSummary& sum) {
    std::erase_if(blocks, [&](const Slot& b) { return present.count({b.tid, b.seq}) != 0; });
    std::sort(blocks.begin(), blocks.end(), [](const Slot& a, const Slot& b) {
        return a.tid != b.tid ? a.tid < b.tid : a.seq < b.seq;
    });
    int sfd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (sfd < 0) return path + ": cannot open for writing: " + std::strerror(errno);
    bool ok = ftruncate(sfd, static_cast<off_t>(goodEnd)) == 0 &&
              lseek(sfd, static_cast<off_t>(goodEnd), SEEK_SET) >= 0;
    uint64_t bytes = 0;
    for (const Slot& b : blocks) {
        if (!ok) break;
        BlockHeader bh{kBlockMagic, b.bytes, b.tid, b.seq};
        iovec iov[2] = {{&bh, sizeof bh}, {const_cast<uint8_t*>(b.data), b.bytes}};
        ok = writeAll(sfd, iov, 2);
        bytes += b.bytes;
    }
    if (ok) {
        alignas(8) uint8_t rec[sizeof(MetaRecord) + 24];
        const int64_t ints[3] = {static_cast<int64_t>(blocks.size()), static_cast<int64_t>(bytes),
                                 1};
        const uint32_t n = encodeMeta(rec, MetaKind::Recovered, ints, running ? 3 : 2);
        BlockHeader bh{kBlockMagic, n, 0, UINT64_MAX};
        iovec iov[2] = {{&bh, sizeof bh}, {rec, n}};
        ok = writeAll(sfd, iov, 2);
    }
    const int err = errno;
    if (!ok) [[maybe_unused]] int t = ftruncate(sfd, static_cast<off_t>(goodEnd));  // no cut block
    ::close(sfd);
    if (!ok)
        return path + ": cannot append " + std::to_string(blocks.size()) +
               " recovered blocks: " + std::strerror(err);
    if (!blocks.empty()) ++sum.streams;
    sum.blocks += blocks.size();
    sum.bytes += bytes;
    return {};
}

// The blocks of a stream file and where its good part ends (before a damaged tail).
struct StreamBlocks {
    std::set<std::pair<int64_t, uint64_t>> present;
    uint64_t goodEnd = 0;
};
Result<StreamBlocks> blocksOf(const std::string& path) {
    auto stream = RawStream::open(path);
    if (!stream) return makeError(stream.error());
    StreamBlocks out;
    for (const RawBlock& b : stream->blocks()) out.present.insert({b.tid, b.seq});
    out.goodEnd = stream->fileBytes() - stream->damagedBytes();
    return out;  // unmapped here, before the file changes
}

// One dead process's arena into its stream. Returns "" or what went wrong (the arena is then
// kept).
std::string salvageOne(const MappedArena& arena, const std::string& arenaPath,
                       const std::string& sessionStream, const std::string& arenaStream,
                       const std::string& stem, SalvageSummary& sum) {
    const ArenaHeader& h = arena.h;
    std::string streamPath = existingStream(sessionStream, arenaStream);
    if (streamPath.empty()) {
        streamPath = arenaStream;
        if (std::string problem = createStream(streamPath, stem, h); !problem.empty())
            return problem;
    } else if (struct stat ss {}; ::stat(streamPath.c_str(), &ss) == 0 &&
                                  static_cast<uint64_t>(ss.st_size) < sizeof(StreamHeader)) {
        // Killed between creating its stream and writing the header: the file holds nothing,
        // the arena everything. Made again, from the arena's header.
        ::unlink(streamPath.c_str());
        if (std::string problem = createStream(streamPath, stem, h); !problem.empty())
            return problem;
    }
    auto stream = blocksOf(streamPath);
    if (!stream) return stream.error();
    std::vector<Slot> inArena;
    for (uint32_t i = 0; i < h.slotCount; ++i) {
        const uint8_t* p = arena.slot(i);
        ArenaSlotHeader s;
        std::memcpy(&s, p, sizeof s);
        if (holdsBlock(s, i, h.slotBytes))
            inArena.push_back({s.tid, s.seq, p + sizeof(ArenaSlotHeader), s.used});
    }
    if (std::string problem = appendRecovered(streamPath, stream->goodEnd, std::move(inArena),
                                              stream->present, false, sum);
        !problem.empty())
        return problem;
    ::unlink(arenaPath.c_str());
    return {};
}

// A process still running when the capture ends (--kill=none, --wait=primary): its arena and
// its stream are live, and neither is changed. Its committed blocks are copied out first (a
// slot the process reused meanwhile is dropped: its block is in the stream by then), then its
// stream as it is now; the copy of the stream, with the copied blocks it lacks, takes the
// stream's name (the process goes on writing to the old file, unlinked, later removed with the
// session). The merge then has what it recorded up to now, its name and command line included.
// With `copyTo` (an import, which changes nothing it reads), the copy is written there and
// kept there, for dead processes too; the stream and the arena stay as they were.
std::string snapshotOne(const MappedArena& arena, const std::string& sessionStream,
                        const std::string& arenaStream, const std::string& stem,
                        SalvageSummary& sum, const std::string& copyTo = {}) {
    const ArenaHeader& h = arena.h;
    std::deque<std::vector<uint8_t>> owned;  // the copies the slots below point into
    std::vector<Slot> copied;
    for (uint32_t i = 0; i < h.slotCount; ++i) {
        const uint8_t* p = arena.slot(i);
        ArenaSlotHeader before;
        std::memcpy(&before, p, sizeof before);
        // What the process committed: `used` is stored after the bytes it covers.
        before.used = __atomic_load_n(&reinterpret_cast<const ArenaSlotHeader*>(p)->used,
                                      __ATOMIC_ACQUIRE);
        if (!holdsBlock(before, i, h.slotBytes)) continue;
        std::vector<uint8_t> data(p + sizeof(ArenaSlotHeader),
                                  p + sizeof(ArenaSlotHeader) + before.used);
        ArenaSlotHeader after;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        std::memcpy(&after, p, sizeof after);
        if (after.tid != before.tid || after.seq != before.seq || after.slot != before.slot ||
            after.used < before.used)
            continue;  // reused meanwhile: written to the stream first
        owned.push_back(std::move(data));
        copied.push_back({before.tid, before.seq, owned.back().data(), before.used});
    }
    std::string streamPath = existingStream(sessionStream, arenaStream);
    if (struct stat ss {}; !streamPath.empty() && ::stat(streamPath.c_str(), &ss) == 0 &&
                           static_cast<uint64_t>(ss.st_size) < sizeof(StreamHeader))
        streamPath.clear();  // made, its header not yet written: made again from the arena's
    const std::string snapshot =
        !copyTo.empty() ? copyTo : (streamPath.empty() ? arenaStream : streamPath) + ".snapshot";
    ::unlink(snapshot.c_str());
    if (!streamPath.empty()) {
        // The stream as it is now (a block the process is writing at this moment is a damaged
        // tail, cut below).
        const int in = ::open(streamPath.c_str(), O_RDONLY | O_CLOEXEC);
        const int out = ::open(snapshot.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        bool ok = in >= 0 && out >= 0;
        char buf[1 << 16];
        for (ssize_t n; ok && (n = ::read(in, buf, sizeof buf)) != 0;) {
            if (n < 0 && errno == EINTR) continue;
            iovec iov{buf, static_cast<size_t>(n)};
            ok = n > 0 && writeAll(out, &iov, 1);
        }
        const int err = errno;
        if (in >= 0) ::close(in);
        if (out >= 0) ::close(out);
        if (!ok) {
            ::unlink(snapshot.c_str());
            return streamPath + ": cannot copy the stream of a running process: " +
                   std::strerror(err);
        }
    } else {
        streamPath = arenaStream;
        if (std::string problem = createStream(snapshot, stem, h); !problem.empty())
            return problem;
    }
    auto stream = blocksOf(snapshot);
    std::string problem = stream ? appendRecovered(snapshot, stream->goodEnd, std::move(copied),
                                                   stream->present, true, sum)
                                 : stream.error();
    if (problem.empty() && copyTo.empty() && ::rename(snapshot.c_str(), streamPath.c_str()) != 0)
        problem = streamPath + ": cannot replace it by the snapshot of its running process: " +
                  std::strerror(errno);
    if (!problem.empty()) ::unlink(snapshot.c_str());
    return problem;
}

bool alive(int64_t pid) {
    return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

}  // namespace

SalvageSummary salvageArenas(const std::string& sessionDir, const std::string& arenaDir,
                             bool someStillRun, const std::string& copyDir) {
    SalvageSummary sum;
    const std::string dir = arenaDir.empty() ? sessionDir : arenaDir;
    std::vector<std::string> stems;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            std::string n = e->d_name;
            if (n.size() > 6 && n.compare(n.size() - 6, 6, ".slbuf") == 0)
                stems.push_back(n.substr(0, n.size() - 6));
        }
        closedir(d);
    }
    std::sort(stems.begin(), stems.end());
    for (const std::string& stem : stems) {
        const std::string path = dir + "/" + stem + ".slbuf";
        MappedArena arena;
        std::string problem = arena.open(path);
        if (problem.empty()) {
            const ArenaHeader h = arena.h;  // a copy: salvage may unmap the arena
            const std::string sessionStream = sessionDir + "/" + stem + ".slraw";
            const std::string arenaStream = dir + "/" + stem + ".slraw";
            const uint64_t before = sum.blocks;
            problem = !copyDir.empty()
                          ? snapshotOne(arena, sessionStream, arenaStream, stem, sum,
                                        copyDir + "/" + stem + ".slraw")
                      : someStillRun && alive(h.pid)
                          ? snapshotOne(arena, sessionStream, arenaStream, stem, sum)
                          : salvageOne(arena, path, sessionStream, arenaStream, stem, sum);
            // Blocks it could not write that its buffers still held are recovered now: what
            // was lost is the rest.
            if (h.failedBlocks)
                sum.writeLosses.push_back({h.pid, h.writeErrno, h.failedBlocks, h.failedBytes,
                                           sum.blocks - before});
        }
        if (!problem.empty()) sum.problems.push_back(problem);
    }
    return sum;
}

std::string makeArenaDir() {
    struct statfs fs {};
    if (statfs("/dev/shm", &fs) != 0 || fs.f_type != TMPFS_MAGIC || access("/dev/shm", W_OK) != 0)
        return {};
    char path[] = "/dev/shm/sightline-XXXXXX";
    if (!mkdtemp(path)) return {};
    return path;
}

}  // namespace sl::capture
