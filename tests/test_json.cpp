// append_json_string: the escaping both JSON writers (the memory snapshot and
// the profiler's trace) rely on to stay valid JSON whatever the names hold.
#include <gtest/gtest.h>

#include <string>

#include "core/internal.hpp"

namespace {

std::string quoted(const char *text) {
  std::string out;
  ek::append_json_string(out, text);
  return out;
}

TEST(JsonString, PlainTextIsQuoted) { EXPECT_EQ(quoted("saxpy"), "\"saxpy\""); }

TEST(JsonString, QuotesBackslashesAndControlCharactersAreEscaped) {
  EXPECT_EQ(quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(quoted("tab\there\nnl"), "\"tab\\u0009here\\u000anl\"");
}

TEST(JsonString, ValidUtf8IsKept) {
  EXPECT_EQ(quoted("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
}

TEST(JsonString, InvalidBytesBecomeTheReplacementCharacter) {
  EXPECT_EQ(quoted("a\xff" "b"), "\"a\\ufffdb\"");
  // A name cut in the middle of a character (a fixed-size record field).
  EXPECT_EQ(quoted("x\xe2\x82"), "\"x\\ufffd\\ufffd\"");  // one per byte
  EXPECT_EQ(quoted("\xc0\xaf"), "\"\\ufffd\\ufffd\"") << "overlong encoding";
  EXPECT_EQ(quoted("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"") << "a UTF-16 surrogate";
}

}  // namespace
