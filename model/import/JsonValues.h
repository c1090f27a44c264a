#pragma once
// Small simdjson on-demand helpers shared by the Chrome/Kineto trace parsers: the error
// propagation macro, raw-token trimming, and the two value shapes traces disagree on (keys, and
// timestamps given as numbers or quoted numbers). Internal to the JSON importer.
#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/import/ImportText.h"

// Returns the simdjson error of `expr` from the calling function, if any.
#define SL_TRY(expr)                                        \
    do {                                                    \
        if (auto sl_err_ = (expr); sl_err_) return sl_err_; \
    } while (0)

namespace sl::import {

// A raw number token without the whitespace simdjson leaves after it.
inline std::string_view trimRaw(std::string_view s) {
    while (!s.empty() &&
           (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

inline std::string_view unquote(std::string_view s) {
    return s.size() >= 2 && s.front() == '"' && s.back() == '"' ? s.substr(1, s.size() - 2) : s;
}

// A field's key without unescaping: keys in traces have no escapes, and unescaping every key
// costs a fifth of the parse. Keys with a backslash take the slow path.
inline simdjson::error_code keyOf(simdjson::ondemand::field& field, std::string_view& out) {
    const char* p = field.key().raw();
    const char* q = p;
    while (*q != '"' && *q != '\\') ++q;
    if (*q == '"') {
        out = std::string_view(p, static_cast<size_t>(q - p));
        return simdjson::SUCCESS;
    }
    return field.unescaped_key().get(out);
}

// A timestamp in microseconds (a number, or a quoted number as some tools write) as exact
// nanoseconds. Anything else leaves `out` empty and sets `bad`.
inline simdjson::error_code parseTime(simdjson::ondemand::value v, std::optional<int64_t>& out,
                                      bool& bad) {
    namespace od = simdjson::ondemand;
    od::json_type t;
    SL_TRY(v.type().get(t));
    std::string_view text;
    if (t == od::json_type::number)
        text = trimRaw(v.raw_json_token());
    else if (t == od::json_type::string)
        SL_TRY(v.get_string().get(text));
    out = text.empty() ? std::nullopt : decimalToNs(text, 1000);
    if (!out) bad = true;
    return simdjson::SUCCESS;
}

}  // namespace sl::import
