#include "capture/launcher/ProcTree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace sl::capture {

std::vector<int64_t> descendantsOf(int64_t root) {
    std::unordered_multimap<int64_t, int64_t> children;
    if (DIR* d = opendir("/proc")) {
        while (dirent* e = readdir(d)) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
            char path[300], buf[512];
            std::snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
            int fd = ::open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            ssize_t n = ::read(fd, buf, sizeof buf - 1);
            ::close(fd);
            if (n <= 0) continue;
            buf[n] = 0;
            const char* close = std::strrchr(buf, ')');  // names may contain spaces and ')'
            char state;
            long long ppid;
            if (close && std::sscanf(close + 1, " %c %lld", &state, &ppid) == 2)
                children.emplace(ppid, std::atoll(e->d_name));
        }
        closedir(d);
    }
    std::vector<int64_t> out;
    std::vector<int64_t> todo{root};
    while (!todo.empty()) {
        int64_t p = todo.back();
        todo.pop_back();
        auto [a, b] = children.equal_range(p);
        for (auto it = a; it != b; ++it) {
            if (std::find(out.begin(), out.end(), it->second) != out.end()) continue;
            out.push_back(it->second);
            todo.push_back(it->second);
        }
    }
    return out;
}

void killTree(int sig) {
    for (int64_t pid : descendantsOf(getpid())) kill(static_cast<pid_t>(pid), sig);
}

}  // namespace sl::capture
