#include "capture/common/RawReader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace sl::capture {

namespace {
// Streams up to this size are read whole into memory instead of mapped.
constexpr uint64_t kReadWholeBytes = 1u << 20;
}  // namespace

RawStream::RawStream(RawStream&& o) noexcept {
    *this = std::move(o);
}

RawStream& RawStream::operator=(RawStream&& o) noexcept {
    if (this == &o) return *this;
    if (m_map && m_copy.empty()) munmap(const_cast<uint8_t*>(m_map), m_size);
    m_path = std::move(o.m_path);
    m_header = o.m_header;
    m_map = o.m_map;
    m_copy = std::move(o.m_copy);  // its buffer, and so m_map, stays where it is
    m_size = o.m_size;
    m_blocks = std::move(o.m_blocks);
    m_damagedBytes = o.m_damagedBytes;
    m_damage = std::move(o.m_damage);
    o.m_map = nullptr;
    o.m_size = 0;
    return *this;
}

RawStream::~RawStream() {
    if (m_map && m_copy.empty()) munmap(const_cast<uint8_t*>(m_map), m_size);
}

Result<RawStream> RawStream::open(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return makeError(path + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    fstat(fd, &st);
    RawStream s;
    s.m_path = path;
    s.m_size = static_cast<uint64_t>(st.st_size);
    if (s.m_size < sizeof(StreamHeader)) {
        ::close(fd);
        return makeError(path + ": truncated stream header (" + std::to_string(s.m_size) +
                         " bytes)");
    }
    // The headers of a mapped file are read with pread, not through the map: touching one in
    // every block would fault the whole file in (the kernel maps the pages around each fault).
    // Those of a small file read whole come from the copy.
    auto readAt = [fd, &s](void* to, size_t n, uint64_t at) {
        if (!s.m_copy.empty()) {
            std::memcpy(to, s.m_copy.data() + at, n);
            return true;
        }
        return ::pread(fd, to, n, static_cast<off_t>(at)) == static_cast<ssize_t>(n);
    };
    if (!readAt(&s.m_header, sizeof(StreamHeader), 0)) {
        const int err = errno;
        ::close(fd);
        return makeError(path + ": cannot read: " + std::strerror(err));
    }
    if (std::memcmp(s.m_header.magic, kStreamMagic, 8) != 0) {
        ::close(fd);
        return makeError(path + ": not a Sightline raw stream (bad magic at byte 0)");
    }
    if (s.m_header.version != kStreamVersion) {
        ::close(fd);
        return makeError(path + ": unsupported raw stream version " +
                         std::to_string(s.m_header.version));
    }
    // Blocks follow the header: one shorter than ours or not a multiple of 8 would put every
    // record at a misaligned address (writers write sizeof(StreamHeader); a newer one may add).
    if (s.m_header.headerBytes < sizeof(StreamHeader) || s.m_header.headerBytes % 8 != 0) {
        ::close(fd);
        return makeError(path + ": bad raw stream header (it says " +
                         std::to_string(s.m_header.headerBytes) + " bytes)");
    }
    s.m_header.module[sizeof s.m_header.module - 1] = 0;
    if (s.m_size <= kReadWholeBytes) {
        // Most streams are small (a process of a build writes a few KiB): one read costs less
        // than mapping, faulting in and unmapping the file, whose unmapping also interrupts
        // every other CPU running one of our threads.
        std::vector<uint8_t> copy(s.m_size);
        errno = 0;
        if (::pread(fd, copy.data(), copy.size(), 0) != static_cast<ssize_t>(copy.size())) {
            const int err = errno ? errno : EIO;  // a short read: the file shrank
            ::close(fd);
            return makeError(path + ": cannot read: " + std::strerror(err));
        }
        s.m_copy = std::move(copy);
        s.m_map = s.m_copy.data();
    } else {
        void* map = mmap(nullptr, s.m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            return makeError(path + ": cannot map: " + std::strerror(err));
        }
        s.m_map = static_cast<const uint8_t*>(map);
    }
    const bool mapped = s.m_copy.empty();
    uint64_t off = s.m_header.headerBytes;
    while (off < s.m_size) {
        if (off + sizeof(BlockHeader) > s.m_size) {
            s.m_damage = "truncated block header at byte " + std::to_string(off);
            break;
        }
        BlockHeader bh;
        if (!readAt(&bh, sizeof bh, off)) {
            s.m_damage = "unreadable block header at byte " + std::to_string(off);
            break;
        }
        if (bh.magic != kBlockMagic || bh.bytes % 8 != 0) {
            s.m_damage = "bad block header at byte " + std::to_string(off);
            break;
        }
        if (off + sizeof bh + bh.bytes > s.m_size) {
            s.m_damage = "truncated block at byte " + std::to_string(off);
            break;
        }
        s.m_blocks.push_back({bh.tid, bh.seq, s.m_map + off + sizeof bh, bh.bytes, off, mapped});
        off += sizeof bh + bh.bytes;
    }
    ::close(fd);
    s.m_damagedBytes = s.m_size - std::min(off, s.m_size);
    return s;
}

void releasePages(const RawBlock& b) {
    if (!b.mapped) return;  // a copy: dropping its pages would zero them for the next pass
    static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t from = (reinterpret_cast<uintptr_t>(b.data) + page - 1) & ~(page - 1);
    const uintptr_t to = (reinterpret_cast<uintptr_t>(b.data) + b.bytes) & ~(page - 1);
    if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

bool decodeMeta(const uint8_t* record, MetaView* out) {
    const auto* m = reinterpret_cast<const MetaRecord*>(record);
    uint32_t size = static_cast<uint32_t>(m->h.size8) * 8;
    out->kind = static_cast<MetaKind>(m->h.aux);
    uint32_t off = sizeof(MetaRecord);
    if (off + 8u * m->intCount > size) return false;
    out->intCount = std::min<int>(m->intCount, 16);
    std::memcpy(out->ints, record + off, 8 * static_cast<size_t>(out->intCount));
    off += 8u * m->intCount;
    out->strCount = 0;
    for (int i = 0; i < m->strCount; ++i) {
        if (off + 4 > size) return false;
        uint32_t len;
        std::memcpy(&len, record + off, 4);
        if (len > size - off - 4) return false;  // (off + 4 + len could wrap around)
        if (i < 4) {
            out->strs[i] = std::string_view(reinterpret_cast<const char*>(record + off + 4), len);
            out->strCount = i + 1;
        }
        off += 4 + len;
    }
    return true;
}

std::string_view stringText(const uint8_t* record) {
    const auto* s = reinterpret_cast<const StringRecord*>(record);
    uint32_t max = static_cast<uint32_t>(s->h.size8) * 8 - sizeof(StringRecord);
    return {reinterpret_cast<const char*>(s + 1), std::min(s->length, max)};
}

bool decodeNvtx(const uint8_t* record, NvtxFields* out) {
    const auto* h = reinterpret_cast<const RecordHeader*>(record);
    uint32_t size = static_cast<uint32_t>(h->size8) * 8;
    uint32_t head;
    *out = NvtxFields{};
    if (h->flags & kNvtxCompact) {
        if (size < sizeof(NvtxCompactRecord)) return false;
        const auto* c = reinterpret_cast<const NvtxCompactRecord*>(record);
        out->time = c->time;
        out->message = c->message;
        head = sizeof(NvtxCompactRecord);
    } else {
        if (size < sizeof(NvtxRecord)) return false;
        const auto* n = reinterpret_cast<const NvtxRecord*>(record);
        out->time = n->time;
        out->category = n->category;
        out->color = n->color;
        out->payload = n->payload;
        out->message = n->message;
        head = sizeof(NvtxRecord);
    }
    if (h->type == RecordType::NvtxStart) {
        if (head + 8 > size) return false;
        std::memcpy(&out->rangeId, record + head, 8);
        head += 8;
    }
    if (h->flags & kNvtxInline)
        out->text = {reinterpret_cast<const char*>(record + head),
                     std::min(out->message, size - head)};
    return true;
}

std::string_view nvtxInlineText(const uint8_t* record) {
    const auto* h = reinterpret_cast<const RecordHeader*>(record);
    NvtxFields f;
    if (!decodeNvtx(record, &f) || !(h->flags & kNvtxInline)) return {};
    return f.text;
}

}  // namespace sl::capture
