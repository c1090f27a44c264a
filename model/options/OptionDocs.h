#pragma once
// What is generated from the option definition for people and programs: `--help` text, the
// markdown compatibility table of docs/capture.md and the JSON listing the Capture tab reads
// (`sightline profile --list-options --format json|markdown`).
#include <string>
#include <string_view>

#include "model/options/OptionDef.h"

namespace sl::options {

std::string helpText(std::string_view command, const BuildFeatures& f);
std::string markdownTable(std::string_view command, const BuildFeatures& f);
std::string optionsJson(std::string_view command, const BuildFeatures& f);

}  // namespace sl::options
