#pragma once
// The fixture reports the golden tests run every stats report on, by name.
#include <memory>
#include <string>
#include <vector>

#include "model/core/Report.h"

namespace sl::test {

std::vector<std::string> goldenFixtureNames();
// Built once per process and cached; nullptr for an unknown name.
std::shared_ptr<const Report> goldenFixture(const std::string& name);
// tests/data/analysis/external/<file> (third-party fixtures, see NOTICE.md there).
std::string externalFixturePath(const std::string& file);

}  // namespace sl::test
