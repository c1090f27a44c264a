#include "capture/launcher/PythonFunctionsConfig.h"

#include <simdjson.h>

#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

namespace sl::capture {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

// Colors by name: the `nvtx` package's names (nvtx/colors.py) and a few common ones more.
constexpr std::pair<std::string_view, uint32_t> kColorNames[] = {
    {"green", 0x008000},  {"blue", 0x0000FF},      {"yellow", 0xFFFF00},  {"purple", 0x800080},
    {"rapids", 0x7400FF}, {"cyan", 0x00FFFF},      {"red", 0xFF0000},     {"white", 0xFFFFFF},
    {"darkgreen", 0x006400}, {"orange", 0xFFA500}, {"black", 0x000000},   {"gray", 0x808080},
    {"grey", 0x808080},   {"magenta", 0xFF00FF},   {"pink", 0xFFC0CB},    {"brown", 0xA52A2A},
    {"lime", 0x00FF00},   {"navy", 0x000080},      {"teal", 0x008080},    {"olive", 0x808000},
    {"maroon", 0x800000}, {"silver", 0xC0C0C0},    {"gold", 0xFFD700},    {"violet", 0xEE82EE},
};

struct Defaults {
    std::string domain, module;
    uint32_t color = 0, category = 0;
    std::string categoryName;
    bool hasColor = false;
};

// "0x9C27B0", "9C27B0", "#9C27B0", "AARRGGBB" forms, a name, or a number. Always opaque unless
// the alpha was given: NVTX colors are ARGB, and a color of alpha 0 is still drawn as given.
Result<uint32_t> parseColor(element e, const std::string& where) {
    if (e.type() == element_type::INT64 || e.type() == element_type::UINT64) {
        const uint64_t v = e.type() == element_type::INT64 ? uint64_t(int64_t(e.get_int64()))
                                                           : uint64_t(e.get_uint64());
        if (v > 0xFFFFFFFFull) return makeError(where + ": \"color\" " + std::to_string(v) + " is not an RGB or ARGB value");
        return uint32_t(v);
    }
    if (e.type() != element_type::STRING)
        return makeError(where + ": \"color\" must be a string (\"0x9C27B0\", \"red\") or a number");
    std::string text(std::string_view(e.get_string()));
    std::string lower;
    for (char c : text) lower.push_back(char(std::tolower(static_cast<unsigned char>(c))));
    for (const auto& [name, rgb] : kColorNames)
        if (lower == name) return rgb | 0xFF000000u;
    std::string_view hex = lower;
    if (hex.starts_with("0x")) hex.remove_prefix(2);
    else if (hex.starts_with("#")) hex.remove_prefix(1);
    const bool isHex = (hex.size() == 6 || hex.size() == 8) &&
                       hex.find_first_not_of("0123456789abcdef") == std::string_view::npos;
    if (!isHex) {
        std::string names;
        for (const auto& [name, rgb] : kColorNames) names += (names.empty() ? "" : ", ") + std::string(name);
        return makeError(where + ": unknown color \"" + text + "\" (give RRGGBB in hex, such as \"0x9C27B0\", or one of: " + names + ")");
    }
    const uint32_t v = uint32_t(std::stoul(std::string(hex), nullptr, 16));
    return hex.size() == 6 ? (v | 0xFF000000u) : v;
}

// A name or a number. Named categories get numbers from 1 per domain, in order of appearance.
Status parseCategory(element e, const std::string& where, const std::string& domain,
                     std::map<std::pair<std::string, std::string>, uint32_t>& named,
                     uint32_t& category, std::string& name) {
    if (e.type() == element_type::INT64 || e.type() == element_type::UINT64) {
        const int64_t v = e.type() == element_type::INT64 ? int64_t(e.get_int64()) : -1;
        if (v < 0 || v > 0xFFFFFFFFll) return makeError(where + ": \"category\" must be a number from 0 to 4294967295 or a name");
        category = uint32_t(v);
        name.clear();
        return {};
    }
    if (e.type() != element_type::STRING) return makeError(where + ": \"category\" must be a name or a number");
    name = std::string(std::string_view(e.get_string()));
    if (name.empty()) return makeError(where + ": \"category\" is empty");
    uint32_t next = 1;
    for (const auto& [key, id] : named)
        if (key.first == domain) next = std::max(next, id + 1);
    auto [it, fresh] = named.try_emplace({domain, name}, next);
    category = it->second;
    return {};
}

// A text field: a string with no tab, newline or NUL (the hook's table is tab-separated).
Result<std::string> textField(element e, std::string_view key, const std::string& where) {
    if (e.type() != element_type::STRING)
        return makeError(where + ": \"" + std::string(key) + "\" must be a string");
    std::string s(std::string_view(e.get_string()));
    if (s.find_first_of(std::string_view("\t\n\r\0", 4)) != std::string::npos)
        return makeError(where + ": \"" + std::string(key) + "\" holds a tab, newline or NUL");
    return s;
}

// A dotted Python name: identifiers separated by dots.
bool isDottedName(std::string_view s) {
    if (s.empty() || s.front() == '.' || s.back() == '.' || s.find("..") != std::string_view::npos) return false;
    bool start = true;
    for (char c : s) {
        if (c == '.') { start = true; continue; }
        const bool ok = std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
                        static_cast<unsigned char>(c) >= 0x80 || (!start && std::isdigit(static_cast<unsigned char>(c)));
        if (!ok) return false;
        start = false;
    }
    return true;
}

// Reads the keys shared by groups and entries into d; refuses keys it does not know, so that a
// misspelt key ("fuctions", "colour") is an error instead of a silent default.
Status readCommon(object o, const std::string& where, bool isGroup, Defaults& d,
                  std::map<std::pair<std::string, std::string>, uint32_t>& named) {
    element category;
    bool hasCategory = false;
    for (auto [key, value] : o) {
        if (key == "_comment" || (isGroup && key == "functions") || (!isGroup && key == "function")) continue;
        if (key == "domain") {
            auto s = textField(value, key, where);
            if (!s) return std::move(s).takeError();
            d.domain = *s;
        } else if (key == "module") {
            auto s = textField(value, key, where);
            if (!s) return std::move(s).takeError();
            if (!isDottedName(*s)) return makeError(where + ": \"module\" \"" + *s + "\" is not a Python module name");
            if (*s == "__main__")
                return makeError(where + ": functions of __main__ (the script being run) cannot be traced: they do not exist until the script runs; move them into a module");
            d.module = *s;
        } else if (key == "color") {
            auto c = parseColor(value, where);
            if (!c) return std::move(c).takeError();
            d.color = *c;
            d.hasColor = true;
        } else if (key == "category") {
            category = value;
            hasCategory = true;
        } else {
            return makeError(where + ": unknown key \"" + std::string(key) + "\" (known: _comment, domain, color, category, module, " +
                             (isGroup ? "functions" : "function") + ")");
        }
    }
    // After "domain": a named category belongs to its domain.
    if (hasCategory)
        if (Status s = parseCategory(category, where, d.domain, named, d.category, d.categoryName); !s) return s;
    return {};
}

}  // namespace

