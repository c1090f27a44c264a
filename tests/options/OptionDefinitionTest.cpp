// Every option of the definition, table-driven: it parses in each of its spellings, it is in
// --help, in the docs table and in the JSON listing, its default is a valid value, and the
// launcher's defaults are the definition's.
#include <gtest/gtest.h>

#include <set>

#include "capture/launcher/ProfileOptions.h"
#include "model/options/OptionDocs.h"
#include "model/options/OptionParser.h"

using namespace sl::options;

namespace {

// A value the option accepts, in its own syntax.
std::string sampleValue(const OptionDef& o) {
    switch (o.kind) {
        case ValueKind::Switch:
            return "false";
        case ValueKind::Integer:
            return std::to_string(o.min);
        case ValueKind::Seconds:
            return "1.5";
        case ValueKind::Text:
            return "x";
        case ValueKind::Flag:
            return "";
        case ValueKind::Choice:
        case ValueKind::List:
            break;
    }
    std::string v(o.values.back().name);
    if (v == "N") return "3";
    if (v.size() > 2 && v.substr(v.size() - 2) == ":N") return v.substr(0, v.size() - 1) + "2";
    return v;
}

std::vector<const OptionDef*> everyOption() {
    std::vector<const OptionDef*> all;
    for (const auto& c : commandDefs())
        for (const OptionDef* o : optionsOf(c.name)) all.push_back(o);
    return all;
}

const BuildFeatures kFull{true};

}  // namespace

TEST(OptionDefinition, EveryOptionParsesInEverySpelling) {
    size_t checked = 0;
    for (const OptionDef* o : everyOption()) {
        SCOPED_TRACE(std::string(o->command) + " --" + std::string(o->name));
        const std::string v = sampleValue(*o);
        std::vector<std::vector<std::string>> spellings;
        const std::string eq = o->kind == ValueKind::Flag ? "" : "=" + v;
        spellings.push_back({"--" + std::string(o->name) + eq});
        if (o->kind != ValueKind::Flag) spellings.push_back({"--" + std::string(o->name), v});
        if (o->shortName) {
            if (o->kind == ValueKind::Flag)
                spellings.push_back({std::string("-") + o->shortName});
            else
                spellings.push_back({std::string("-") + o->shortName, v});
        }
        for (auto old : o->oldNames) spellings.push_back({"--" + std::string(old) + eq});
        for (const auto& args : spellings) {
            auto parsed = parseArgs(o->command, args, kFull);
            ASSERT_TRUE(parsed) << parsed.error();
            EXPECT_TRUE(parsed->given(o->name));
            if (o->kind != ValueKind::Flag) {
                auto canonical = checkValue(*o, v);
                ASSERT_TRUE(canonical) << canonical.error();
                EXPECT_EQ(parsed->value(o->name), *canonical);
            }
            // Options nsys has that are not available here warn, once, and never fail.
            if (o->support == Support::Unavailable) {
                ASSERT_EQ(parsed->warnings.size(), 1u);
                EXPECT_NE(parsed->warnings[0].find("--" + std::string(o->name)), std::string::npos);
            }
            ++checked;
        }
    }
    EXPECT_GT(checked, 200u);
}

TEST(OptionDefinition, EveryOptionIsDocumentedHelpedAndListed) {
    for (const auto& c : commandDefs()) {
        const std::string help = helpText(c.name, kFull);
        const std::string md = markdownTable(c.name, kFull);
        const std::string json = optionsJson(c.name, kFull);
        for (const OptionDef* o : optionsOf(c.name)) {
            SCOPED_TRACE(std::string(c.name) + " --" + std::string(o->name));
            EXPECT_FALSE(o->help.empty());
            EXPECT_NE(help.find("--" + std::string(o->name)), std::string::npos);
            EXPECT_NE(md.find("`--" + std::string(o->name) + "`"), std::string::npos);
            EXPECT_NE(json.find("\"name\": \"" + std::string(o->name) + "\""), std::string::npos);
            if (o->support != Support::Implemented) {
                EXPECT_FALSE(o->note.empty());
            }
            for (const auto& v : o->values) {
                if (v.support != Support::Implemented && v.sameAs.empty()) {
                    EXPECT_FALSE(v.note.empty());
                }
            }
            if (!o->defaultValue.empty() && o->kind != ValueKind::Text) {
                auto d = checkValue(*o, std::string(o->defaultValue));
                EXPECT_TRUE(d) << d.error();
            }
        }
    }
}

TEST(OptionDefinition, NamesAreUniquePerCommand) {
    for (const auto& c : commandDefs()) {
        std::set<std::string> longs;
        std::set<char> shorts{'h'};  // -h is help everywhere
        for (const OptionDef* o : optionsOf(c.name)) {
            EXPECT_TRUE(longs.insert(std::string(o->name)).second) << c.name << " --" << o->name;
            for (auto old : o->oldNames)
                EXPECT_TRUE(longs.insert(std::string(old)).second) << c.name << " --" << old;
            if (o->shortName) {
                EXPECT_TRUE(shorts.insert(o->shortName).second) << c.name << " -" << o->shortName;
            }
        }
    }
}

