#pragma once
// `sightline-ui --screenshot`: loads a report, renders its timeline at a given size (and
// optionally a given range) in a window of its own, and writes a PNG. Needs a display with
// OpenGL 3.3 (xvfb-run is enough). Returns an error message, empty on success.
#include <QSize>
#include <QString>
#include <cstdint>
#include <optional>
#include <utility>

namespace sl::viewer {

struct ScreenshotOptions {
    QString report;
    QString output;
    QSize size{1600, 900};
    std::optional<std::pair<int64_t, int64_t>> range;  // relative to the session origin
};

QString writeScreenshot(const ScreenshotOptions& options);

}  // namespace sl::viewer
