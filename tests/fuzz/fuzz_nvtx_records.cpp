// The record decoders of the raw format on any bytes taken as one block: NVTX push/start/mark
// (compact and full, registered and inline messages, payloads), metadata records and strings.
#include <cstring>
#include <vector>

#include "FuzzSupport.h"
#include "capture/common/RawReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    sl::fuzz::MemoryCap cap(size);
    if (size > (size_t{1} << 30)) return 0;  // one block is at most 4 GiB; (size + 7) stays exact
    // Records are read in place and 8-byte aligned in a real block: copy to aligned memory.
    std::vector<uint64_t> aligned((size + 7) / 8);
    if (size) std::memcpy(aligned.data(), data, size);
    sl::capture::RawBlock b;
    b.tid = 1;
    b.data = reinterpret_cast<const uint8_t*>(aligned.data());
    b.bytes = static_cast<uint32_t>(size & ~size_t{7});
    size_t sum = 0;
    sl::capture::forEachRecord(b, [&](const sl::capture::RecordHeader& h, const uint8_t* rec) {
        using sl::capture::RecordType;
        if (h.type == RecordType::NvtxPush || h.type == RecordType::NvtxStart ||
            h.type == RecordType::NvtxMark) {
            sl::capture::NvtxFields f;
            if (sl::capture::decodeNvtx(rec, &f)) {
                for (char c : f.text) sum += static_cast<unsigned char>(c);
                sum += sl::capture::nvtxInlineText(rec).size();
            }
        } else if (h.type == RecordType::Meta) {
            sl::capture::MetaView m;
            if (sl::capture::decodeMeta(rec, &m))
                for (int i = 0; i < m.strCount; ++i)
                    for (char c : m.strs[i]) sum += static_cast<unsigned char>(c);
        } else if (h.type == RecordType::String) {
            for (char c : sl::capture::stringText(rec)) sum += static_cast<unsigned char>(c);
        }
    });
    volatile size_t sink = sum;
    (void)sink;
    return 0;
}
