#pragma once
// Subcommands of `sightline`. Each *Command.cpp registers itself with a static Registrar, so
// adding a subcommand touches no shared file.
#include <string>
#include <vector>

namespace sl::cli {

struct Command {
    const char* name;
    const char* summary;
    int (*run)(int argc, char** argv);  // argv[0] is the command name
    bool hidden = false;
    int order = 100;  // position in `sightline --help`
};

std::vector<Command>& commands();

struct Registrar {
    explicit Registrar(const Command& c) { commands().push_back(c); }
};

// Prints "sightline: error: <message>" on stderr and returns the exit code 1.
int fail(const std::string& message);
// For a bad option: prints the message and a hint to --help; returns 2.
int usageError(const std::string& command, const std::string& message);
// Runs another subcommand in this process ({"export", "--type", "sqlite", "r.rep"}): `profile
// --export/--stats` do exactly what the commands do. Returns its exit code.
int runCommand(const std::vector<std::string>& args);
// The same with the command's stdout going to `path` (export --type text writes `info`'s text).
int runCommandToFile(const std::vector<std::string>& args, const std::string& path);

}  // namespace sl::cli
