#pragma once
// The rules' figures of two reports side by side (issue #18: `sightline diff` and the compare
// view): per rule, the count and the time on each side, the change, and whether it got better
// or worse (less time and fewer instances of a problem is better; a rule found on one side only
// says so).
#include <vector>

#include "model/analysis/Table.h"
#include "model/analysis/rules/Rule.h"

namespace sl::analysis {

enum class FindingChange : uint8_t { Same, Better, Worse, New, Gone };
std::string_view findingChangeName(FindingChange c);  // "same", "better", "worse", "new", "gone"

struct FindingPair {
    std::string rule, title;
    Finding baseline, comparison;
    FindingChange change = FindingChange::Same;
};

// The same rules run on both sides, in the order given (a rule missing from one side is
// compared with an empty finding).
std::vector<FindingPair> pairFindings(const std::vector<Finding>& baseline, const std::vector<Finding>& comparison);
// Rule, Baseline Severity, Comparison Severity, Baseline Count, Comparison Count, Baseline Time,
// Comparison Time, Delta, Change (%), Verdict: rows of rules that found something on a side.
Table findingsDiffTable(const std::vector<FindingPair>& pairs);

}  // namespace sl::analysis
