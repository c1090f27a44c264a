#pragma once
// This process's executable mappings from /proc/self/maps, into `maps` under `pid`: what the
// sampler learns from MMAP2 records, for tests that unwind or symbolize their own code.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "capture/launcher/ModuleMaps.h"

namespace sl::test {

// Calls fn(start, size, fileOffset, path) for each executable mapping of this process.
template <class Fn>
void forEachSelfExecMapping(Fn&& fn) {
    std::ifstream f("/proc/self/maps");
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        std::string range, perms, offset, dev, inode, path;
        in >> range >> perms >> offset >> dev >> inode >> path;
        if (perms.find('x') == std::string::npos || path.empty()) continue;
        const uint64_t start = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
        const uint64_t end = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
        fn(start, end - start, std::stoull(offset, nullptr, 16), path);
    }
}

inline void loadSelfMaps(capture::ModuleMaps& maps, int64_t pid) {
    forEachSelfExecMapping([&](uint64_t start, uint64_t size, uint64_t offset, const std::string& path) {
        maps.map(pid, start, size, offset, path);
    });
}

}  // namespace sl::test
