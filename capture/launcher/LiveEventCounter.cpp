#include "capture/launcher/LiveEventCounter.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "capture/common/RawFormat.h"

namespace sl::capture {

namespace fs = std::filesystem;

namespace {

bool isEventRecord(RecordType t) {
    return t == RecordType::Event || t == RecordType::NvtxPush || t == RecordType::NvtxStart ||
           t == RecordType::NvtxMark;
}

}  // namespace

uint64_t LiveEventCounter::poll() {
    for (const std::string& dir : m_dirs)
        if (!dir.empty()) pollDirectory(dir);
    return m_total;
}

void LiveEventCounter::pollDirectory(const std::string& dir) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string path = entry.path().string();
        if (entry.path().extension() != ".slraw") continue;
        const uint64_t size = entry.file_size(ec);
        if (ec) continue;
        uint64_t& offset = m_offsets[path];
        if (offset == 0) offset = sizeof(StreamHeader);
        if (size <= offset) continue;
        std::ifstream in(path, std::ios::binary);
        in.seekg(static_cast<std::streamoff>(offset));
        std::vector<uint8_t> block;
        // Whole blocks only: a block still being written is counted at the next poll.
        while (offset + sizeof(BlockHeader) <= size) {
            BlockHeader bh{};
            if (!in.read(reinterpret_cast<char*>(&bh), sizeof bh) || bh.magic != kBlockMagic) break;
            if (offset + sizeof bh + bh.bytes > size) break;
            block.resize(bh.bytes);
            if (!in.read(reinterpret_cast<char*>(block.data()), bh.bytes)) break;
            for (size_t p = 0; p + sizeof(RecordHeader) <= block.size();) {
                RecordHeader rh{};
                std::memcpy(&rh, block.data() + p, sizeof rh);
                if (rh.size8 == 0) break;
                if (isEventRecord(rh.type)) ++m_total;
                p += static_cast<size_t>(rh.size8) * 8;
            }
            offset += sizeof bh + bh.bytes;
        }
    }
}

}  // namespace sl::capture
