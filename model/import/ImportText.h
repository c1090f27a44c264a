#pragma once
// Text helpers shared by the importers: UTF-8 repair (other tools' exports hold Latin-1 bytes)
// and exact decimal time parsing (Chrome traces give microseconds with fractional nanoseconds
// at magnitudes a double cannot hold: 1.7e15 us has 19 significant digits in ns).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/util/Utf8.h"

namespace sl::import {

// UTF-8 repair: model/util/Utf8.h (the report's string table repairs every string it takes too).
using sl::isValidUtf8;
using sl::sanitizeUtf8;

// Parses a JSON number given in `unit` units (1000 for microseconds, 1 for nanoseconds) into
// integer nanoseconds, exactly, rounding half away from zero below 1 ns. Accepts integers,
// fractions and exponents ("1700000000000000.123", "1.7e15", "-5"). nullopt when the text is
// not a number or the result does not fit in int64.
std::optional<int64_t> decimalToNs(std::string_view text, int64_t unit);

// "123" or "stream 7" -> 123 / 7 (the last run of digits); nullopt when there are none.
std::optional<int64_t> trailingInteger(std::string_view s);

}  // namespace sl::import
