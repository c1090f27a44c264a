// Test client: `exec_chain N` replaces itself N times (execv of its own executable with N-1), so
// the process ends as `exec_chain 0 step1` after N execs. Exits 0.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    const int left = argc > 1 ? std::atoi(argv[1]) : 0;
    if (left <= 0) return 0;
    const std::string next = std::to_string(left - 1);
    const std::string step = "step" + std::to_string(left);
    char* args[] = {argv[0], const_cast<char*>(next.c_str()), const_cast<char*>(step.c_str()),
                    nullptr};
    execv("/proc/self/exe", args);
    std::perror("exec_chain: execv");
    return 1;
}
