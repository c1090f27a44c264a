#include "model/options/OptionParser.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>

namespace sl::options {

namespace {

std::string dashed(const OptionDef& o) {
    return "--" + std::string(o.name);
}

bool positiveInteger(std::string_view s) {
    if (s.empty() || s.size() > 9) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return std::strtol(std::string(s).c_str(), nullptr, 10) > 0;
}

// The ValueDef `item` matches ("repeat:3" matches "repeat:N"), or null.
const ValueDef* matchValue(const OptionDef& o, std::string_view item) {
    for (const auto& v : o.values) {
        if (v.name == item) return &v;
        if (v.name == "N" && positiveInteger(item)) return &v;
        if (v.name.size() > 2 && v.name.substr(v.name.size() - 2) == ":N") {
            const std::string_view prefix = v.name.substr(0, v.name.size() - 1);  // "repeat:"
            if (item.substr(0, prefix.size()) == prefix && positiveInteger(item.substr(prefix.size())))
                return &v;
        }
    }
    return nullptr;
}

std::vector<std::string_view> valueNames(const OptionDef& o) {
    std::vector<std::string_view> names;
    for (const auto& v : o.values)
        if (!v.hidden) names.push_back(v.name);
    return names;
}

// Checks one item of a Choice or List; returns its canonical spelling.
Result<std::string> checkItem(const OptionDef& o, std::string_view item, std::string_view whole) {
    const ValueDef* v = matchValue(o, item);
    if (!v) {
        std::string msg = dashed(o) + ": '" + std::string(item) + "' is not a valid value";
        if (item != whole) msg += " in '" + std::string(whole) + "'";
        msg += " (expected " + allowedText(o) + ")";
        // "N" stands for any positive number: not a spelling to suggest ("did you mean 'N'?").
        std::vector<std::string_view> spellings = valueNames(o);
        std::erase(spellings, std::string_view("N"));
        if (std::string near = closestMatch(item, spellings); !near.empty())
            msg += "; did you mean '" + near + "'?";
        return makeError(msg);
    }
    if (!v->sameAs.empty()) return std::string(v->sameAs);
    return std::string(item);
}

std::vector<std::string_view> splitCommas(std::string_view s) {
    std::vector<std::string_view> out;
    size_t b = 0;
    while (true) {
        size_t e = s.find(',', b);
        out.push_back(s.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
        if (e == std::string_view::npos) break;
        b = e + 1;
    }
    return out;
}

size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

struct Lookup {
    std::vector<const OptionDef*> defs;
    const OptionDef* byLong(std::string_view name) const {
        for (const OptionDef* o : defs) {
            if (o->name == name) return o;
            for (auto old : o->oldNames)
                if (old == name) return o;
        }
        return nullptr;
    }
    const OptionDef* byShort(char c) const {
        for (const OptionDef* o : defs)
            if (o->shortName == c) return o;
        return nullptr;
    }
    std::vector<std::string_view> longNames() const {
        std::vector<std::string_view> n;
        for (const OptionDef* o : defs) n.push_back(o->name);
        return n;
    }
};

}  // namespace

std::vector<std::string> splitCommaList(std::string_view text) {
    std::vector<std::string> out;
    for (auto item : splitCommas(text))
        if (!item.empty()) out.emplace_back(item);
    return out;
}

bool parseDecimalSeconds(std::string_view s, double max, double* out) {
    size_t digits = 0, dots = 0;
    for (char c : s) {
        if (c >= '0' && c <= '9')
            ++digits;
        else if (c == '.' && ++dots == 1)
            continue;
        else
            return false;
    }
    if (digits == 0) return false;
    const double v = std::strtod(std::string(s).c_str(), nullptr);
    if (!(v >= 0) || v > max) return false;
    *out = v;
    return true;
}

bool parseBool(std::string_view s, bool* out) {
    if (s == "true" || s == "on" || s == "1" || s == "yes") {
        *out = true;
        return true;
    }
    if (s == "false" || s == "off" || s == "0" || s == "no") {
        *out = false;
        return true;
    }
    return false;
}

std::string closestMatch(std::string_view word, const std::vector<std::string_view>& candidates) {
    std::string best;
    size_t bestDistance = SIZE_MAX;
    for (auto c : candidates) {
        size_t d = editDistance(word, c);
        // A prefix of a long name ("--sampling" for "--sampling-frequency") is a likely slip too.
        if (word.size() >= 4 && c.substr(0, word.size()) == word) d = std::min<size_t>(d, 1);
        if (d < bestDistance) bestDistance = d, best = std::string(c);
    }
    // Short words are near too much ("gpu" is two edits from "mpi"): one edit at most.
    const size_t limit = word.size() <= 4 ? 1 : std::max<size_t>(2, word.size() / 3);
    return bestDistance <= limit ? best : std::string();
}

std::string allowedText(const OptionDef& o) {
    switch (o.kind) {
        case ValueKind::Switch:
            return "true or false";
        case ValueKind::Integer:
            return "a whole number from " + std::to_string(o.min) + " to " + std::to_string(o.max);
        case ValueKind::Seconds:
            return "a number of seconds (decimals allowed)";
        case ValueKind::Flag:
            return "no value";
        case ValueKind::Text:
            return std::string(o.valueName.empty() ? "a value" : o.valueName);
        case ValueKind::Choice:
        case ValueKind::List:
            break;
    }
    std::vector<std::string> names;
    for (auto n : valueNames(o)) {
        std::string s(n);
        if (s == "N") s = "a positive number";
        names.push_back(s);
    }
    std::string text = o.kind == ValueKind::List ? "a comma-separated list of " : "";
    for (size_t i = 0; i < names.size(); ++i) {
        if (i) text += i + 1 == names.size() ? (o.kind == ValueKind::List ? " and " : " or ") : ", ";
        text += names[i];
    }
    return text;
}

Result<std::string> checkValue(const OptionDef& o, const std::string& value) {
    switch (o.kind) {
        case ValueKind::Flag:
            return makeError(dashed(o) + " takes no value, got '" + value + "'");
        case ValueKind::Switch: {
            bool b = false;
            if (!parseBool(value, &b))
                return makeError(dashed(o) + ": '" + value + "' is not a valid value (expected true or false)");
            return std::string(b ? "true" : "false");
        }
        case ValueKind::Integer: {
            errno = 0;
            char* end = nullptr;
            const long long n = std::strtoll(value.c_str(), &end, 10);
            if (value.empty() || *end || errno == ERANGE || n < o.min || n > o.max)
                return makeError(dashed(o) + ": '" + value + "' is not a valid value (expected " +
                                 allowedText(o) + (o.valueName.empty() ? "" : " " + std::string(o.valueName)) +
                                 ")");
            return std::to_string(n);
        }
        case ValueKind::Seconds: {
            double v = 0;
            if (!parseDecimalSeconds(value, kMaxSeconds, &v))
                return makeError(dashed(o) + ": '" + value + "' is not a valid value (expected " +
                                 allowedText(o) + ")");
            return value;
        }
        case ValueKind::Text:
            if (value.empty() && !o.defaultValue.empty())
                return makeError(dashed(o) + ": the value is empty (expected " + allowedText(o) + ")");
            return value;
        case ValueKind::Choice:
            return checkItem(o, value, value);
        case ValueKind::List: {
            std::vector<std::string> items;
            for (auto item : splitCommas(value)) {
                auto one = checkItem(o, item, value);
                if (!one) return one;
                if (std::find(items.begin(), items.end(), *one) == items.end())
                    items.push_back(*one);  // a repeated item is harmless
            }
            std::string out;
            for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
            return out;
        }
    }
    return value;
}

std::string ParsedArgs::value(std::string_view name) const {
    if (auto it = m_given.find(name); it != m_given.end() && !it->second.empty())
        return it->second.back();
    const OptionDef* o = findOption(m_command, name);
    return o ? std::string(o->defaultValue) : std::string();
}

std::vector<std::string> ParsedArgs::values(std::string_view name) const {
    if (auto it = m_given.find(name); it != m_given.end()) return it->second;
    return {};
}

bool ParsedArgs::given(std::string_view name) const {
    return m_given.find(name) != m_given.end();
}

Result<ParsedArgs> parseArgs(std::string_view command, const std::vector<std::string>& args,
                             const BuildFeatures& features) {
    const CommandDef* cmd = findCommand(command);
    if (!cmd) return makeError("unknown command '" + std::string(command) + "'");
    ParsedArgs out;
    out.m_command = cmd->name;
    Lookup lookup{optionsOf(command)};
    std::set<std::string> warned;

    auto warn = [&](const std::string& key, const std::string& line) {
        if (warned.insert(key).second) out.warnings.push_back(line);
    };
    // Stores a checked value and notes what is not available.
    auto store = [&](const OptionDef& o, const std::string& raw) -> Status {
        std::string value = raw;
        if (o.kind != ValueKind::Flag) {
            auto checked = checkValue(o, raw);
            if (!checked) return makeError(checked.error());
            value = *checked;
        } else if (value.empty()) {
            value = "true";  // a flag's optional "=VALUE" (--help-reports=NAME) is kept as given
        }
        if (effectiveSupport(o, features) == Support::Unavailable) {
            warn(std::string(o.name), dashed(o) + " is not available: " + effectiveNote(o, features));
        } else if (o.kind == ValueKind::Choice || o.kind == ValueKind::List) {
            for (auto item : o.kind == ValueKind::List ? splitCommas(value)
                                                       : std::vector<std::string_view>{value}) {
                const ValueDef* v = matchValue(o, item);
                if (v && effectiveSupport(*v, features) == Support::Unavailable)
                    warn(std::string(o.name) + "=" + std::string(item),
                         dashed(o) + "=" + std::string(item) +
                             " is not available: " + effectiveNote(*v, features));
            }
        }
        auto& slot = out.m_given[std::string(o.name)];
        if (!o.repeatable) slot.clear();
        slot.push_back(std::move(value));
        return {};
    };
    auto unknown = [&](const std::string& shown, std::string_view bare) -> Error {
        std::string msg = "unknown option '" + shown + "'";
        if (std::string near = closestMatch(bare, lookup.longNames()); !near.empty())
            msg += "; did you mean '--" + near + "'?";
        return makeError(msg);
    };

    bool onlyPositionals = false;
    std::vector<std::string> given;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (onlyPositionals || a.empty() || a[0] != '-' || a == "-") {
            if (cmd->positionals.empty())
                return makeError("unexpected argument '" + a + "'");
            out.positionals.push_back(a);
            if (cmd->stopAtFirstPositional) onlyPositionals = true;
            continue;
        }
        if (a == "--") {
            onlyPositionals = true;
            continue;
        }
        if (a == "-h" || a == "--help") {
            out.help = true;
            continue;
        }
        const size_t first = i;
        const OptionDef* o = nullptr;
        std::string value;
        bool hasValue = false;
        if (a.rfind("--", 0) == 0) {
            std::string name = a.substr(2);
            if (auto eq = name.find('='); eq != std::string::npos) {
                value = name.substr(eq + 1);
                name.resize(eq);
                hasValue = true;
            }
            o = lookup.byLong(name);
            if (!o) return unknown("--" + name, name);
        } else {
            o = lookup.byShort(a[1]);
            if (!o) return unknown(a, a.substr(1));
            if (a.size() > 2) {
                value = a.substr(a[2] == '=' ? 3 : 2);
                hasValue = true;
            }
        }
        if (!hasValue) {
            if (o->kind == ValueKind::Flag) {
            } else if (o->kind == ValueKind::Switch) {
                // nsys accepts "-w true": a following true/false word is the switch's value.
                bool b;
                if (i + 1 < args.size() && parseBool(args[i + 1], &b)) value = args[++i], hasValue = true;
                else value = "true";
            } else if (i + 1 < args.size()) {
                value = args[++i];
            } else {
                return makeError("option '" + a + "' needs a value (" + allowedText(*o) + ")");
            }
        }
        if (Status s = store(*o, value); !s) return makeError(s.error());
        // Options outside the Capture-tab groups (--progress-fd, --list-options) are about this
        // run of the tool, not the capture: the report does not record them.
        if (!o->group.empty())
            for (size_t k = first; k <= i; ++k) given.push_back(args[k]);
    }
    for (const auto& g : given) out.optionsText += (out.optionsText.empty() ? "" : " ") + g;
    return out;
}

}  // namespace sl::options
