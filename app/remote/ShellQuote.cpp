#include "app/remote/ShellQuote.h"

#include <cctype>

namespace sl::remote {

std::string shellQuote(const std::string& word) {
    // Words of only these characters read the same unquoted: keeps logs and run.sh readable.
    bool plain = !word.empty();
    for (char c : word)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' ||
              c == '-' || c == '=' || c == ',' || c == ':' || c == '+' || c == '@'))
            plain = false;
    if (plain) return word;
    std::string out = "'";
    for (char c : word) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

std::string shellJoin(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) {
        if (!out.empty()) out += ' ';
        out += shellQuote(w);
    }
    return out;
}

}  // namespace sl::remote
