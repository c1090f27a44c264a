#pragma once
// UTF-8 validity, the one definition: the importers repair other tools' text with it and the
// JSON writer keeps every string it writes valid (a parser refuses a file with one bad byte).
#include <cstddef>
#include <string>
#include <string_view>

namespace sl {

// Length of the valid UTF-8 sequence starting at s[i] (1 for ASCII), or 0 when it is not one:
// a stray continuation byte, a lead byte of C0, C1 or F5-FF, a truncated sequence, an overlong
// encoding, a UTF-16 surrogate (ED A0 80 ...) or a code point above U+10FFFF.
size_t utf8SequenceLength(std::string_view s, size_t i);

bool isValidUtf8(std::string_view s);
// `s` with each byte that starts no valid sequence replaced by U+FFFD (a copy of `s` when valid).
std::string sanitizeUtf8(std::string_view s);
// `s` and as many spaces as make it `columns` characters wide on a terminal (a character is a
// code point; wider than that it is returned as it is): printf's %-20s counts bytes, so a
// non-ASCII process name pushed the columns after it out of line.
std::string padToColumns(std::string_view s, size_t columns);

}  // namespace sl
