#include "model/options/OptionDocs.h"

#include <algorithm>
#include <sstream>

#include "model/options/OptionParser.h"
#include "model/util/JsonWriter.h"

namespace sl::options {

namespace {

constexpr size_t kHelpColumn = 34;
constexpr size_t kHelpWidth = 100;

std::string leftColumn(const OptionDef& o) {
    std::string left = "  ";
    left += o.shortName ? std::string("-") + o.shortName + ", " : "    ";
    left += "--" + std::string(o.name);
    switch (o.kind) {
        case ValueKind::Flag:
            break;
        case ValueKind::Switch:
            left += "[=true|false]";
            break;
        default:
            left += "=" + std::string(o.valueName.empty() ? "VALUE" : o.valueName);
    }
    return left;
}

// Word-wraps `text` into lines that start at kHelpColumn.
void wrapped(std::ostringstream& out, const std::string& text, size_t firstColumn) {
    size_t col = firstColumn;
    std::istringstream words(text);
    std::string w;
    bool firstWord = true;
    while (words >> w) {
        if (!firstWord && col + 1 + w.size() > kHelpWidth) {
            out << "\n" << std::string(kHelpColumn, ' ');
            col = kHelpColumn;
        } else if (!firstWord) {
            out << ' ';
            ++col;
        }
        out << w;
        col += w.size();
        firstWord = false;
    }
    out << "\n";
}

std::string valuesText(const OptionDef& o, const BuildFeatures& f, bool markdown) {
    if (o.kind != ValueKind::Choice && o.kind != ValueKind::List) return allowedText(o);
    std::string text;
    for (const auto& v : o.values) {
        if (v.hidden) continue;
        const Support s = effectiveSupport(v, f);
        // --help lists what works; the values that do not are named in the notes after it.
        if (s == Support::Unavailable && !markdown) continue;
        if (!text.empty()) text += markdown ? ", " : "|";
        text += markdown ? "`" + std::string(v.name) + "`" : std::string(v.name);
        if (s == Support::Unavailable) text += " (n/a)";
        if (s == Support::Different) text += markdown ? " (differs)" : "(differs)";
    }
    return text;
}

std::string oldSpellings(const OptionDef& o) {
    std::string text;
    for (auto n : o.oldNames) text += (text.empty() ? "" : ", ") + ("--" + std::string(n));
    for (const auto& v : o.values)
        if (!v.sameAs.empty())
            text += (text.empty() ? "" : ", ") + std::string(v.name) + " = " + std::string(v.sameAs);
    return text;
}

// "cublas, cudnn: not traced yet; ..." : the values that are not plain, grouped by their note.
std::string valueNotes(const OptionDef& o, const BuildFeatures& f) {
    std::vector<std::pair<std::string, std::string>> groups;  // note, values
    for (const auto& v : o.values) {
        if (v.hidden || !v.sameAs.empty()) continue;
        if (effectiveSupport(v, f) == Support::Implemented) continue;
        const std::string note = effectiveNote(v, f);
        if (note.empty()) continue;
        auto it = std::find_if(groups.begin(), groups.end(),
                               [&](const auto& g) { return g.first == note; });
        if (it == groups.end()) groups.emplace_back(note, std::string(v.name));
        else it->second += ", " + std::string(v.name);
    }
    std::string text;
    for (const auto& [note, names] : groups)
        text += (text.empty() ? "" : " ") + names + ": " + note + ".";
    return text;
}

std::string mdEscape(std::string s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += ' ';
        else out += c;
    }
    return out;
}

}  // namespace

