#include "viewer/analysis/TimeText.h"

#include "model/analysis/TimeRange.h"

namespace sl::viewer {

QString durationText(int64_t ns) {
    const double v = static_cast<double>(ns), a = v < 0 ? -v : v;
    if (a < 1e3) return QStringLiteral("%1 ns").arg(ns);
    if (a < 1e6) return QStringLiteral("%1 us").arg(v / 1e3, 0, 'f', 3);
    if (a < 1e9) return QStringLiteral("%1 ms").arg(v / 1e6, 0, 'f', 6);
    return QStringLiteral("%1 s").arg(v / 1e9, 0, 'f', 6);
}

TimeUnit columnTimeUnit(int64_t maxAbsNs) {
    if (maxAbsNs < 10'000) return TimeUnit::Ns;
    if (maxAbsNs < 10'000'000) return TimeUnit::Us;
    if (maxAbsNs < 10'000'000'000) return TimeUnit::Ms;
    return TimeUnit::S;
}

QString durationText(int64_t ns, TimeUnit unit) {
    const double v = static_cast<double>(ns);
    switch (unit) {
        case TimeUnit::Ns:
            return QStringLiteral("%1 ns").arg(ns);
        case TimeUnit::Us:
            return QStringLiteral("%1 us").arg(v / 1e3, 0, 'f', 3);
        case TimeUnit::Ms:
            return QStringLiteral("%1 ms").arg(v / 1e6, 0, 'f', 6);
        case TimeUnit::S:
            return QStringLiteral("%1 s").arg(v / 1e9, 0, 'f', 9);
    }
    return {};
}

QString timestampText(int64_t ns) {
    return durationText(ns);
}

std::optional<int64_t> parseDurationText(const QString& text) {
    const QString t = text.trimmed().remove(QLatin1Char(' '));
    if (t.isEmpty()) return std::nullopt;
    auto r = analysis::parseTimeValue(t.toStdString());
    if (!r.ok()) return std::nullopt;
    return *r;
}

}  // namespace sl::viewer
