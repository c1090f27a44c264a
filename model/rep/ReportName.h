#pragma once
// What a report file may be named: the one rule for `sightline profile -o`, the Capture tab and
// the file dialogs. Sightline's own extension is .rep; nsys scripts name their reports
// X.nsys-rep (X.qdrep before nsys 2021.3) and read them back by that name (`nsys stats
// X.nsys-rep`), so such a name is kept as given and the file is a Sightline report.
#include <array>
#include <string>
#include <string_view>

namespace sl {

inline constexpr std::array<std::string_view, 3> kReportExtensions = {".rep", ".nsys-rep", ".qdrep"};

// The one of kReportExtensions `name` ends in (after a file name of at least one character), or
// "" if none.
inline std::string_view reportExtensionOf(std::string_view name) {
    const size_t slash = name.find_last_of('/');
    const std::string_view base = slash == std::string_view::npos ? name : name.substr(slash + 1);
    for (std::string_view ext : kReportExtensions)
        if (base.size() > ext.size() && base.ends_with(ext)) return ext;
    return {};
}

inline bool hasReportExtension(std::string_view name) {
    return !reportExtensionOf(name).empty();
}

// `name` as the report's file name: ".rep" added unless it has a report extension.
inline std::string reportFileName(std::string name) {
    if (!hasReportExtension(name)) name += ".rep";
    return name;
}

}  // namespace sl
