#pragma once
// An input file's name without the extension of its kind, in its directory: what outputs made
// from it are named after (`import trace.json.gz` makes trace.rep; `stats -o . run.nsys-rep`
// makes run_nvtx_sum.csv, as nsys names it). One list for every command: `stats` stripped only
// the last extension and wrote hta_base.json_cuda_gpu_kern_sum.csv for hta_base.json.gz.
#include <filesystem>
#include <string>

namespace sl::cli {

inline std::string inputStem(const std::string& input) {
    std::filesystem::path p(input);
    std::string name = p.filename().string();
    for (const char* ext : {".pt.trace.json.gz", ".json.gz", ".pt.trace.json", ".json", ".sqlite",
                            ".db", ".nsys-rep", ".qdrep", ".rep", ".gz"}) {
        const std::string e(ext);
        if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) {
            name.resize(name.size() - e.size());
            break;
        }
    }
    return (p.parent_path() / name).string();
}

}  // namespace sl::cli
