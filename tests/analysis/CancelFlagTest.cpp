// The long analyses the GUI runs as jobs stop when their cancel flag is set: the rules not yet
// started are errors "cancelled", and a diff stops between categories; without a flag, or with
// it false, they run as before.
#include <gtest/gtest.h>

#include <atomic>

#include "model/analysis/ReportDiff.h"
#include "model/analysis/rules/Rule.h"
#include "model/gen/SyntheticGenerator.h"

namespace sl::analysis {
namespace {

std::shared_ptr<Report> smallReport() {
    GeneratorOptions o;
    o.events = 20'000;
    return generateReport(o);
}

std::vector<std::string> everyRule() {
    std::vector<std::string> specs;
    for (const RuleInfo& rule : allRules()) specs.emplace_back(rule.name);
    return specs;
}

TEST(CancelFlag, RulesRunUntilTheFlagIsSet) {
    auto r = smallReport();
    const auto specs = everyRule();
    std::atomic<bool> cancel{false};
    const auto ran = runRules(*r, specs, {}, 2, &cancel);
    ASSERT_EQ(ran.size(), specs.size());
    for (const auto& f : ran) EXPECT_TRUE(f.ok()) << f.error();
    cancel = true;
    const auto stopped = runRules(*r, specs, {}, 2, &cancel);
    ASSERT_EQ(stopped.size(), specs.size());
    for (const auto& f : stopped) {
        ASSERT_FALSE(f.ok());
        EXPECT_EQ(f.error(), "cancelled");
    }
}

TEST(CancelFlag, DiffStopsBetweenCategories) {
    auto a = smallReport();
    GeneratorOptions o;
    o.events = 20'000;
    o.seed = 2;
    auto b = generateReport(o);
    std::atomic<bool> cancel{false};
    DiffOptions options;
    options.cancel = &cancel;
    EXPECT_FALSE(diffReports(*a, *b, options).items.empty());
    cancel = true;
    EXPECT_TRUE(diffReports(*a, *b, options).items.empty());
}

}  // namespace
}  // namespace sl::analysis
