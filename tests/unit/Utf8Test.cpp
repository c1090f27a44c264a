// UTF-8 validity (model/util/Utf8.h) and the JSON writer that relies on it: every string it
// writes must be valid UTF-8, or a JSON parser refuses the whole file. F5-F7 lead bytes and
// encoded UTF-16 surrogates passed through it before (an NVTX name, a program's raw output).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "model/core/StringTable.h"
#include "model/util/JsonWriter.h"
#include "model/util/Utf8.h"

namespace sl {
namespace {

TEST(Utf8, SequenceLengthAcceptsOnlyValidSequences) {
    EXPECT_EQ(utf8SequenceLength("a", 0), 1u);
    EXPECT_EQ(utf8SequenceLength("\xC3\xA9", 0), 2u);          // é
    EXPECT_EQ(utf8SequenceLength("\xE2\x82\xAC", 0), 3u);      // €
    EXPECT_EQ(utf8SequenceLength("\xF0\x9F\x98\x80", 0), 4u);  // U+1F600
    EXPECT_EQ(utf8SequenceLength("\xF4\x8F\xBF\xBF", 0), 4u);  // U+10FFFF, the last
    for (const char* bad : {"\x80", "\xC0\xAF", "\xC1\xBF", "\xE0\x80\xAF", "\xED\xA0\x80",
                            "\xED\xBF\xBF", "\xF0\x80\x80\xAF", "\xF4\x90\x80\x80",
                            "\xF5\x80\x80\x80", "\xF7\xBF\xBF\xBF", "\xFF", "\xE2\x82"})
        EXPECT_EQ(utf8SequenceLength(bad, 0), 0u) << testing::PrintToString(std::string(bad));
}

TEST(Utf8, JsonStringsAreAlwaysValid) {
    std::string out;
    JsonWriter::escape(out, "ok \xC3\xA9 \xF5\x80\x80\x80 \xED\xA0\x80 \xE0\x80\xAF \"q\"");
    for (size_t i = 0; i < out.size();) {
        const size_t n = utf8SequenceLength(out, i);
        ASSERT_GT(n, 0u) << "invalid UTF-8 at byte " << i << " of " << out;
        i += n;
    }
    // Each bad byte becomes U+FFFD; valid text and escapes are kept.
    EXPECT_EQ(out.rfind("\"ok \xC3\xA9 \xEF\xBF\xBD", 0), 0u) << out;
    EXPECT_NE(out.find("\\\"q\\\""), std::string::npos) << out;
}

// Numbers are written as the shortest text that reads back as the same double: `stats -f json`
// printed "StdDev (ns)": 55270.099999999999 ("%.17g").
TEST(Utf8, JsonNumbersAreTheShortestExactText) {
    std::ostringstream out;
    {
        JsonWriter j(out, false);
        j.beginArray();
        for (double v : {55270.1, 0.1, 1.0, 1e8, 2e7, -0.0, 1e21, -2.5, 123456789.123456, 5e-324})
            j.value(v);
        j.endArray();
    }
    // Whole numbers below 2^53 as integers (1e+08 read as a float and missed text matches).
    EXPECT_EQ(out.str(), "[55270.1,0.1,1,100000000,20000000,0,1e+21,-2.5,123456789.123456,5e-324]");
}

// Every string of a report is valid UTF-8, whoever gave it: a program's NVTX text reached the
// SQLite and CSV exports byte for byte while JSON and the text summary showed U+FFFD.
TEST(Utf8, ReportStringsAreRepairedWhenInterned) {
    StringTable t;
    const uint32_t bad = t.intern("bad\xFF\xFE(end");
    EXPECT_EQ(t.get(bad), "bad\xEF\xBF\xBD\xEF\xBF\xBD(end");
    EXPECT_EQ(t.intern("bad\xEF\xBF\xBD\xEF\xBF\xBD(end"), bad);  // one string, not two
    EXPECT_EQ(t.intern("bad\xFF\xFE(end"), bad);
    const uint32_t ok = t.intern("caf\xC3\xA9");
    EXPECT_EQ(t.get(ok), "caf\xC3\xA9");
    EXPECT_TRUE(isValidUtf8(t.get(t.intern("tr\xE2\x82"))));
}

// `sightline info` lines its columns up by characters, not bytes: "wide_é" is 6 wide.
TEST(Utf8, PadToColumnsCountsCharactersNotBytes) {
    EXPECT_EQ(padToColumns("abc", 5), "abc  ");
    EXPECT_EQ(padToColumns("wide_\xc3\xa9", 8), "wide_\xc3\xa9  ");
    EXPECT_EQ(padToColumns("\xe6\x97\xa5\xe6\x9c\xac", 3), "\xe6\x97\xa5\xe6\x9c\xac ");
    EXPECT_EQ(padToColumns("longer than", 4), "longer than");
}

}  // namespace
}  // namespace sl
