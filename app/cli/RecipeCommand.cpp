// `sightline recipe NAME --input DIR`: runs a recipe over a directory of reports as Dask tasks
// (issue #20). The recipes and their runner are Python (the `sightline` package's
// recipe_runner, next to the compiled module): Dask is a Python engine, and a recipe is a Python
// function users write. This command checks the options through the one definition, finds
// Debian's python3 and the package, and hands over to the runner with exec.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "app/cli/CommandLine.h"
#include "app/cli/Command.h"

namespace sl::cli {
namespace {

namespace fs = std::filesystem;

// Debian's interpreter, the one the cli package installs the module for; SIGHTLINE_PYTHON
// chooses another (a virtual environment with dask).
std::string pythonPath() {
    if (const char* p = std::getenv("SIGHTLINE_PYTHON"); p && *p) return p;
    return "/usr/bin/python3";
}

// Where the `sightline` package may lie relative to this binary: the build tree
// (build/app/cli/sightline -> build/python) and an installed prefix (PREFIX/bin/sightline ->
// PREFIX/lib/python3/dist-packages; under /usr that is on python3's path already).
std::vector<fs::path> packageDirs() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    std::vector<fs::path> out;
    if (ec) return out;
    for (const fs::path& dir : {exe.parent_path() / "../../python", exe.parent_path() / "../lib/python3/dist-packages"})
        if (fs::exists(dir / "sightline" / "recipe_runner.py", ec)) out.push_back(fs::weakly_canonical(dir, ec));
    return out;
}

// Imports the runner with a clear message when the module is not there (an ImportError of
// dask or distributed is the runner's to explain).
constexpr const char* kBootstrap =
    "import sys\n"
    "try:\n"
    "    from sightline import recipe_runner\n"
    "except ImportError as e:\n"
    "    sys.stderr.write('sightline: error: the Python module sightline is not importable by %s (%s): '\n"
    "                     'install the sightline package (it puts it in dist-packages) or set PYTHONPATH '\n"
    "                     'to a build\\'s python folder\\n' % (sys.executable, e))\n"
    "    sys.exit(1)\n"
    "sys.exit(recipe_runner.main(sys.argv[1:]))\n";

int runRecipe(int argc, char** argv) {
    int exitCode = 0;
    auto args = parseCommandLine("recipe", argc, argv, &exitCode);
    if (!args) return exitCode;
    if (args->positionals.size() != 1) return usageError("recipe", "expected one recipe NAME (or a recipe .py file)");
    const std::string input = args->value("input");
    if (input.empty()) return usageError("recipe", "--input DIR is required");
    const std::string python = pythonPath();
    if (access(python.c_str(), X_OK) != 0)
        return fail(python + " not found: recipes run on Python 3 with dask and distributed "
                             "(apt install python3 python3-dask python3-distributed python3-pandas; or set "
                             "SIGHTLINE_PYTHON to an interpreter that has them)");

    std::vector<std::string> cmd = {python, "-c", kBootstrap, args->positionals[0], "--input", input};
    auto pass = [&cmd, &args](const char* option, const std::string& name) {
        if (const std::string v = args->value(name); !v.empty()) cmd.insert(cmd.end(), {option, v});
    };
    pass("--scheduler", "scheduler");
    pass("--output", "output");
    pass("--format", "format");
    if (const std::string w = args->value("workers"); w != "0") cmd.insert(cmd.end(), {"--workers", w});
    for (const std::string& p : args->values("param")) cmd.insert(cmd.end(), {"--param", p});
    if (args->isTrue("force-overwrite")) cmd.push_back("--force-overwrite");
    if (args->isTrue("quiet")) cmd.push_back("--quiet");

    std::string pythonPathEnv;
    for (const fs::path& dir : packageDirs()) pythonPathEnv += (pythonPathEnv.empty() ? "" : ":") + dir.string();
    if (const char* old = std::getenv("PYTHONPATH"); old && *old)
        pythonPathEnv += (pythonPathEnv.empty() ? "" : ":") + std::string(old);
    if (!pythonPathEnv.empty()) setenv("PYTHONPATH", pythonPathEnv.c_str(), 1);

    std::vector<char*> execArgs;
    for (std::string& s : cmd) execArgs.push_back(s.data());
    execArgs.push_back(nullptr);
    execv(python.c_str(), execArgs.data());
    return fail("cannot run " + python + ": " + std::string(std::strerror(errno)));
}

const Registrar kRecipe({"recipe", "run a recipe over a directory of reports on Dask (per-rank analyses)", runRecipe,
                         false, 65});

}  // namespace
}  // namespace sl::cli
