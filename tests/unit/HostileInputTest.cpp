// Inputs the fuzz targets found (issue #24, tests/fuzz): each is a clear error or a bounded
// result, never a crash, an overflow or an allocation its bytes do not back.
#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "model/core/LodQuery.h"
#include "model/core/Track.h"
#include "model/rep/ChunkCodec.h"

namespace sl {
namespace {

std::vector<uint8_t> zstdFrame(const std::string& content) {
    std::vector<uint8_t> out(ZSTD_compressBound(content.size()));
    out.resize(ZSTD_compress(out.data(), out.size(), content.data(), content.size(), 1));
    return out;
}

// fuzz_chunk: a chunk whose index claims 4 GiB of decoded bytes for a 40-byte frame was
// allocated before decompression (1 GB at the fuzzer's peak). The size must be the frame's own.
TEST(HostileInput, ChunkDecodedSizeMustBeTheFrames) {
    const std::vector<uint8_t> blob = zstdFrame(std::string(64, 'x'));
    Track t(TrackKey::forThread(EventKind::OsRuntime, 1, 1));
    ChunkDecoder d;
    Status s = d.decode(blob.data(), blob.size(), 0xFFFFFFF0u, 3, chunkChecksum(blob.data(), blob.size()), t);
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().find("does not match the zstd frame"), std::string::npos) << s.error();
    // A count the decoded bytes cannot hold is refused before any column is sized by it.
    s = d.decode(blob.data(), blob.size(), 64, 1000000, chunkChecksum(blob.data(), blob.size()), t);
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().find("exceeds the decoded size"), std::string::npos) << s.error();
    EXPECT_TRUE(t.empty());
}

// fuzz_raw_stream: a damaged stream with a time near INT64_MIN made a duration overflow in the
// level-of-detail build. Times are held to +-kMaxEventTime.
TEST(HostileInput, ExtremeTimesAreHeldToTheModelsRange) {
    Track t(TrackKey::forThread(EventKind::OsRuntime, 1, 1));
    const int64_t extra[3] = {0, 0, 0};
    t.append(INT64_MIN + 5, 24508858313598, 0, extra);
    t.append(100, INT64_MAX, 0, extra);
    t.append(INT64_MIN, INT64_MAX, 0, extra);  // the widest: still a duration int64 can hold
    t.finalize();
    for (size_t i = 0; i < t.size(); ++i) {
        EXPECT_GE(t.start[i], -kMaxEventTime);
        EXPECT_LE(t.endAt(i), kMaxEventTime);
        EXPECT_GE(t.durationAt(i), 0);
    }
    EXPECT_EQ(t.tMax, kMaxEventTime);
    int64_t widest = 0;
    for (size_t i = 0; i < t.size(); ++i) widest = std::max(widest, t.durationAt(i));
    EXPECT_EQ(widest, 2 * kMaxEventTime);
}

// fuzz_raw_stream: overlapping ranges of 2^62 ns each (two lanes) overflowed the busy-time
// prefix sums of the level of detail. They wrap now; a lane's window is still exact.
TEST(HostileInput, BusyTimeOfAbsurdRangesDoesNotOverflow) {
    Track t(TrackKey::forThread(EventKind::OsRuntime, 1, 1));
    const int64_t extra[3] = {0, 0, 0};
    t.append(-kMaxEventTime + 1, kMaxEventTime - 1, 0, extra);
    t.append(-kMaxEventTime + 2, kMaxEventTime - 2, 0, extra);
    t.append(-kMaxEventTime + 3, kMaxEventTime - 3, 0, extra);
    t.finalize();
    ASSERT_EQ(t.laneCount(), 3u);
    std::vector<LodBucket> out;
    for (uint32_t l = 0; l < t.laneCount(); ++l) {
        queryBuckets(t, l, -1000, 1000, 4, out);
        for (const LodBucket& b : out) EXPECT_EQ(b.busyNs, 500);
    }
    EXPECT_EQ(t.lod.busy(t, 0, 1), t.durationAt(0));
}

}  // namespace
}  // namespace sl
