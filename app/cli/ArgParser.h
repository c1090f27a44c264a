#pragma once
// Command-line options in the nsys style: "-o X", "--output X", "--output=X", "-oX" and
// "--flag[=true|false]". For `profile`, parsing stops at the first positional argument so the
// program's own options pass through untouched.
#include <functional>
#include <string>
#include <vector>

namespace sl::cli {

class ArgParser {
public:
    enum class Outcome { Ok, Help, Error };

    ArgParser(std::string usage, std::string summary);

    // A boolean switch; accepts "--name", "--name=true|false|on|off|1|0".
    void flag(char shortName, std::string longName, std::string help, bool* out);
    // An option taking a value. `defaultText` is shown in --help.
    void option(char shortName, std::string longName, std::string valueName, std::string help, std::string* out,
                std::string defaultText = {});
    // A repeatable option (values collected in order).
    void multi(char shortName, std::string longName, std::string valueName, std::string help,
               std::vector<std::string>* out);
    void positionals(std::string help, std::vector<std::string>* out, bool stopAtFirst = false);
    void hidden(std::string longName, std::string* out);  // developer options not listed in --help

    Outcome parse(int argc, char** argv);  // argv[0] is the subcommand name
    const std::string& error() const { return m_error; }
    std::string help() const;
    // Whether an option was given on the command line.
    bool seen(const std::string& longName) const;

private:
    struct Opt {
        char shortName;
        std::string longName, valueName, help, defaultText;
        bool isFlag = false, isMulti = false, isHidden = false;
        bool* flagOut = nullptr;
        std::string* valueOut = nullptr;
        std::vector<std::string>* multiOut = nullptr;
        bool seen = false;
    };
    Opt* findLong(const std::string& name);
    Opt* findShort(char c);
    bool assign(Opt& o, const std::string& value, bool hasValue);

    std::string m_usage, m_summary, m_posHelp, m_error;
    std::vector<Opt> m_opts;
    std::vector<std::string>* m_positionals = nullptr;
    bool m_stopAtFirst = false;
};

// "true"/"on"/"1" and "false"/"off"/"0"; anything else fails.
bool parseBool(const std::string& s, bool* out);

}  // namespace sl::cli
