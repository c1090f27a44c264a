#include "app/cli/ArgParser.h"

#include <sstream>

namespace sl::cli {

bool parseBool(const std::string& s, bool* out) {
    if (s == "true" || s == "on" || s == "1" || s == "yes") { *out = true; return true; }
    if (s == "false" || s == "off" || s == "0" || s == "no") { *out = false; return true; }
    return false;
}

ArgParser::ArgParser(std::string usage, std::string summary) : m_usage(std::move(usage)), m_summary(std::move(summary)) {}

void ArgParser::flag(char s, std::string l, std::string h, bool* out) {
    Opt o{s, std::move(l), "", std::move(h)};
    o.isFlag = true;
    o.flagOut = out;
    m_opts.push_back(std::move(o));
}

void ArgParser::option(char s, std::string l, std::string v, std::string h, std::string* out, std::string d) {
    Opt o{s, std::move(l), std::move(v), std::move(h), std::move(d)};
    o.valueOut = out;
    m_opts.push_back(std::move(o));
}

void ArgParser::multi(char s, std::string l, std::string v, std::string h, std::vector<std::string>* out) {
    Opt o{s, std::move(l), std::move(v), std::move(h)};
    o.isMulti = true;
    o.multiOut = out;
    m_opts.push_back(std::move(o));
}

void ArgParser::hidden(std::string l, std::string* out) {
    Opt o{0, std::move(l), "VALUE", ""};
    o.isHidden = true;
    o.valueOut = out;
    m_opts.push_back(std::move(o));
}

void ArgParser::positionals(std::string h, std::vector<std::string>* out, bool stopAtFirst) {
    m_posHelp = std::move(h);
    m_positionals = out;
    m_stopAtFirst = stopAtFirst;
}

ArgParser::Opt* ArgParser::findLong(const std::string& n) {
    for (auto& o : m_opts)
        if (o.longName == n) return &o;
    return nullptr;
}

ArgParser::Opt* ArgParser::findShort(char c) {
    for (auto& o : m_opts)
        if (c && o.shortName == c) return &o;
    return nullptr;
}

bool ArgParser::seen(const std::string& longName) const {
    for (const auto& o : m_opts)
        if (o.longName == longName) return o.seen;
    return false;
}

bool ArgParser::assign(Opt& o, const std::string& value, bool hasValue) {
    o.seen = true;
    if (o.isFlag) {
        if (!hasValue) { *o.flagOut = true; return true; }
        if (!parseBool(value, o.flagOut)) {
            m_error = "--" + o.longName + " takes true or false, not '" + value + "'";
            return false;
        }
        return true;
    }
    if (o.isMulti) o.multiOut->push_back(value);
    else *o.valueOut = value;
    return true;
}

ArgParser::Outcome ArgParser::parse(int argc, char** argv) {
    bool onlyPositionals = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (onlyPositionals || a.empty() || a[0] != '-' || a == "-") {
            if (!m_positionals) {
                m_error = "unexpected argument '" + a + "'";
                return Outcome::Error;
            }
            m_positionals->push_back(a);
            if (m_stopAtFirst) onlyPositionals = true;
            continue;
        }
        if (a == "--") { onlyPositionals = true; continue; }
        if (a == "-h" || a == "--help") return Outcome::Help;
        if (a.rfind("--", 0) == 0) {
            std::string name = a.substr(2), value;
            bool hasValue = false;
            if (auto eq = name.find('='); eq != std::string::npos) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
                hasValue = true;
            }
            Opt* o = findLong(name);
            if (!o) { m_error = "unknown option '--" + name + "' (see --help)"; return Outcome::Error; }
            if (!o->isFlag && !hasValue) {
                if (i + 1 >= argc) { m_error = "option '--" + name + "' needs a value"; return Outcome::Error; }
                value = argv[++i];
                hasValue = true;
            }
            if (!assign(*o, value, hasValue)) return Outcome::Error;
            continue;
        }
        // Short option: "-o X", "-oX", or a flag "-f".
        Opt* o = findShort(a[1]);
        if (!o) { m_error = "unknown option '" + a + "' (see --help)"; return Outcome::Error; }
        if (o->isFlag) {
            if (a.size() > 2) {
                if (a[2] == '=') { if (!assign(*o, a.substr(3), true)) return Outcome::Error; continue; }
                m_error = "unknown option '" + a + "' (see --help)";
                return Outcome::Error;
            }
            // nsys accepts "-f true": take a following boolean word as the value.
            bool b;
            if (i + 1 < argc && parseBool(argv[i + 1], &b)) {
                assign(*o, argv[++i], true);
                continue;
            }
            assign(*o, "", false);
            continue;
        }
        std::string value;
        if (a.size() > 2) value = a.substr(a[2] == '=' ? 3 : 2);
        else {
            if (i + 1 >= argc) { m_error = "option '" + a + "' needs a value"; return Outcome::Error; }
            value = argv[++i];
        }
        if (!assign(*o, value, true)) return Outcome::Error;
    }
    return Outcome::Ok;
}

std::string ArgParser::help() const {
    std::ostringstream out;
    out << "usage: " << m_usage << "\n\n" << m_summary << "\n";
    if (!m_posHelp.empty()) out << "\n" << m_posHelp << "\n";
    out << "\noptions:\n";
    for (const auto& o : m_opts) {
        if (o.isHidden) continue;
        std::string left = "  ";
        left += o.shortName ? std::string("-") + o.shortName + ", " : "    ";
        left += "--" + o.longName;
        if (!o.isFlag) left += " " + o.valueName;
        else left += "[=true|false]";
        out << left;
        if (left.size() < 34) out << std::string(34 - left.size(), ' ');
        else out << "\n" << std::string(34, ' ');
        out << o.help;
        if (!o.defaultText.empty()) out << " (default: " << o.defaultText << ")";
        out << "\n";
    }
    out << "  -h, --help                      show this help\n";
    return out.str();
}

}  // namespace sl::cli
