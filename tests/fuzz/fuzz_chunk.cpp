// The .rep column-chunk decoder without the checksum in the way (a fuzzer cannot forge XXH3):
// the first byte picks the event kind (and, above the kinds, a bare read: start, end and name
// only), the next 8 the declared decoded size and event count,
// the rest is the zstd blob.
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <iterator>

#include "FuzzSupport.h"
#include "model/core/Schema.h"
#include "model/core/Track.h"
#include "model/rep/ChunkCodec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 9) return 0;
    // What the blob's frame says it decodes to counts too: up to 16 bytes of columns per decoded
    // byte are the reader's legitimate holding (one byte per value at the least, eight to hold it).
    const unsigned long long frame = ZSTD_getFrameContentSize(data + 9, size - 9);
    const size_t declared = frame == ZSTD_CONTENTSIZE_ERROR || frame == ZSTD_CONTENTSIZE_UNKNOWN
                                ? 0
                                : static_cast<size_t>(std::min<unsigned long long>(frame, 1ull << 32));
    sl::fuzz::MemoryCap cap(std::max(size, declared / 4));
    const sl::EventKind kind = sl::kAllEventKinds[data[0] % std::size(sl::kAllEventKinds)];
    const bool bare = (data[0] / std::size(sl::kAllEventKinds)) % 2 == 1;
    uint32_t raw = 0, count = 0;
    std::memcpy(&raw, data + 1, 4);
    std::memcpy(&count, data + 5, 4);
    const uint8_t* blob = data + 9;
    const size_t blobSize = size - 9;
    sl::Track t(sl::TrackKey::forThread(kind, 1, 1));
    sl::ChunkDecoder d;
    if (d.decode(blob, blobSize, raw, count, sl::chunkChecksum(blob, blobSize), t, bare ? 0 : ~uint64_t{0})) t.finishLoaded();
    return 0;
}
