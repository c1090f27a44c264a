// The parser reads command lines the way nsys does, and says exactly what is wrong.
#include <gtest/gtest.h>

#include "model/options/OptionParser.h"

using namespace sl::options;

namespace {

const BuildFeatures kFull{true};

sl::Result<ParsedArgs> parse(std::string_view cmd, std::vector<std::string> args) {
    return parseArgs(cmd, args, kFull);
}

std::string errorOf(std::string_view cmd, std::vector<std::string> args) {
    auto r = parse(cmd, std::move(args));
    return r ? std::string("(parsed)") : r.error();
}

}  // namespace

TEST(OptionParser, NsysValueSyntax) {
    auto a = parse("profile", {"-t", "cuda,nvtx", "--duration=5", "-o", "out", "-w", "true",
                               "-x", "false", "--stats", "--export", "sqlite", "-fx", "prog"});
    ASSERT_FALSE(a) << "-fx is not -f x";
    a = parse("profile", {"-t", "cuda,nvtx", "--duration=5", "-oout", "-w", "true", "-x", "false",
                          "--stats", "--export", "sqlite", "prog", "-t", "mine"});
    ASSERT_TRUE(a) << a.error();
    EXPECT_EQ(a->value("trace"), "cuda,nvtx");
    EXPECT_EQ(a->value("duration"), "5");
    EXPECT_EQ(a->value("output"), "out");
    EXPECT_EQ(a->value("show-output"), "true");
    EXPECT_EQ(a->value("stop-on-exit"), "false");
    EXPECT_EQ(a->value("stats"), "true");  // a switch alone means true
    EXPECT_EQ(a->values("export"), std::vector<std::string>{"sqlite"});
    // The program's own options pass through untouched.
    EXPECT_EQ(a->positionals, (std::vector<std::string>{"prog", "-t", "mine"}));
    EXPECT_EQ(a->optionsText, "-t cuda,nvtx --duration=5 -oout -w true -x false --stats --export sqlite");
    // Defaults.
    EXPECT_EQ(a->value("sampling-frequency"), "1000");
    EXPECT_FALSE(a->given("sampling-frequency"));
}

TEST(OptionParser, OldSpellingsMapToTheirValues) {
    auto a = parse("profile", {"-s", "cpu", "--gpu-metrics-device=0", "--kill", "false", "p"});
    ASSERT_TRUE(a) << a.error();
    EXPECT_EQ(a->value("sample"), "process-tree");
    EXPECT_EQ(a->value("gpu-metrics-devices"), "0");
    EXPECT_EQ(a->value("kill"), "none");
    a = parse("stats", {"--timeunit", "milliseconds", "r.rep"});
    ASSERT_TRUE(a) << a.error();
    EXPECT_EQ(a->value("timeunit"), "ms");
}

TEST(OptionParser, PatternValues) {
    auto a = parse("profile", {"--capture-range-end=repeat-shutdown:4", "--kill=9", "p"});
    ASSERT_TRUE(a) << a.error();
    EXPECT_EQ(a->value("capture-range-end"), "repeat-shutdown:4");
    EXPECT_EQ(a->value("kill"), "9");
    EXPECT_NE(errorOf("profile", {"--capture-range-end=repeat:0", "p"}).find("not a valid value"),
              std::string::npos);
    EXPECT_NE(errorOf("profile", {"--kill=sighup", "p"}).find("--kill: 'sighup' is not a valid value"),
              std::string::npos);
}

TEST(OptionParser, MistakesAreNamedWithWhatIsAllowed) {
    EXPECT_EQ(errorOf("profile", {"--outptu", "x", "p"}),
              "unknown option '--outptu'; did you mean '--output'?");
    EXPECT_EQ(errorOf("profile", {"--sampling", "x", "p"}),
              "unknown option '--sampling'; did you mean '--sampling-frequency'?");
    EXPECT_EQ(errorOf("profile", {"--zzzzzzzz", "p"}), "unknown option '--zzzzzzzz'");
    EXPECT_EQ(errorOf("profile", {"-K", "p"}), "unknown option '-K'");
    EXPECT_EQ(errorOf("profile", {"--sampling-frequency=50", "p"}),
              "--sampling-frequency: '50' is not a valid value (expected a whole number from 100 to "
              "8000 HZ)");
    EXPECT_EQ(errorOf("profile", {"--sample=proces-tree", "p"}),
              "--sample: 'proces-tree' is not a valid value (expected process-tree, system-wide, "
              "xhv, xhv-system-wide or none); did you mean 'process-tree'?");
    EXPECT_EQ(errorOf("profile", {"--stats=maybe", "p"}),
              "--stats: 'maybe' is not a valid value (expected true or false)");
    EXPECT_EQ(errorOf("profile", {"--delay=-1", "p"}),
              "--delay: '-1' is not a valid value (expected a number of seconds (decimals allowed))");
    EXPECT_EQ(errorOf("profile", {"--duration"}),
              "option '--duration' needs a value (a number of seconds (decimals allowed))");
    EXPECT_NE(errorOf("profile", {"-t", "cuda,nvtxx", "p"}).find("did you mean 'nvtx'?"),
              std::string::npos);
    EXPECT_EQ(errorOf("status", {"extra"}), "unexpected argument 'extra'");
}

