#pragma once
// `--python-functions-trace=FILE`: nsys's JSON file of Python functions to trace, read and
// checked before the program starts (every error names the entry at fault), then handed to the
// start-up hook of the traced Python processes (capture/python/sightline_pytrace.py) as a plain
// table, so that the format is parsed in one place only.
//
// The file: a list of groups, each
//   {"_comment": "...", "domain": "PyTorch", "color": "0xE8B795" | "E8B795" | "red" | 0xRRGGBB,
//    "category": "io" | 3, "module": "torch.amp",
//    "functions": ["GradScaler.step", "dot", {"function": "f", "color": "...", "domain": "...",
//                  "category": ..., "module": "..."}]}
// "module" and "functions" are required (an entry may name its own "module"); "domain" defaults
// to NVTX's default domain, "color" to none. A function is a dotted path inside its module
// ("Class.method"); its range is named as written.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/core/Result.h"

namespace sl::capture {

struct PythonTracedFunction {
    std::string domain;        // "" = the default domain
    std::string module;        // dotted import name
    std::string function;      // dotted path inside the module, also the range's name
    uint32_t color = 0;        // ARGB; 0 = none
    uint32_t category = 0;     // 0 = none
    std::string categoryName;  // when the file named the category
};

// Parses the file's text; `source` names it in errors.
Result<std::vector<PythonTracedFunction>> parsePythonFunctionsConfig(std::string_view json,
                                                                     const std::string& source);
Result<std::vector<PythonTracedFunction>> readPythonFunctionsConfig(const std::string& path);

// The table the hook reads: one line per function, tab-separated: domain, module, function,
// color (decimal), category (decimal), category name. No field holds a tab or a newline (the
// parser refuses them).
std::string pythonHookTable(const std::vector<PythonTracedFunction>& functions);

}  // namespace sl::capture
