#include "viewer/window/CommandLine.h"

#include <QRegularExpression>
#include <cmath>

namespace sl::viewer {

std::optional<QSize> parseSize(const QString& text) {
    static const QRegularExpression re("^(\\d{1,5})x(\\d{1,5})$");
    const auto m = re.match(text.trimmed());
    if (!m.hasMatch()) return std::nullopt;
    const int w = m.captured(1).toInt(), h = m.captured(2).toInt();
    if (w < 64 || h < 64 || w > 16384 || h > 16384) return std::nullopt;
    return QSize(w, h);
}

std::optional<int64_t> parseTime(const QString& text) {
    static const QRegularExpression re("^([-+]?\\d+(?:\\.\\d*)?|[-+]?\\.\\d+)\\s*(ns|us|ms|s)?$");
    const auto m = re.match(text.trimmed());
    if (!m.hasMatch()) return std::nullopt;
    const double v = m.captured(1).toDouble();
    const QString unit = m.captured(2);
    const double scale = unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : 1e9;
    return static_cast<int64_t>(std::llround(v * scale));
}

std::optional<std::pair<int64_t, int64_t>> parseTimeRange(const QString& text) {
    const QStringList parts = text.split(':');
    if (parts.size() != 2) return std::nullopt;
    const auto a = parseTime(parts[0]), b = parseTime(parts[1]);
    if (!a || !b || *b <= *a) return std::nullopt;
    return std::make_pair(*a, *b);
}

}  // namespace sl::viewer
