#pragma once
// The option definition (model/options) holds its texts as std::string_view; the Capture tab's
// classes show them as QString.
#include <QString>
#include <string_view>

namespace sl::viewer {

inline QString optionText(std::string_view v) {
    return QString::fromUtf8(v.data(), qsizetype(v.size()));
}

}  // namespace sl::viewer