std::string helpText(std::string_view command, const BuildFeatures& f) {
    const CommandDef* cmd = findCommand(command);
    if (!cmd) return {};
    std::ostringstream out;
    out << "usage: " << cmd->usage << "\n\n" << cmd->summary << "\n";
    if (!cmd->positionals.empty()) out << "\n" << cmd->positionals << "\n";
    auto print = [&](const OptionDef& o) {
        const std::string left = leftColumn(o);
        out << left;
        size_t col = left.size();
        if (col < kHelpColumn) {
            out << std::string(kHelpColumn - col, ' ');
        } else {
            out << "\n" << std::string(kHelpColumn, ' ');
        }
        std::string text(o.help);
        if (o.kind == ValueKind::Choice || o.kind == ValueKind::List)
            text += " [" + valuesText(o, f, false) + "]";
        if (!o.defaultValue.empty()) text += " (default: " + std::string(o.defaultValue) + ")";
        const Support s = effectiveSupport(o, f);
        if (s == Support::Different) text += " Differs from nsys: " + effectiveNote(o, f) + ".";
        if (s == Support::Unavailable) text += " Not available: " + effectiveNote(o, f) + ".";
        if (std::string notes = valueNotes(o, f); !notes.empty() && s != Support::Unavailable)
            text += " " + notes;
        if (std::string old = oldSpellings(o); !old.empty()) text += " Also: " + old + ".";
        wrapped(out, text, kHelpColumn);
    };
    const auto opts = optionsOf(command);
    out << "\noptions:\n";
    for (const OptionDef* o : opts)
        if (effectiveSupport(*o, f) != Support::Unavailable) print(*o);
    out << "  -h, --help                      show this help\n";
    bool header = false;
    for (const OptionDef* o : opts) {
        if (effectiveSupport(*o, f) != Support::Unavailable) continue;
        if (!header)
            out << "\naccepted for nsys compatibility, not available here (a warning says what "
                   "happens instead):\n";
        header = true;
        print(*o);
    }
    return out.str();
}

std::string markdownTable(std::string_view command, const BuildFeatures& f) {
    std::ostringstream out;
    out << "| Option | Values | Default | Status | Notes |\n|---|---|---|---|---|\n";
    for (const OptionDef* o : optionsOf(command)) {
        std::string name = "`--" + std::string(o->name) + "`";
        if (o->shortName) name = "`-" + std::string(1, o->shortName) + "`, " + name;
        const Support s = effectiveSupport(*o, f);
        std::string notes = s == Support::Implemented ? std::string() : effectiveNote(*o, f);
        if (!notes.empty()) notes += ".";
        if (s != Support::Unavailable)
            if (std::string vn = valueNotes(*o, f); !vn.empty())
                notes += (notes.empty() ? "" : " ") + vn;
        if (std::string old = oldSpellings(*o); !old.empty())
            notes += (notes.empty() ? "" : " ") + ("Also: " + old + ".");
        if (!o->nsys) notes = "Sightline only. " + notes;
        out << "| " << name << " | " << mdEscape(valuesText(*o, f, true)) << " | "
            << mdEscape(o->defaultValue.empty() ? "" : "`" + std::string(o->defaultValue) + "`")
            << " | " << supportName(s) << " | " << mdEscape(notes) << " |\n";
    }
    return out.str();
}

std::string optionsJson(std::string_view command, const BuildFeatures& f) {
    std::ostringstream s;
    JsonWriter w(s);
    w.beginObject();
    w.field("command", command);
    w.field("cuda", f.cuda);
    w.key("options").beginArray();
    for (const OptionDef* o : optionsOf(command)) {
        w.beginObject();
        w.field("name", o->name);
        w.field("short", o->shortName ? std::string(1, o->shortName) : std::string());
        w.key("old_names").beginArray();
        for (auto n : o->oldNames) w.value(n);
        w.endArray();
        w.field("kind", kindName(o->kind));
        w.field("value_name", o->valueName);
        w.key("values").beginArray();
        for (const auto& v : o->values) {
            if (v.hidden) continue;
            w.beginObject();
            w.field("name", v.name);
            w.field("support", supportName(effectiveSupport(v, f)));
            w.field("note", effectiveNote(v, f));
            if (!v.sameAs.empty()) w.field("same_as", v.sameAs);
            w.endObject();
        }
        w.endArray();
        if (o->kind == ValueKind::Integer) {
            w.field("min", o->min);
            w.field("max", o->max);
        }
        w.field("default", o->defaultValue);
        w.field("help", o->help);
        w.field("support", supportName(effectiveSupport(*o, f)));
        w.field("note", effectiveNote(*o, f));
        w.field("group", o->group);
        w.field("repeatable", o->repeatable);
        w.field("nsys", o->nsys);
        w.endObject();
    }
    w.endArray();
    w.endObject();
    s << "\n";
    return s.str();
}

}  // namespace sl::options
