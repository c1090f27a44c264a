#pragma once
// This machine's name, as gethostname gives it ("" when it cannot): the report's session, the
// %h of --output, the kallsyms cache file's name.
#include <unistd.h>

#include <string>

namespace sl::capture {

inline std::string hostName() {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) return {};
    return host;
}

}  // namespace sl::capture
