#pragma once
// The file `sightline export --type TYPE REPORT` writes when no -o is given: the report's name
// with the type's extension (a folder for csv). One definition for `export` and for
// `profile --export`, which checks before the program starts that it may write them.
#include <filesystem>
#include <string>

namespace sl::cli {

inline std::string exportFileName(const std::string& report, const std::string& type) {
    std::filesystem::path p(report);
    p.replace_extension();
    if (type == "sqlite") return p.string() + ".sqlite";
    if (type == "json") return p.string() + ".json";
    if (type == "text") return p.string() + ".txt";
    if (type == "info") return p.string() + ".info.json";
    return p.string() + "_csv";
}

}  // namespace sl::cli
