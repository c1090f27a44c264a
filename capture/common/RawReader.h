#pragma once
// Reads one raw stream file (RawFormat.h) for the merge: maps the file (pages are read as the
// passes reach them and released after, see releasePages), validates the header and every
// block header, and stops at the first damaged or truncated block (a process that
// was killed mid-write), saying where. Records are then walked per block.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "capture/common/RawFormat.h"
#include "model/core/Result.h"

namespace sl::capture {

struct RawBlock {
    int64_t tid = 0;
    uint64_t seq = 0;
    const uint8_t* data = nullptr;
    uint32_t bytes = 0;
    uint64_t fileOffset = 0;
    bool mapped = false;  // in the file's mapping (large files), not in a copy read whole
};

// Decoded view of a MetaRecord.
struct MetaView {
    MetaKind kind{};
    int64_t ints[16] = {};
    int intCount = 0;
    std::string_view strs[4];
    int strCount = 0;
    int64_t i(int k) const { return k < intCount ? ints[k] : 0; }
    std::string_view s(int k) const { return k < strCount ? strs[k] : std::string_view{}; }
};

class RawStream {
public:
    RawStream() = default;
    RawStream(RawStream&& o) noexcept;
    RawStream& operator=(RawStream&& o) noexcept;
    RawStream(const RawStream&) = delete;
    RawStream& operator=(const RawStream&) = delete;
    ~RawStream();

    static Result<RawStream> open(const std::string& path);

    const std::string& path() const { return m_path; }
    const StreamHeader& header() const { return m_header; }
    const std::vector<RawBlock>& blocks() const { return m_blocks; }
    uint64_t fileBytes() const { return m_size; }
    // Bytes at the end that could not be read as blocks (0 for a clean file), and why.
    uint64_t damagedBytes() const { return m_damagedBytes; }
    const std::string& damage() const { return m_damage; }

private:
    std::string m_path;
    StreamHeader m_header{};
    const uint8_t* m_map = nullptr;  // the file's mapping, or m_copy's bytes
    std::vector<uint8_t> m_copy;     // a small file, read whole
    uint64_t m_size = 0;
    std::vector<RawBlock> m_blocks;
    uint64_t m_damagedBytes = 0;
    std::string m_damage;
};

// Gives the pages wholly inside a mapped block back to the kernel once a pass over it is done: the
// merge then holds a window of the stream, not the whole file (which can be larger than the
// report it becomes). The mapping is read-only and private, so a later pass over the block
// reads the same bytes again from the page cache.
void releasePages(const RawBlock& b);

// The fixed part of a record of each type: a shorter one is malformed (its fields would be read
// past its end). NVTX push/start/mark sizes depend on their flags: decodeNvtx checks those.
inline uint32_t minimumRecordBytes(RecordType t) {
    switch (t) {
        case RecordType::Event: return sizeof(EventRecord);
        case RecordType::String: return sizeof(StringRecord);
        case RecordType::Meta: return sizeof(MetaRecord);
        case RecordType::NvtxPush:
        case RecordType::NvtxMark:
        case RecordType::NvtxStart: return sizeof(NvtxCompactRecord);
        case RecordType::NvtxPop: return 16;  // NvtxEndRecord without the range id
        case RecordType::NvtxEnd: return sizeof(NvtxEndRecord);
    }
    return sizeof(RecordHeader);  // a type of a newer writer: skipped by its size
}

// Calls f(const RecordHeader&, const uint8_t* record) for each record of a block; returns false
// (and stops) at a malformed record.
template <class F>
bool forEachRecord(const RawBlock& b, F&& f) {
    uint32_t off = 0;
    while (off + sizeof(RecordHeader) <= b.bytes) {
        const auto* h = reinterpret_cast<const RecordHeader*>(b.data + off);
        uint32_t size = static_cast<uint32_t>(h->size8) * 8;
        if (size < minimumRecordBytes(h->type) || off + size > b.bytes) return false;
        f(*h, b.data + off);
        off += size;
    }
    return off == b.bytes;
}

bool decodeMeta(const uint8_t* record, MetaView* out);
// The fields of an NVTX push, start or mark (NvtxRecord or NvtxCompactRecord).
struct NvtxFields {
    int64_t time = 0;
    uint32_t category = 0, color = 0, message = 0;
    uint64_t payload = 0, rangeId = 0;
    std::string_view text;  // with kNvtxInline
};
bool decodeNvtx(const uint8_t* record, NvtxFields* out);
std::string_view stringText(const uint8_t* record);      // of a StringRecord
std::string_view nvtxInlineText(const uint8_t* record);  // of an NvtxRecord with kNvtxInline

}  // namespace sl::capture
