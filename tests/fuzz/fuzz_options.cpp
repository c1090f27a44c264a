// The command-line parser on any words: the input's NUL-separated words are a command line
// (the first picks the subcommand among those defined), parsed as `sightline` parses argv.
#include <string>
#include <vector>

#include "FuzzSupport.h"
#include "model/options/OptionDef.h"
#include "model/options/OptionParser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    sl::fuzz::MemoryCap cap(size);
    std::vector<std::string> words(1);
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == 0) words.emplace_back();
        else words.back().push_back(static_cast<char>(data[i]));
    }
    const auto& commands = sl::options::commandDefs();
    if (commands.empty()) return 0;
    const uint8_t pick = size ? data[0] : 0;
    const std::string_view command = commands[pick % commands.size()].name;
    words.erase(words.begin());  // the first word chose the command
    for (bool cuda : {false, true}) {
        sl::options::BuildFeatures f;
        f.cuda = cuda;
        auto parsed = sl::options::parseArgs(command, words, f);
        (void)parsed;
    }
    return 0;
}
