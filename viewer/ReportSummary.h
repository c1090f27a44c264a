#pragma once
// Builds the HTML summary of a report shown in its tab (session, processes, GPUs, event counts,
// diagnostics). Pure function of the report, so it is testable without a window.
#include <QString>

#include "model/core/Report.h"

namespace sl::viewer {

QString reportSummaryHtml(const Report& report, const QString& path);

}  // namespace sl::viewer
