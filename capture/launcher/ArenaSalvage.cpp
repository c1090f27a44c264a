#include "capture/launcher/ArenaSalvage.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "capture/common/RawFormat.h"
#include "capture/common/RawReader.h"

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

// One arena into its stream. Returns "" or what went wrong (the arena is then kept).
std::string salvageOne(const std::string& arenaPath, const std::string& sessionStream,
                       const std::string& arenaStream, const std::string& stem,
                       SalvageSummary& sum) {
    int afd = ::open(arenaPath.c_str(), O_RDONLY | O_CLOEXEC);
    if (afd < 0) return arenaPath + ": cannot open: " + std::strerror(errno);
    struct stat st {};
    fstat(afd, &st);
    const auto size = static_cast<uint64_t>(st.st_size);
    if (size < kArenaHeaderBytes) {
        ::close(afd);
        return arenaPath + ": too short for an arena header";
    }
    void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, afd, 0);
    ::close(afd);
    if (map == MAP_FAILED) return arenaPath + ": cannot map: " + std::strerror(errno);
    const auto* base = static_cast<const uint8_t*>(map);
    struct Unmap {
        void* p;
        uint64_t n;
        ~Unmap() { munmap(p, n); }
    } unmap{map, size};
    ArenaHeader h;
    std::memcpy(&h, base, sizeof h);
    if (std::memcmp(h.magic, kArenaMagic, 8) != 0 || h.slotBytes < sizeof(ArenaSlotHeader) ||
        kArenaHeaderBytes + static_cast<uint64_t>(h.slotBytes) * h.slotCount > size)
        return arenaPath + ": not a buffer arena (bad header)";

    if (h.failedBlocks) sum.writeLosses.push_back({h.pid, h.writeErrno, h.failedBlocks, h.failedBytes});
    // The stream is in the session directory, or (made at the process's end) beside its arena,
    // or not made yet.
    std::string streamPath = sessionStream;
    if (::access(streamPath.c_str(), F_OK) != 0 && ::access(arenaStream.c_str(), F_OK) == 0)
        streamPath = arenaStream;
    if (::access(streamPath.c_str(), F_OK) != 0) {
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
    auto stream = RawStream::open(streamPath);
    if (!stream) return stream.error();
    std::set<std::pair<int64_t, uint64_t>> present;
    for (const RawBlock& b : stream->blocks()) present.insert({b.tid, b.seq});
    std::vector<Slot> missing;
    for (uint32_t i = 0; i < h.slotCount; ++i) {
        const uint8_t* p = base + kArenaHeaderBytes + static_cast<uint64_t>(h.slotBytes) * i;
        ArenaSlotHeader s;
        std::memcpy(&s, p, sizeof s);
        // A slot never used (a hole reads as zeros), returned, or not plausibly a buffer.
        if (s.used == 0 || s.slot != i + 1 || s.used % 8 != 0 || s.used > s.capacity ||
            s.capacity > h.slotBytes - sizeof(ArenaSlotHeader))
            continue;
        if (present.count({s.tid, s.seq})) continue;
        missing.push_back({s.tid, s.seq, p + sizeof(ArenaSlotHeader), s.used});
    }
    const uint64_t goodEnd = stream->fileBytes() - stream->damagedBytes();
    stream = RawStream{};  // unmapped before the file changes
    {  // even with nothing missing: the Recovered record says the arena was read

        std::sort(missing.begin(), missing.end(), [](const Slot& a, const Slot& b) {
            return a.tid != b.tid ? a.tid < b.tid : a.seq < b.seq;
        });
        int sfd = ::open(streamPath.c_str(), O_WRONLY | O_CLOEXEC);
        if (sfd < 0) return streamPath + ": cannot open for writing: " + std::strerror(errno);
        bool ok = ftruncate(sfd, static_cast<off_t>(goodEnd)) == 0 &&
                  lseek(sfd, static_cast<off_t>(goodEnd), SEEK_SET) >= 0;
        uint64_t bytes = 0;
        for (const Slot& s : missing) {
            if (!ok) break;
            BlockHeader bh{kBlockMagic, s.bytes, s.tid, s.seq};
            iovec iov[2] = {{&bh, sizeof bh}, {const_cast<uint8_t*>(s.data), s.bytes}};
            ok = writeAll(sfd, iov, 2);
            bytes += s.bytes;
        }
        if (ok) {
            alignas(8) uint8_t rec[sizeof(MetaRecord) + 16];
            const int64_t ints[2] = {static_cast<int64_t>(missing.size()),
                                     static_cast<int64_t>(bytes)};
            const uint32_t n = encodeMeta(rec, MetaKind::Recovered, ints, 2);
            BlockHeader bh{kBlockMagic, n, 0, UINT64_MAX};
            iovec iov[2] = {{&bh, sizeof bh}, {rec, n}};
            ok = writeAll(sfd, iov, 2);
        }
        const int err = errno;
        if (!ok) [[maybe_unused]] int t = ftruncate(sfd, static_cast<off_t>(goodEnd));  // no cut block
        ::close(sfd);
        if (!ok)
            return streamPath + ": cannot append " + std::to_string(missing.size()) +
                   " recovered blocks: " + std::strerror(err);
        if (!missing.empty()) ++sum.streams;
        sum.blocks += missing.size();
        sum.bytes += bytes;
    }
    ::unlink(arenaPath.c_str());
    return {};
}

}  // namespace

SalvageSummary salvageArenas(const std::string& sessionDir, const std::string& arenaDir) {
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
        std::string problem = salvageOne(dir + "/" + stem + ".slbuf",
                                         sessionDir + "/" + stem + ".slraw",
                                         dir + "/" + stem + ".slraw", stem, sum);
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
