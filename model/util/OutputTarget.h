#pragma once
// Where a file the tools write (a report, an export) really goes. They write a temporary file
// beside the name and rename it over the name, so that a reader never sees half a file: given
// a device (`export -f -o /dev/null`), a pipe or a socket, that replaced the device with a
// regular file (as root, /dev/null itself); given a symbolic link, it replaced the link. A
// symbolic link is followed now (the file it names is written, the link stays); a name that
// exists and is not a regular file is refused with a message that says what it is.
#include <string>

#include "model/core/Result.h"

namespace sl {

Result<std::string> outputTarget(const std::string& path);

}  // namespace sl
