#include "capture/cupti/KernelNames.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>

namespace sl::cuda {

std::string demangle(const char* mangled) {
    if (!mangled || std::strncmp(mangled, "_Z", 2) != 0) return mangled ? mangled : "";
    int status = 0;
    char* out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    if (status != 0 || !out) return mangled;
    std::string s(out);
    std::free(out);
    return s;
}

namespace {

// Index of the bracket that opens the group closing at s[close], or npos.
size_t matchingOpen(std::string_view s, size_t close, char open, char shut) {
    int depth = 0;
    for (size_t i = close + 1; i-- > 0;) {
        if (s[i] == shut)
            ++depth;
        else if (s[i] == open && --depth == 0)
            return i;
    }
    return std::string_view::npos;
}

}  // namespace

std::string shortKernelName(std::string_view s) {
    // Step 1: drop the parameter list "(...)" and template arguments "<...>" at the end.
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (!s.empty() && s.back() == ')') {
        size_t open = matchingOpen(s, s.size() - 1, '(', ')');
        if (open != std::string_view::npos && open > 0) s = s.substr(0, open);
    }
    if (!s.empty() && s.back() == '>') {
        size_t open = matchingOpen(s, s.size() - 1, '<', '>');
        if (open != std::string_view::npos && open > 0) s = s.substr(0, open);
    }
    // Step 2: drop the return type and the namespaces: what follows the last space or "::"
    // outside brackets.
    int depth = 0;
    size_t cut = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '<' || c == '(' || c == '[')
            ++depth;
        else if ((c == '>' || c == ')' || c == ']') && depth > 0)
            --depth;
        else if (depth == 0 && c == ' ')
            cut = i + 1;
        else if (depth == 0 && c == ':' && i + 1 < s.size() && s[i + 1] == ':')
            cut = i + 2;
    }
    s = s.substr(cut);
    return std::string(s.empty() ? std::string_view("(unnamed)") : s);
}

}  // namespace sl::cuda
