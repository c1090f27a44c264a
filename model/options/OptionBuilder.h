#pragma once
// A terse way to write the option tables (OptionTable*.cpp): one chained expression per option.
#include <utility>

#include "model/options/OptionDef.h"

namespace sl::options {

class Opt {
public:
    Opt(std::string_view command, std::string_view name, char shortName, ValueKind kind,
        std::string_view valueName, std::string_view defaultValue, std::string_view help) {
        d.command = command;
        d.name = name;
        d.shortName = shortName;
        d.kind = kind;
        d.valueName = valueName;
        d.defaultValue = defaultValue;
        d.help = help;
    }
    Opt& values(std::vector<ValueDef> v) { return d.values = std::move(v), *this; }
    Opt& range(int64_t min, int64_t max) { return d.min = min, d.max = max, *this; }
    Opt& old(std::vector<std::string_view> names) { return d.oldNames = std::move(names), *this; }
    Opt& differs(std::string_view note) { return d.support = Support::Different, d.note = note, *this; }
    Opt& unavailable(std::string_view note) {
        return d.support = Support::Unavailable, d.note = note, *this;
    }
    Opt& group(std::string_view g) { return d.group = g, *this; }
    Opt& cuda() { return d.needsCuda = true, *this; }
    Opt& nvml() { return d.needsNvml = true, *this; }
    Opt& extension() { return d.nsys = false, *this; }
    Opt& repeatable() { return d.repeatable = true, *this; }
    Opt& onlyWhen(std::string_view option, Condition::Test test, std::string_view value) {
        return d.onlyWhen = {option, test, value}, *this;
    }
    operator OptionDef() && { return std::move(d); }  // NOLINT: the point of the builder

private:
    OptionDef d;
};

// Values: plain, different, unavailable, an old spelling of another value.
inline ValueDef val(std::string_view name) { return {name}; }
inline ValueDef differs(std::string_view name, std::string_view note) {
    return {name, Support::Different, note};
}
inline ValueDef na(std::string_view name, std::string_view note) {
    return {name, Support::Unavailable, note};
}
inline ValueDef alias(std::string_view name, std::string_view sameAs) {
    ValueDef v{name};
    v.sameAs = sameAs;
    v.hidden = true;
    return v;
}
inline ValueDef cudaVal(std::string_view name) {
    ValueDef v{name};
    v.needsCuda = true;
    return v;
}

}  // namespace sl::options
