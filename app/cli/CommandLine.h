#pragma once
// Reads a subcommand's command line through the one option definition (model/options): prints
// the generated --help and exits 0, or prints the one-line usage error and exits 2, before
// anything runs; prints one warning line per option nsys has that is not available here.
#include <optional>

#include "model/options/OptionParser.h"

namespace sl::cli {

// What this build can do (CUDA capture is built only where the CUDA toolkit was found).
options::BuildFeatures buildFeatures();

// Empty when the command should exit now with *exitCode (help printed: 0, usage error: 2).
std::optional<options::ParsedArgs> parseCommandLine(const char* command, int argc, char** argv,
                                                    int* exitCode);

}  // namespace sl::cli