TEST(OptionParser, UnavailableOptionsWarnOnceAndTheRunGoesOn) {
    auto a = parse("profile", {"-t", "cuda,cusolver,cusparse", "--cuda-um-cpu-page-faults=true", "--cuda-um-cpu-page-faults=false",
                               "--gpuctxsw=true", "p"});
    ASSERT_TRUE(a) << a.error();
    ASSERT_EQ(a->warnings.size(), 4u);
    EXPECT_EQ(a->warnings[0], "--trace=cusolver is not available: not traced yet; the other -t domains are traced");
    EXPECT_EQ(a->value("trace"), "cuda,cusolver,cusparse");
}

TEST(OptionParser, RepeatableOptionsKeepEveryValue) {
    auto a = parse("profile", {"-e", "A=1", "--env-var=B=2,C=3", "p"});
    ASSERT_TRUE(a) << a.error();
    EXPECT_EQ(a->values("env-var"), (std::vector<std::string>{"A=1", "B=2,C=3"}));
    a = parse("stats", {"-r", "nvtx_sum", "-r", "osrt_sum,cuda_api_sum", "-f", "csv,column", "x.rep"});
    ASSERT_TRUE(a) << a.error();
    EXPECT_EQ(a->values("report").size(), 2u);
    EXPECT_EQ(a->value("format"), "csv,column");
}

TEST(OptionParser, FlagsHelpAndDoubleDash) {
    auto a = parse("stats", {"--help-reports=cuda_api_sum", "-q", "x.rep"});
    ASSERT_TRUE(a) << a.error();
    EXPECT_EQ(a->value("help-reports"), "cuda_api_sum");
    EXPECT_TRUE(a->given("quiet"));
    a = parse("profile", {"-h"});
    ASSERT_TRUE(a);
    EXPECT_TRUE(a->help);
    a = parse("profile", {"--", "-weird-program", "--x"});
    ASSERT_TRUE(a) << a.error();
    EXPECT_EQ(a->positionals, (std::vector<std::string>{"-weird-program", "--x"}));
}

TEST(OptionParser, ClosestMatch) {
    EXPECT_EQ(closestMatch("trcae", {"trace", "delay"}), "trace");
    EXPECT_EQ(closestMatch("q", {"trace", "delay"}), "");
}

TEST(OptionParser, TheRecordedOptionsAreTheCaptureSettings) {
    // A GUI's --progress-fd is not part of the capture: two runs of the same settings, one from
    // the Capture tab, record the same options.
    auto a = parseArgs("profile", {"--progress-fd=11", "-t", "nvtx", "-o", "x", "./app"}, {});
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(a->optionsText, "-t nvtx -o x");
    EXPECT_EQ(a->value("progress-fd"), "11");
}

// --duration and --delay take what the help says, digits with an optional decimal part: strtod
// also took hex ("0x2" ran for 2 s), exponents and hex floats.
TEST(OptionParser, SecondsAreDecimalNumbersOnly) {
    double v = -1;
    EXPECT_TRUE(parseDecimalSeconds("2", 1e7, &v));
    EXPECT_EQ(v, 2.0);
    EXPECT_TRUE(parseDecimalSeconds("0.5", 1e7, &v));
    EXPECT_EQ(v, 0.5);
    EXPECT_TRUE(parseDecimalSeconds(".25", 1e7, &v));
    EXPECT_EQ(v, 0.25);
    for (const char* bad : {"", ".", "0x2", "1e0", "0x1p0", "inf", "nan", "-1", "+1", "1.2.3", " 1",
                            "1s", "20000000"})
        EXPECT_FALSE(parseDecimalSeconds(bad, 1e7, &v)) << bad;
    EXPECT_FALSE(parseArgs("profile", {"-d", "0x2", "./app"}, {}).ok());
}

// "N" in a choice list stands for any positive number: it was suggested as a spelling
// ("--kill: '0' is not a valid value ...; did you mean 'N'?").
TEST(OptionParser, NumberPlaceholderIsNotSuggested) {
    const std::string e = errorOf("profile", {"--kill=0", "./app"});
    EXPECT_NE(e.find("a positive number"), std::string::npos) << e;
    EXPECT_EQ(e.find("did you mean 'N'"), std::string::npos) << e;
}
