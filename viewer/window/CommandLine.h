#pragma once
// Parsing of sightline-ui's option values, kept apart from main() so it is unit-tested.
#include <QSize>
#include <QString>
#include <cstdint>
#include <optional>

namespace sl::viewer {

// "1600x900" -> QSize; nullopt when malformed or out of 64..16384.
std::optional<QSize> parseSize(const QString& text);
// "START:END" relative to the session origin: numbers with a unit (ns, us, ms, s; a bare
// number is seconds), for example "1.5s:2s" or "100ms:250ms". nullopt when malformed or empty.
std::optional<std::pair<int64_t, int64_t>> parseTimeRange(const QString& text);
std::optional<int64_t> parseTime(const QString& text);

}  // namespace sl::viewer
