// The importers on any bytes, as `sightline import` and the viewer's open: an nsys SQLite
// export, a Chrome/Kineto trace (JSON, or gzip), whatever the content says it is. For gzip the
// memory cap counts the inflated bytes (what the importer then legitimately holds).
#include <zlib.h>

#include <algorithm>
#include <vector>

#include "FuzzSupport.h"
#include "model/import/ImportFile.h"

namespace {
// How many bytes the input inflates to (whatever inflates before an error), up to `limit`.
size_t inflatedBytes(const uint8_t* data, size_t size, size_t limit) {
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) return 0;
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) return 0;
    std::vector<uint8_t> out(1 << 16);
    z.next_in = const_cast<Bytef*>(data);
    z.avail_in = static_cast<uInt>(size);
    size_t total = 0;
    for (;;) {
        z.next_out = out.data();
        z.avail_out = static_cast<uInt>(out.size());
        const int rc = inflate(&z, Z_NO_FLUSH);
        total += out.size() - z.avail_out;
        if (rc == Z_STREAM_END && z.avail_in > 0) {
            inflateReset(&z);  // another member
            continue;
        }
        if (rc != Z_OK || total >= limit) break;
    }
    inflateEnd(&z);
    return total;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = sl::fuzz::inputFile(data, size, ".import");
    const size_t inflated = inflatedBytes(data, size, size_t{1} << 30);
    sl::fuzz::MemoryCap cap(std::max(size, inflated));
    auto r = sl::importFile(path);
    (void)r;
    return 0;
}