Result<std::vector<PythonTracedFunction>> parsePythonFunctionsConfig(std::string_view json,
                                                                     const std::string& source) {
    simdjson::dom::parser parser;
    simdjson::padded_string text(json);
    element root;
    if (auto err = parser.parse(text).get(root))
        return makeError(source + ": not valid JSON (" + std::string(simdjson::error_message(err)) + ")");
    simdjson::dom::array groups;
    if (root.get_array().get(groups))
        return makeError(source + ": must hold a list of groups, [{\"module\": ..., \"functions\": [...]}, ...]");
    std::vector<PythonTracedFunction> out;
    std::map<std::pair<std::string, std::string>, uint32_t> named;
    size_t gi = 0;
    for (element g : groups) {
        const std::string where = source + ": group " + std::to_string(gi++);
        object go;
        if (g.get_object().get(go)) return makeError(where + ": must be an object {\"module\": ..., \"functions\": [...]}");
        Defaults d;
        if (Status s = readCommon(go, where, true, d, named); !s) return makeError(s.error());
        simdjson::dom::array functions;
        element fe;
        if (go["functions"].get(fe)) return makeError(where + ": has no \"functions\" list");
        if (fe.get_array().get(functions)) return makeError(where + ": \"functions\" must be a list");
        size_t fi = 0;
        for (element f : functions) {
            const std::string fwhere = where + ", function " + std::to_string(fi++);
            Defaults e = d;
            std::string name;
            if (f.type() == element_type::STRING) {
                name = std::string(std::string_view(f.get_string()));
            } else if (f.type() == element_type::OBJECT) {
                object fo = f.get_object();
                element n;
                if (fo["function"].get(n)) return makeError(fwhere + ": an entry given as an object needs \"function\"");
                auto s = textField(n, "function", fwhere);
                if (!s) return std::move(s).takeError();
                name = *s;
                if (Status st = readCommon(fo, fwhere, false, e, named); !st) return makeError(st.error());
            } else {
                return makeError(fwhere + ": must be a name (\"Class.method\") or {\"function\": ...}");
            }
            if (!isDottedName(name))
                return makeError(fwhere + ": \"" + name + "\" is not a function name (a dotted path inside the module, such as \"Class.method\")");
            if (e.module.empty()) return makeError(fwhere + " (\"" + name + "\"): no \"module\" given, in the group or the entry");
            out.push_back({e.domain, e.module, name, e.hasColor ? e.color : 0, e.category, e.categoryName});
        }
        if (fi == 0) return makeError(where + " (module \"" + d.module + "\"): \"functions\" is empty");
    }
    if (out.empty()) return makeError(source + ": lists no functions");
    return out;
}

Result<std::vector<PythonTracedFunction>> readPythonFunctionsConfig(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError("--python-functions-trace: cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return makeError("--python-functions-trace: cannot read " + path);
    return parsePythonFunctionsConfig(text.str(), path);
}

std::string pythonHookTable(const std::vector<PythonTracedFunction>& functions) {
    std::string out;
    for (const auto& f : functions)
        out += f.domain + '\t' + f.module + '\t' + f.function + '\t' + std::to_string(f.color) + '\t' +
               std::to_string(f.category) + '\t' + f.categoryName + '\n';
    return out;
}

}  // namespace sl::capture
