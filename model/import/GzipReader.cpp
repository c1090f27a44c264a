#include "model/import/GzipReader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

namespace sl::import {

size_t firstInflateBuffer(size_t compressedBytes, uint32_t trailerSize) {
    // The trailer is a good first guess when it is plausible; the buffer grows as data actually
    // inflates either way.
    if (trailerSize > compressedBytes && trailerSize / 1032 <= compressedBytes) return trailerSize;
    return compressedBytes * 4;
}

namespace {

std::string quoted(const std::string& p) {
    return "'" + p + "'";
}

// Big buffers are 2 MiB aligned (huge-page friendly where THP is on for all memory).
char* allocateBuffer(size_t bytes) {
    constexpr size_t kHuge = size_t{2} << 20;
    if (bytes < kHuge) return static_cast<char*>(std::malloc(bytes));
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    auto* p = static_cast<char*>(std::aligned_alloc(kHuge, rounded));
    return p;
}

Result<LoadedFile> readAll(const std::string& path, size_t padding) {
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) return makeError("cannot read " + quoted(path) + ": " + std::strerror(errno));
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return makeError("cannot read " + quoted(path) + ": " + ec.message());
    LoadedFile out;
    out.capacity = size + padding;
    out.buffer.reset(allocateBuffer(out.capacity));
    if (!out.buffer) return makeError("cannot read " + quoted(path) + ": out of memory");
    if (size && std::fread(out.buffer.get(), 1, size, f.get()) != size)
        return makeError("cannot read " + quoted(path) + ": short read");
    std::memset(out.buffer.get() + size, 0, padding);
    out.size = size;
    out.compressedBytes = size;
    return out;
}

bool grow(LoadedFile& out, size_t wanted) {
    if (wanted <= out.capacity) return true;
    const size_t cap = std::max(wanted, out.capacity * 2);
    char* p = allocateBuffer(cap);
    if (!p) return false;
    if (out.size) std::memcpy(p, out.buffer.get(), out.size);
    out.buffer.reset(p);
    out.capacity = cap;
    return true;
}

Status inflateAll(const std::string& path, const LoadedFile& in, size_t padding, LoadedFile& out,
                  const std::function<bool(double)>& progress) {
    const char* src = in.buffer.get();
    const size_t n = in.size;
    uint32_t isize = 0;
    if (n >= 4) std::memcpy(&isize, src + n - 4, 4);
    const size_t guess = firstInflateBuffer(n, isize);
    if (!grow(out, guess + padding + 65536))
        return makeError("cannot inflate " + quoted(path) + ": out of memory");
    z_stream z{};
    if (inflateInit2(&z, 15 + 16) != Z_OK) return makeError("zlib: cannot initialize inflate");
    size_t memberStart = 0;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(src));
    z.avail_in = static_cast<uInt>(std::min<size_t>(n, UINT32_MAX));
    size_t chunks = 0;
    for (;;) {
        if (out.capacity - out.size < padding + 65536 && !grow(out, out.size + padding + 65536)) {
            inflateEnd(&z);
            return makeError("cannot inflate " + quoted(path) + ": out of memory");
        }
        const size_t room = std::min<size_t>(out.capacity - out.size - padding, UINT32_MAX);
        z.next_out = reinterpret_cast<Bytef*>(out.buffer.get() + out.size);
        z.avail_out = static_cast<uInt>(room);
        const int rc = inflate(&z, Z_NO_FLUSH);
        out.size += room - z.avail_out;
        const size_t consumed = static_cast<size_t>(reinterpret_cast<const char*>(z.next_in) - src);
        if (rc == Z_STREAM_END) {
            // Another member may follow (concatenated gzip files); trailing zeros are padding.
            size_t rest = consumed;
            while (rest < n && src[rest] == 0) ++rest;
            if (rest >= n) break;
            inflateReset(&z);
            memberStart = rest;
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(src + rest));
            z.avail_in = static_cast<uInt>(std::min<size_t>(n - rest, UINT32_MAX));
            continue;
        }
        const bool inputExhausted = z.avail_in == 0;
        if (rc == Z_OK && !(inputExhausted && z.avail_out != 0)) {
            if (progress && (++chunks % 16) == 0 &&
                !progress(static_cast<double>(consumed) / static_cast<double>(n))) {
                inflateEnd(&z);
                return makeError("cancelled");
            }
            continue;
        }
        if (rc == Z_OK || (rc == Z_BUF_ERROR && inputExhausted)) {
            inflateEnd(&z);
            return makeError(quoted(path) +
                             " is a truncated gzip file: the compressed stream ends at byte " +
                             std::to_string(n) + " before its end marker");
        }
        const std::string msg = z.msg ? z.msg : "error " + std::to_string(rc);
        inflateEnd(&z);
        return makeError(quoted(path) + " is a corrupt gzip file: " + msg +
                         " near compressed byte " + std::to_string(consumed) +
                         (memberStart ? " (in a later gzip member)" : ""));
    }
    inflateEnd(&z);
    std::memset(out.buffer.get() + out.size, 0, padding);
    return Status::success();
}

// Maps a plain (not gzip) file when that is safe: past its end the last page must hold at
// least `padding` bytes (zeros), or a SIMD parser reading ahead would fault.
std::optional<LoadedFile> tryMap(const std::string& path, size_t padding, bool lazy = false) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    LoadedFile out;
    unsigned char magic[2] = {0, 0};
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t slack = size % page == 0 ? 0 : page - size % page;
    const bool plain = ::pread(fd, magic, 2, 0) == 2 && !(magic[0] == 0x1f && magic[1] == 0x8b);
    if (ec || (!lazy && (size < (size_t{8} << 20) || slack < padding)) || !plain) {
        ::close(fd);
        return std::nullopt;
    }
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | (lazy ? 0 : MAP_POPULATE), fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) return std::nullopt;
    (void)::madvise(p, size, MADV_SEQUENTIAL);
    out.mapping = std::shared_ptr<const char>(static_cast<const char*>(p), [size](const char* q) {
        ::munmap(const_cast<char*>(q), size);
    });
    out.size = size;
    out.capacity = lazy ? size : size + slack;
    out.compressedBytes = size;
    return out;
}

}  // namespace

std::optional<LoadedFile> mapPlainFile(const std::string& path) {
    return tryMap(path, 0, true);
}

void releaseMapped(const LoadedFile& file, size_t begin, size_t end) {
    if (!file.mapping) return;
    const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    begin = begin / page * page;  // a page straddling `begin` was passed too
    end = std::min(end, file.size) / page * page;
    if (end > begin)
        (void)::madvise(const_cast<char*>(file.mapping.get()) + begin, end - begin, MADV_DONTNEED);
}

Result<LoadedFile> loadMaybeGzip(const std::string& path, size_t padding,
                                 const std::function<bool(double)>& progress) {
    if (auto mapped = tryMap(path, padding)) return std::move(*mapped);
    auto raw = readAll(path, padding);
    if (!raw) return raw;
    const char* p = raw->buffer.get();
    const bool gz = raw->size >= 2 && static_cast<unsigned char>(p[0]) == 0x1f &&
                    static_cast<unsigned char>(p[1]) == 0x8b;
    if (!gz) return raw;
    LoadedFile out;
    out.wasGzip = true;
    out.compressedBytes = raw->size;
    if (auto st = inflateAll(path, *raw, padding, out, progress); !st) return Error{st.error()};
    return out;
}

}  // namespace sl::import
