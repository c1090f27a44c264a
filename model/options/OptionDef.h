#pragma once
// The one definition of every command-line option of `sightline` (and so of `nsys profile`,
// `stats`, `export`, `analyze` and `status`, whose names, values and defaults we follow). The
// parser, every `--help`, the option table of docs/capture.md (`--list-options --format
// markdown`), the Capture tab's form and its limits are generated from these tables; nothing else
// holds an option's name, range or default. No Qt: the CLI, the launcher and the GUI share it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sl::options {

// What Sightline does with an option (or one value of it) that nsys documents.
enum class Support : uint8_t {
    Implemented,  // does what nsys does
    Different,    // accepted and does something close: `note` says how it differs
    Unavailable,  // accepted with one warning line, the run goes on: `note` says why and what
                  // happens instead
};

enum class ValueKind : uint8_t {
    Switch,   // true|false: "--x", "--x=true", "--x true", "-x true"; alone it means true
    Choice,   // one of `values`
    List,     // comma-separated items of `values` ("-t cuda,nvtx")
    Integer,  // a whole number in [min, max]
    Seconds,  // a decimal number of seconds >= 0
    Text,     // free form; the command checks it (a file name, "RANGE@DOMAIN", ...)
    Flag,     // takes no value at all (--help-reports)
};

struct ValueDef {
    // "cuda"; a name ending in ":N" also accepts "name:<positive integer>" ("repeat:N"); the
    // name "N" alone accepts any positive integer (a signal number, a GPU index).
    std::string_view name;
    Support support = Support::Implemented;
    std::string_view note;   // Different: how; Unavailable: why and what happens instead
    std::string_view sameAs; // an old spelling: the value it stands for ("cpu" -> "process-tree")
    bool needsCuda = false;  // Unavailable in a build without CUDA capture
    bool hidden = false;     // accepted, not listed (old spellings)
};

// When an option matters only while another option has some value ("--sampling-frequency" only
// while "--sample" is not "none"); the Capture tab greys it out otherwise. An empty `option`:
// always.
struct Condition {
    enum class Test : uint8_t { Is, IsNot, Has };  // Has: a list option contains the value
    std::string_view option;
    Test test = Test::Is;
    std::string_view value;
    // Whether `currentValue` (the other option's value, in its canonical spelling) meets it.
    bool holds(std::string_view currentValue) const;
};

struct OptionDef {
    std::string_view command;  // "profile", "stats", ...
    std::string_view name;     // long name without "--"
    char shortName = 0;
    std::vector<std::string_view> oldNames;  // older long spellings still found in scripts
    ValueKind kind = ValueKind::Text;
    std::string_view valueName;  // in --help: "SEC", "HZ", "NAME"
    std::vector<ValueDef> values;
    int64_t min = 0, max = 0;  // Integer
    std::string_view defaultValue;  // as text, in the option's own syntax; empty: none
    std::string_view help;
    Support support = Support::Implemented;
    std::string_view note;
    bool repeatable = false;  // values collected in order instead of the last one winning
    // The Capture tab section the option appears in ("Trace", "CPU", "CUDA", "Timing", "Output",
    // "Program", "More"); empty: not a capture setting (help, listings).
    std::string_view group;
    bool needsCuda = false;  // Unavailable in a build without CUDA capture
    bool needsNvml = false;  // GPU metrics: unavailable where NVML does not load (the Capture tab)
    bool nsys = true;        // nsys has this option (false: a Sightline extension)
    Condition onlyWhen;      // the option matters only then (empty: always)
};

struct CommandDef {
    std::string_view name;
    std::string_view usage;       // after "usage: "
    std::string_view summary;     // the paragraph under the usage line
    std::string_view positionals; // what the positional arguments are; empty: none allowed
    bool stopAtFirstPositional = false;  // profile: the program's own options pass through
};

// What this build can do; options that need a missing part are Unavailable.
struct BuildFeatures {
    bool cuda = false;
};

const std::vector<CommandDef>& commandDefs();
const CommandDef* findCommand(std::string_view name);
// Every option of one command, in the order --help lists them.
std::vector<const OptionDef*> optionsOf(std::string_view command);
const OptionDef* findOption(std::string_view command, std::string_view longName);

// The support of an option or value in this build (CUDA options without CUDA are Unavailable).
Support effectiveSupport(const OptionDef& o, const BuildFeatures& f);
Support effectiveSupport(const ValueDef& v, const BuildFeatures& f);
// The note that goes with effectiveSupport (the build's reason when that is what decides).
std::string effectiveNote(const OptionDef& o, const BuildFeatures& f);
std::string effectiveNote(const ValueDef& v, const BuildFeatures& f);

std::string_view supportName(Support s);  // "implemented", "different", "not available"
std::string_view kindName(ValueKind k);   // "switch", "choice", "list", ...

// The tables, one per command family (OptionTable*.cpp).
void addProfileOptions(std::vector<OptionDef>& out);
void addReportOptions(std::vector<OptionDef>& out);  // stats, export, analyze
void addOtherOptions(std::vector<OptionDef>& out);   // status, import, info, diff, generate

}  // namespace sl::options
