// `sightline`: the command-line front end (no Qt, so it installs on headless GPU servers).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "app/cli/Command.h"

namespace sl::cli {

std::vector<Command>& commands() {
    static std::vector<Command> all;
    return all;
}

int fail(const std::string& message) {
    std::fprintf(stderr, "sightline: error: %s\n", message.c_str());
    return 1;
}

int usageError(const std::string& command, const std::string& message) {
    std::fprintf(stderr, "sightline %s: error: %s (see 'sightline %s --help')\n", command.c_str(), message.c_str(),
                 command.c_str());
    return 2;
}

int runCommand(const std::vector<std::string>& args) {
    if (args.empty()) return 2;
    std::vector<std::string> copy = args;
    std::vector<char*> argv;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (const auto& c : commands())
        if (args[0] == c.name) return c.run(static_cast<int>(copy.size()), argv.data());
    return fail("unknown command '" + args[0] + "'");
}

int runCommandToFile(const std::vector<std::string>& args, const std::string& path) {
    std::fflush(stdout);
    std::cout.flush();
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return fail("cannot write " + path + ": " + std::strerror(errno));
    const int saved = dup(1);
    dup2(fd, 1);
    close(fd);
    const int code = runCommand(args);
    // A full disk shows here, when the buffered text reaches the file.
    const bool written = std::fflush(stdout) == 0 && std::cout.flush().good();
    dup2(saved, 1);
    close(saved);
    if (code == 0 && !written) return fail("error writing " + path);
    return code;
}

}  // namespace sl::cli

namespace {

void printHelp() {
    auto cmds = sl::cli::commands();
    std::sort(cmds.begin(), cmds.end(), [](const auto& a, const auto& b) {
        return a.order != b.order ? a.order < b.order : std::strcmp(a.name, b.name) < 0;
    });
    std::printf("usage: sightline <command> [options] ...\n\n"
                "Sightline %s: a CUDA and CPU timeline profiler.\n\ncommands:\n",
                SIGHTLINE_VERSION);
    for (const auto& c : cmds)
        if (!c.hidden) std::printf("  %-10s %s\n", c.name, c.summary);
    std::printf("\n'sightline <command> --help' describes a command's options.\n");
}

}  // namespace

// What a command printed must have reached its standard output: a full disk or a closed pipe
// left `stats ... > out.txt` truncated with exit code 0, as if it had worked.
int withOutputChecked(int code) {
    std::cout.flush();
    const bool coutFailed = std::cout.fail();
    errno = 0;
    const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) || coutFailed;
    if (!failed) return code;
    const int err = errno;
    std::fprintf(stderr, "sightline: error: writing the output failed%s%s\n", err ? ": " : "",
                 err ? std::strerror(err) : " (a full disk, or a pipe closed early?)");
    return code != 0 ? code : 1;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        printHelp();
        return 2;
    }
    std::string first = argv[1];
    if (first == "--version" || first == "-v" || first == "version") {
        std::printf("sightline %s\n", SIGHTLINE_VERSION);
        return 0;
    }
    if (first == "--help" || first == "-h" || first == "help") {
        printHelp();
        return 0;
    }
    // A file-size limit (`ulimit -f`) makes a write past it an error we report (EFBIG, the
    // partial file removed) instead of SIGXFSZ killing us with a temporary file left behind.
    // Not for `profile`, whose program must inherit the disposition it was started with (its
    // launcher handles SIGXFSZ itself).
    if (first != "profile") std::signal(SIGXFSZ, SIG_IGN);
    for (const auto& c : sl::cli::commands())
        if (first == c.name) return withOutputChecked(c.run(argc - 1, argv + 1));
    // nsys's interactive sessions: said plainly, with what does the same here.
    for (const char* session : {"launch", "start", "stop", "shutdown", "sessions", "cancel"})
        if (first == session) {
            std::fprintf(stderr,
                         "sightline: error: '%s' is an nsys session command; Sightline has no sessions: run "
                         "'sightline profile [options] PROGRAM', with a capture range (-c cudaProfilerApi, "
                         "-c nvtx -p RANGE) or --delay/--duration to choose what is recorded\n",
                         first.c_str());
            return 2;
        }
    std::fprintf(stderr, "sightline: error: unknown command '%s' (see 'sightline --help')\n", first.c_str());
    return 2;
}
