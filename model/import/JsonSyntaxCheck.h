#pragma once
// Finds the first JSON syntax error in a text and its byte offset. Used only after the fast
// parser has failed, to give the user an exact position ("at byte 1234: expected ',' or '}'").
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sl::import {

struct JsonSyntaxError {
    size_t offset = 0;
    std::string what;
};

// nullopt when `text` is one valid JSON value (surrounded by whitespace only).
std::optional<JsonSyntaxError> findJsonSyntaxError(std::string_view text);

}  // namespace sl::import
