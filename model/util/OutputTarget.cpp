#include "model/util/OutputTarget.h"

#include <sys/stat.h>

#include <filesystem>

namespace sl {
namespace {

const char* kindOf(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a named pipe";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

}  // namespace

Result<std::string> outputTarget(const std::string& path) {
    namespace fs = std::filesystem;
    fs::path target = path;
    // Follow a chain of links (a dangling one too: its target is created), at most 40 as the
    // kernel does.
    for (int hops = 0;; ++hops) {
        struct stat st {};
        if (::lstat(target.c_str(), &st) != 0) return target.string();  // not there: made new
        if (S_ISREG(st.st_mode)) return target.string();
        if (!S_ISLNK(st.st_mode))
            return makeError("'" + path + "'" +
                             (target.string() == path ? "" : " (through its link, '" + target.string() + "')") +
                             " is " + kindOf(st.st_mode) + ", not a file this can be written to");
        if (hops == 40) return makeError("'" + path + "': too many levels of symbolic links");
        std::error_code ec;
        const fs::path next = fs::read_symlink(target, ec);
        if (ec) return makeError("cannot read the link '" + target.string() + "': " + ec.message());
        target = next.is_absolute() ? next : target.parent_path() / next;
    }
}

}  // namespace sl
