#pragma once
// Text for times in the analysis docks: durations and report-relative timestamps with enough
// digits to tell neighbouring events apart, plus parsing of what users type ("1.5ms").
#include <QString>
#include <cstdint>
#include <optional>

namespace sl::viewer {

QString durationText(int64_t ns);             // "850 ns", "12.345 us", "1.234567 ms", "2.345678 s"
QString timestampText(int64_t nsFromOrigin);  // "1.234567 ms" (durationText with a sign)
// One unit for a whole table column, so a column never mixes "ms" and "s": the largest unit
// in which the column's largest magnitude has at most 4 integer digits.
enum class TimeUnit { Ns, Us, Ms, S };
TimeUnit columnTimeUnit(int64_t maxAbsNs);
// `ns` in `unit`, exact to the nanosecond: "0.000850 ms", "1234.567890 ms".
QString durationText(int64_t ns, TimeUnit unit);
// "1.5ms", "200us", "3 s", "42" (ns); nullopt when unreadable.
std::optional<int64_t> parseDurationText(const QString& text);

}  // namespace sl::viewer