TEST(OptionDefinition, ProfileDefaultsAreTheLaunchers) {
    const sl::capture::ProfileOptions o;
    auto def = [](std::string_view name) {
        const OptionDef* d = findOption("profile", name);
        EXPECT_NE(d, nullptr) << name;
        return d ? std::string(d->defaultValue) : std::string();
    };
    EXPECT_EQ(def("trace"), "cuda,nvtx,osrt");
    EXPECT_TRUE(o.traceCuda && o.traceNvtx && o.traceOsrt);
    EXPECT_EQ(std::stoll(def("osrt-threshold")), o.osrtThresholdNs);
    EXPECT_EQ(std::stoi(def("sampling-frequency")), o.samplingFrequency);
    EXPECT_EQ(std::stoi(def("cpu-metrics-frequency")), o.cpuMetricsFrequency);
    EXPECT_EQ(def("sample") != "none", o.cpuSampling);
    EXPECT_EQ(def("backtrace") != "none", o.backtraces);
    EXPECT_EQ(def("cpuctxsw") != "none", o.contextSwitches);
    EXPECT_EQ(def("cpu-metrics") == "true", o.cpuMetrics);
    EXPECT_EQ(def("stop-on-exit") == "true", o.stopOnExit);
    EXPECT_EQ(def("wait") == "all", o.waitAll);
    EXPECT_EQ(def("inherit-environment") == "true", o.inheritEnvironment);
    EXPECT_EQ(def("force-overwrite") == "true", o.forceOverwrite);
    EXPECT_EQ(def("trace-fork-before-exec") == "true", o.traceForkBeforeExec);
    EXPECT_EQ(def("kill"), "sigterm");
    EXPECT_EQ(o.kill, sl::capture::KillMode::Sigterm);
    EXPECT_EQ(def("capture-range-end"), "stop");
    EXPECT_EQ(o.rangeEnd, sl::capture::CaptureRangeEnd::Stop);
    EXPECT_EQ(def("delay"), "0");
    EXPECT_EQ(o.delayNs, 0);
    EXPECT_EQ(def("duration"), "0");
    EXPECT_EQ(o.durationNs, 0);
}

TEST(OptionDefinition, WithoutCudaTheCudaOptionsAreNotAvailable) {
    const BuildFeatures noCuda{false};
    auto parsed = parseArgs("profile", {"-t", "cuda,nvtx", "--cuda-memory-usage=true"}, noCuda);
    ASSERT_TRUE(parsed) << parsed.error();
    ASSERT_EQ(parsed->warnings.size(), 2u);
    EXPECT_NE(parsed->warnings[0].find("--trace=cuda is not available: this build has no CUDA"),
              std::string::npos)
        << parsed->warnings[0];
    EXPECT_NE(optionsJson("profile", noCuda).find("\"cuda\": false"), std::string::npos);
    EXPECT_NE(helpText("profile", noCuda).find("not available here"), std::string::npos);
}

TEST(OptionDefinition, ConditionsNameAnOptionAndAValueOfTheSameCommand) {
    // onlyWhen greys fields out in the Capture tab and keeps them off its command line: a typo in
    // a condition would silently hide an option.
    int conditions = 0;
    for (const CommandDef& c : commandDefs())
        for (const OptionDef* o : optionsOf(c.name)) {
            if (o->onlyWhen.option.empty()) continue;
            ++conditions;
            SCOPED_TRACE(std::string(o->name));
            const OptionDef* other = findOption(c.name, o->onlyWhen.option);
            ASSERT_NE(other, nullptr);
            EXPECT_NE(other, o);
            EXPECT_TRUE(checkValue(*other, std::string(o->onlyWhen.value)).ok());
            EXPECT_EQ(o->onlyWhen.test == Condition::Test::Has, other->kind == ValueKind::List);
            // The other option's default decides whether the option applies out of the box.
            (void)o->onlyWhen.holds(other->defaultValue);
        }
    EXPECT_GE(conditions, 10);
    Condition has{"trace", Condition::Test::Has, "osrt"};
    EXPECT_TRUE(has.holds("cuda,osrt"));
    EXPECT_FALSE(has.holds("cuda,osrt-x"));
    EXPECT_FALSE(has.holds(""));
    EXPECT_TRUE((Condition{"sample", Condition::Test::IsNot, "none"}.holds("process-tree")));
    EXPECT_FALSE((Condition{"sample", Condition::Test::IsNot, "none"}.holds("none")));
    EXPECT_TRUE(Condition{}.holds("anything"));
}

TEST(OptionDefinition, EveryIntegerHasARange) {
    // The Capture tab's number boxes take their limits from here.
    for (const CommandDef& c : commandDefs())
        for (const OptionDef* o : optionsOf(c.name))
            if (o->kind == ValueKind::Integer) {
                EXPECT_LT(o->min, o->max) << o->name;
            }
}
