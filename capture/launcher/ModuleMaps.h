#pragma once
// The executable mappings of every traced process over time, rebuilt from the kernel's
// PERF_RECORD_MMAP2/FORK/COMM(exec) records in time order, so that a sampled address of a pid
// can be turned into (module, file offset) after the process is gone. Modules (paths) are
// interned: module ids index modules(). Single-threaded (the sampler's merge step).
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sl::capture {

class ModuleMaps {
public:
    struct Location {
        uint32_t module = 0;  // index into modules(); kNoModule when the address is in no mapping
        uint64_t offset = 0;  // file offset in the module (the address itself when unmapped)
    };
    static constexpr uint32_t kNoModule = UINT32_MAX;

    // A new mapping [start, start + length) of file `path` at file offset `pgoff`. Replaces
    // what it overlaps (munmap is not reported; a new mapping over an old range wins).
    void map(int64_t pid, uint64_t start, uint64_t length, uint64_t pgoff, std::string_view path);
    // `child` starts with a copy of `parent`'s mappings (fork); a thread of an existing process
    // (parent == child) changes nothing.
    void fork(int64_t parent, int64_t child);
    // exec: the process's old mappings are gone.
    void exec(int64_t pid);
    Location lookup(int64_t pid, uint64_t address) const;
    const std::vector<std::string>& modules() const { return m_modules; }
    uint32_t moduleId(std::string_view path);
    // Changes whenever a lookup could give a different answer (map, fork, exec).
    uint64_t generation() const { return m_generation; }

private:
    struct Mapping {
        uint64_t start, end, pgoff;
        uint32_t module;
    };
    std::unordered_map<int64_t, std::vector<Mapping>> m_maps;  // per pid, sorted by start
    std::vector<std::string> m_modules;
    std::unordered_map<std::string, uint32_t> m_moduleIndex;
    uint64_t m_generation = 0;
};

}  // namespace sl::capture
