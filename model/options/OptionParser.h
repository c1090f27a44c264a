#pragma once
// Parses a command line against a command's OptionDefs, the way nsys reads its own: "--opt=value",
// "--opt value", "-o value", "-ovalue", switches alone or with true|false ("-w true"), old
// spellings of names and values. Every error is one line that names the option, the value and what
// is allowed, with "did you mean ..." for a misspelling; the caller exits 2 before starting
// anything. Options and values nsys documents that are not available here are accepted with one
// warning line each.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/core/Result.h"
#include "model/options/OptionDef.h"

namespace sl::options {

// The longest --delay or --duration accepted (about 115 days), so that typos such as 1e300 stop.
inline constexpr double kMaxSeconds = 1e7;

class ParsedArgs {
public:
    // The value in effect: the last one given, else the default ("" when there is none).
    // Switches read "true" or "false"; choices and lists read in their canonical spelling.
    std::string value(std::string_view name) const;
    bool isTrue(std::string_view name) const { return value(name) == "true"; }
    // Every value given, in order (repeatable options).
    std::vector<std::string> values(std::string_view name) const;
    bool given(std::string_view name) const;

    std::vector<std::string> positionals;
    std::vector<std::string> warnings;  // one line each, without a "warning:" prefix
    bool help = false;                  // -h/--help was given
    // The capture settings as given (options with a Capture-tab group, so not --progress-fd and
    // the like), joined by spaces: what the report records.
    std::string optionsText;

private:
    friend Result<ParsedArgs> parseArgs(std::string_view, const std::vector<std::string>&,
                                        const BuildFeatures&);
    std::string_view m_command;
    std::map<std::string, std::vector<std::string>, std::less<>> m_given;
};

// `args` are the words after the subcommand's name.
Result<ParsedArgs> parseArgs(std::string_view command, const std::vector<std::string>& args,
                             const BuildFeatures& features);

// Checks one value of an option, as the parser does; returns the canonical spelling.
Result<std::string> checkValue(const OptionDef& o, const std::string& value);
// The values an option accepts, for messages: "cuda, nvtx, osrt or none".
std::string allowedText(const OptionDef& o);
// The closest of `candidates` to `word`, or "" when none is close enough to be a typo.
std::string closestMatch(std::string_view word, const std::vector<std::string_view>& candidates);
// "a,b,,c" -> {"a", "b", "c"}: the items of a comma-separated list, empty ones dropped.
std::vector<std::string> splitCommaList(std::string_view text);
// "true"/"on"/"1"/"yes" and "false"/"off"/"0"/"no"; anything else fails.
bool parseBool(std::string_view s, bool* out);
// A number of seconds as the help says: digits with an optional decimal part ("2", "0.5",
// ".25"), at most `max`. Not hex, exponents, signs, inf or nan, which strtod takes.
bool parseDecimalSeconds(std::string_view s, double max, double* out);

}  // namespace sl::options
