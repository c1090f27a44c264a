#include "app/cli/CommandLine.h"

#include <cstdio>

#include "app/cli/Command.h"
#include "model/options/OptionDocs.h"

namespace sl::cli {

options::BuildFeatures buildFeatures() {
    options::BuildFeatures f;
#if SIGHTLINE_HAVE_CUDA_REPORT
    f.cuda = true;
#endif
    return f;
}

std::optional<options::ParsedArgs> parseCommandLine(const char* command, int argc, char** argv,
                                                    int* exitCode) {
    std::vector<std::string> args(argv + 1, argv + argc);
    auto parsed = options::parseArgs(command, args, buildFeatures());
    if (!parsed) {
        *exitCode = usageError(command, parsed.error());
        return std::nullopt;
    }
    if (parsed->help) {
        std::printf("%s", options::helpText(command, buildFeatures()).c_str());
        *exitCode = 0;
        return std::nullopt;
    }
    for (const auto& w : parsed->warnings)
        std::fprintf(stderr, "sightline %s: warning: %s\n", command, w.c_str());
    *exitCode = 0;
    return std::move(*parsed);
}

}  // namespace sl::cli
