#include "model/rep/ChunkCodec.h"

#include <xxhash.h>
#include <zstd.h>

#include <bit>
#include <cstring>

namespace sl {

namespace {

constexpr uint8_t kMagic[3] = {'S', 'L', 'C'};  // then the encoding version
// Version 2's start coding (the byte after the column count).
constexpr uint8_t kStartsAsGaps = 0;           // after the first: start - previous end (a lane)
constexpr uint8_t kStartsAsDeltas = 1;         // after the first: start - previous start
constexpr uint64_t kMaxRawBytes = 1ull << 32;  // a chunk decodes to at most 4 GiB
constexpr size_t kFirstOutput = 1 << 20;      // decoded bytes are allocated as they come

// Deltas of a hostile chunk may overflow: two's complement wrap-around, as the writer's
// subtraction did (no undefined behaviour; the range checks then refuse what is out of range).
inline int64_t wrappingAdd(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrappingSub(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
inline int64_t unzigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

inline void putVarint(std::vector<uint8_t>& out, uint64_t v) {
    uint8_t buf[10];
    int n = 0;
    while (v >= 0x80) {
        buf[n++] = static_cast<uint8_t>(v | 0x80);
        v >>= 7;
    }
    buf[n++] = static_cast<uint8_t>(v);
    out.insert(out.end(), buf, buf + n);
}

inline void putU32(std::vector<uint8_t>& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Appends a column: a u32 length placeholder, then the values, then patches the length.
template <class Fn>
void putColumn(std::vector<uint8_t>& out, Fn&& writeValues) {
    size_t at = out.size();
    putU32(out, 0);
    writeValues();
    uint32_t len = static_cast<uint32_t>(out.size() - at - 4);
    for (int i = 0; i < 4; ++i) out[at + static_cast<size_t>(i)] = static_cast<uint8_t>(len >> (8 * i));
}

struct Reader {
    const uint8_t* p;
    const uint8_t* end;
    bool ok = true;

    uint32_t u32() {
        if (end - p < 4) { ok = false; return 0; }
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
        p += 4;
        return v;
    }
    uint64_t varint() {
        if (end - p >= 10) {  // the common case: no bounds check per byte
            uint64_t b = *p++;
            if (b < 0x80) return b;
            uint64_t v = b & 0x7f;
            for (int shift = 7; shift < 70; shift += 7) {
                b = *p++;
                v |= (b & 0x7f) << shift;
                if (b < 0x80) return v;
            }
            ok = false;
            return 0;
        }
        uint64_t v = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (p >= end) { ok = false; return 0; }
            uint8_t b = *p++;
            v |= static_cast<uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        ok = false;
        return 0;
    }
};

Status finished(const Reader& cr, const char* what) {
    if (!cr.ok) return makeError(std::string("column '") + what + "' is truncated");
    if (cr.p != cr.end) return makeError(std::string("column '") + what + "' has trailing bytes");
    return {};
}

// Version 1: starts as zigzag deltas, durations zigzag. `end` is null for kinds without an end.
Status decodeTimesV1(Reader starts, Reader ends, uint32_t count, bool lane, int64_t* start,
                     int64_t* end) {
    int64_t prev = 0;
    for (uint32_t i = 0; i < count; ++i) {
        prev = wrappingAdd(prev, unzigzag(starts.varint()));
        if (prev < -kMaxEventTime || prev > kMaxEventTime)
            return makeError("start time out of range");
        start[i] = prev;
        if (i > 0 && prev < start[i - 1]) return makeError("start times are not sorted");
    }
    if (Status s = finished(starts, "start"); !s) return s;
    if (!end) return {};
    for (uint32_t i = 0; i < count; ++i) {
        int64_t d = unzigzag(ends.varint());
        if (d < 0) return makeError("negative duration");
        if (d > kMaxEventTime - start[i]) return makeError("end time out of range");
        end[i] = start[i] + d;
        if (lane && i > 0 && start[i] < end[i - 1])
            return makeError("overlapping events in one lane");
    }
    return finished(ends, "end");
}

// Version 2: the first start zigzag, then unsigned gaps after the previous end (`gaps`: a lane,
// which cannot overlap) or after the previous start; durations unsigned. Start and end columns
// are read together since each start depends on the previous end.
Status decodeTimesV2(Reader starts, Reader ends, uint32_t count, bool gaps, bool lane,
                     int64_t* start, int64_t* end) {
    int64_t prevStart = 0, prevEnd = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t v = starts.varint();
        int64_t s;
        if (i == 0) {
            s = unzigzag(v);
            if (s < -kMaxEventTime || s > kMaxEventTime)
                return makeError("start time out of range");
        } else {
            const int64_t from = gaps ? prevEnd : prevStart;  // within +-kMaxEventTime
            if (v > static_cast<uint64_t>(kMaxEventTime - from))
                return makeError("start time out of range");
            s = from + static_cast<int64_t>(v);
        }
        start[i] = s;
        prevStart = prevEnd = s;
        if (end) {
            const uint64_t d = ends.varint();
            if (d > static_cast<uint64_t>(kMaxEventTime - s))
                return makeError("end time out of range");
            if (lane && !gaps && i > 0 && s < end[i - 1])
                return makeError("overlapping events in one lane");
            end[i] = prevEnd = s + static_cast<int64_t>(d);
        }
    }
    if (Status s = finished(starts, "start"); !s) return s;
    return end ? finished(ends, "end") : Status{};
}

}  // namespace

uint64_t chunkChecksum(const void* data, size_t size) { return XXH3_64bits(data, size); }

ChunkEncoder::ChunkEncoder(int level, uint8_t version)
    : m_ctx(ZSTD_createCCtx()),
      m_level(level),
      m_version(version == 1 ? 1 : kChunkEncodingVersion) {}
ChunkEncoder::~ChunkEncoder() { ZSTD_freeCCtx(m_ctx); }

Status ChunkEncoder::encode(const Track& t, size_t b, size_t e, EncodedChunk& out) {
    const KindSchema& sc = t.schema();
    // A lane's events follow each other: each start is stored as the gap after the previous
    // end, which is smaller than the distance between starts by the previous duration (15% of
    // a chunk's bytes). Overlapping events (an importer's spooled runs) store start deltas.
    bool laneCoded = true;
    for (size_t i = b + 1; i < e; ++i) {
        if (t.start[i] < t.start[i - 1]) return makeError("chunk events are not sorted by start");
        laneCoded = laneCoded && t.start[i] >= t.endAt(i - 1);
    }
    if (sc.hasEnd)
        for (size_t i = b; i < e; ++i)
            if (t.end[i] < t.start[i]) return makeError("chunk event ends before it starts");
    if (m_version == 1) laneCoded = false;  // version 1 has start deltas only, zigzag
    m_raw.clear();
    m_raw.reserve((e - b) * 16 + 64);
    m_raw.insert(m_raw.end(), kMagic, kMagic + 3);
    m_raw.push_back(m_version);
    putU32(m_raw, static_cast<uint32_t>(e - b));
    const uint8_t ncols = static_cast<uint8_t>(1 + (sc.hasEnd ? 1 : 0) + (sc.hasName ? 1 : 0) + sc.columns.size());
    m_raw.push_back(ncols);
    if (m_version >= 2) m_raw.push_back(laneCoded ? kStartsAsGaps : kStartsAsDeltas);
    // Version 2 stores the non-negative gaps, deltas and durations unsigned (one bit more per
    // byte).
    auto putTime = [&](int64_t v) {
        putVarint(m_raw, m_version >= 2 ? static_cast<uint64_t>(v) : zigzag(v));
    };
    putColumn(m_raw, [&] {
        if (e > b) putVarint(m_raw, zigzag(t.start[b]));
        for (size_t i = b + 1; i < e; ++i)
            putTime(t.start[i] - (laneCoded ? t.endAt(i - 1) : t.start[i - 1]));
    });
    if (sc.hasEnd) {
        putColumn(m_raw, [&] {
            for (size_t i = b; i < e; ++i) putTime(t.end[i] - t.start[i]);
        });
    }
    if (sc.hasName) {
        putColumn(m_raw, [&] {
            for (size_t i = b; i < e; ++i) putVarint(m_raw, t.name[i]);
        });
    }
    for (size_t c = 0; c < sc.columns.size(); ++c) {
        const Column& col = t.cols[c];
        if (sc.columns[c].type == ColumnType::F64) {
            putColumn(m_raw, [&] {
                const auto v = col.view<double>();
                for (size_t i = b; i < e; ++i) {
                    uint64_t bits = std::bit_cast<uint64_t>(v[i]);
                    for (int k = 0; k < 8; ++k) m_raw.push_back(static_cast<uint8_t>(bits >> (8 * k)));
                }
            });
        } else if (sc.columns[c].coding == ColumnCoding::Delta) {
            putColumn(m_raw, [&] {
                int64_t prev = 0;
                for (size_t i = b; i < e; ++i) {
                    int64_t v = col.intAt(i);
                    putVarint(m_raw, zigzag(wrappingSub(v, prev)));
                    prev = v;
                }
            });
        } else {
            putColumn(m_raw, [&] {
                for (size_t i = b; i < e; ++i) putVarint(m_raw, zigzag(col.intAt(i)));
            });
        }
    }
    out.count = static_cast<uint32_t>(e - b);
    out.rawBytes = m_raw.size();
    out.blob.resize(ZSTD_compressBound(m_raw.size()));
    size_t n = ZSTD_compressCCtx(m_ctx, out.blob.data(), out.blob.size(), m_raw.data(), m_raw.size(), m_level);
    if (ZSTD_isError(n)) return makeError(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
    out.blob.resize(n);
    out.checksum = chunkChecksum(out.blob.data(), out.blob.size());
    out.tMin = e > b ? t.start[b] : 0;
    out.tMax = e > b ? t.endAt(e - 1) : 0;
    return {};
}

ChunkDecoder::ChunkDecoder() : m_ctx(ZSTD_createDCtx()) {}
ChunkDecoder::~ChunkDecoder() { ZSTD_freeDCtx(m_ctx); }

Status ChunkDecoder::decode(const void* blob, size_t blobSize, uint64_t rawBytes, uint32_t count,
                            uint64_t checksum, Track& t, uint64_t columns, bool lane) {
    if (chunkChecksum(blob, blobSize) != checksum) return makeError("checksum mismatch");
    if (rawBytes > kMaxRawBytes || rawBytes < 9) return makeError("implausible decoded size " + std::to_string(rawBytes));
    // Each event takes at least one byte: a count the decoded bytes cannot hold is refused
    // before anything is sized by it.
    if (count > rawBytes) return makeError("event count " + std::to_string(count) + " exceeds the decoded size");
    // The decoded size must be the frame's own, and memory follows what decompression actually
    // produces (a frame can claim any size): bad input cannot make the reader allocate what its
    // bytes do not back.
    const unsigned long long declared = ZSTD_getFrameContentSize(blob, blobSize);
    if (declared == ZSTD_CONTENTSIZE_ERROR) return makeError("not a zstd frame");
    if (declared != rawBytes)
        return makeError("decoded size " + std::to_string(rawBytes) + " does not match the zstd frame's");
    size_t n = 0;
    if (rawBytes <= kFirstOutput) {  // every chunk our writer makes: one call, no copies
        m_raw.resize(rawBytes);
        n = ZSTD_decompressDCtx(m_ctx, m_raw.data(), m_raw.size(), blob, blobSize);
        if (ZSTD_isError(n)) return makeError(std::string("zstd: ") + ZSTD_getErrorName(n));
    } else {
        ZSTD_DCtx_reset(m_ctx, ZSTD_reset_session_only);
        m_raw.resize(kFirstOutput);
        ZSTD_inBuffer in{blob, blobSize, 0};
        for (;;) {
            ZSTD_outBuffer out{m_raw.data(), m_raw.size(), n};
            const size_t rc = ZSTD_decompressStream(m_ctx, &out, &in);
            if (ZSTD_isError(rc)) return makeError(std::string("zstd: ") + ZSTD_getErrorName(rc));
            n = out.pos;
            if (rc == 0) {
                if (in.pos != in.size) return makeError("bytes after the zstd frame");
                break;
            }
            if (n == m_raw.size()) {
                if (n >= rawBytes) return makeError("the zstd frame decodes to more than its declared size");
                m_raw.resize(std::min<size_t>(rawBytes, 2 * n));
            } else if (in.pos == in.size) {
                return makeError("the zstd frame is truncated");
            }
        }
    }
    if (n != rawBytes) return makeError("decoded " + std::to_string(n) + " bytes, expected " + std::to_string(rawBytes));
    if (std::memcmp(m_raw.data(), kMagic, 3) != 0) return makeError("bad chunk magic");
    const uint8_t version = m_raw[3];
    if (version != 1 && version != 2)
        return makeError("unsupported chunk encoding version " + std::to_string(version));
    Reader r{m_raw.data() + 4, m_raw.data() + m_raw.size()};
    const uint32_t storedCount = r.u32();
    if (!r.ok || storedCount != count)
        return makeError("event count " + std::to_string(storedCount) + " does not match the index (" +
                         std::to_string(count) + ")");
    if (r.end - r.p < (version == 1 ? 1 : 2)) return makeError("truncated chunk header");
    const uint8_t ncols = *r.p++;
    const uint8_t startCoding = version == 1 ? kStartsAsDeltas : *r.p++;
    if (startCoding != kStartsAsGaps && startCoding != kStartsAsDeltas)
        return makeError("unknown start coding " + std::to_string(startCoding));
    const KindSchema& sc = t.schema();
    const size_t needed = 1 + (sc.hasEnd ? 1 : 0) + (sc.hasName ? 1 : 0);
    if (ncols < needed) return makeError("chunk has " + std::to_string(ncols) + " columns, need at least " + std::to_string(needed));

    const size_t base = t.start.size();
    // Read one column's byte range and check it lies inside the payload.
    auto column = [&](const char* what, Reader& out) -> Status {
        uint32_t len = r.u32();
        if (!r.ok || static_cast<size_t>(r.end - r.p) < len)
            return makeError(std::string("column '") + what + "' overruns the chunk");
        out = Reader{r.p, r.p + len};
        r.p += len;
        return {};
    };

    Reader starts{nullptr, nullptr}, ends{nullptr, nullptr};
    if (Status s = column("start", starts); !s) return s;
    if (sc.hasEnd)
        if (Status s = column("end", ends); !s) return s;
    t.start.resize(base + count);
    if (sc.hasEnd) t.end.resize(base + count);
    int64_t* const end = sc.hasEnd ? t.end.data() + base : nullptr;
    if (Status s = version == 1
                       ? decodeTimesV1(starts, ends, count, lane, t.start.data() + base, end)
                       : decodeTimesV2(starts, ends, count, startCoding == kStartsAsGaps, lane,
                                       t.start.data() + base, end);
        !s)
        return s;
    Reader cr{nullptr, nullptr};
    if (sc.hasName) {
        if (Status s = column("name", cr); !s) return s;
        t.name.resize(base + count);
        for (uint32_t i = 0; i < count; ++i) t.name[base + i] = static_cast<uint32_t>(cr.varint());
        if (Status s = finished(cr, "name"); !s) return s;
    }
    const size_t stored = ncols - needed;
    for (size_t c = 0; c < sc.columns.size(); ++c) {
        Column& col = t.cols[c];
        const ColumnSpec& spec = sc.columns[c];
        if (c >= stored) {  // an older file without this column: zeros
            col.resize(base + count);
            continue;
        }
        std::string what(spec.name);
        if (Status s = column(what.c_str(), cr); !s) return s;
        if (c >= 64 || !(columns >> c & 1)) {  // not wanted: its bytes are skipped, it reads as zeros
            col.resize(base + count);
            continue;
        }
        if (spec.type == ColumnType::F64) {
            if (static_cast<size_t>(cr.end - cr.p) != static_cast<size_t>(count) * 8)
                return makeError("column '" + what + "' has the wrong size");
            for (uint32_t i = 0; i < count; ++i) {
                uint64_t bits = 0;
                for (int k = 0; k < 8; ++k) bits |= static_cast<uint64_t>(cr.p[k]) << (8 * k);
                cr.p += 8;
                col.push<double>(std::bit_cast<double>(bits));
            }
        } else {
            // Decoded into scratch, then appended with one type dispatch.
            m_values.resize(count);
            int64_t* out = m_values.data();
            if (spec.coding == ColumnCoding::Delta) {
                int64_t prev = 0;
                for (uint32_t i = 0; i < count; ++i) out[i] = prev = wrappingAdd(prev, unzigzag(cr.varint()));
            } else {
                for (uint32_t i = 0; i < count; ++i) out[i] = unzigzag(cr.varint());
            }
            col.appendInts(out, count);
        }
        if (Status s = finished(cr, what.c_str()); !s) return s;
    }
    // Columns beyond those this build knows (written by a newer version) are ignored.
    return {};
}

}  // namespace sl
