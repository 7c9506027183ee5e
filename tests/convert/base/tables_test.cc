// The string table and the DataTable writer.
#include <gtest/gtest.h>

#include <string>

#include "convert/base/data_table.h"
#include "convert/base/string_table.h"

namespace tbprof {
namespace {

TEST(StringTable, InternsEachDistinctStringOnce) {
  StringTable t;
  EXPECT_EQ(t.Intern(""), kNoStr);
  StrId a = t.Intern("MatMul");
  StrId b = t.Intern("Conv2D");
  EXPECT_NE(a, b);
  EXPECT_EQ(t.Intern(std::string("Mat") + "Mul"), a);
  EXPECT_EQ(t.View(a), "MatMul");
  EXPECT_EQ(t.Find("Conv2D"), b);
  EXPECT_EQ(t.Find("Relu"), kNoStr);
  // Many strings force the index to grow; every id still names its string.
  for (int i = 0; i < 10000; ++i) t.Intern("op" + std::to_string(i));
  EXPECT_EQ(t.View(t.Find("op9999")), "op9999");
  EXPECT_EQ(t.View(a), "MatMul");
  EXPECT_EQ(t.size(), 10003u);  // "", MatMul, Conv2D and the 10,000
}

TEST(DataTable, WritesColumnsRowsAndPropertiesAsXprofDoes) {
  DataTable t;
  t.AddColumn("rank", "Rank", "number");
  t.AddColumn("name", "Name", "string", "tooltip");
  t.AddColumn("on", "On", "boolean");
  t.AddRow({1.0, std::string("a\"b"), true});
  t.AddRow({2.5, std::string("\xff"), DataTable::Cell{}});
  t.SetProperty("z", "last");
  t.SetProperty("a", "first");
  EXPECT_EQ(t.ToJson(),
            "{\"cols\":[{\"id\":\"rank\",\"label\":\"Rank\",\"type\":\"number\"},"
            "{\"id\":\"name\",\"label\":\"Name\",\"p\":{\"role\":\"tooltip\"},\"type\":\"string\"},"
            "{\"id\":\"on\",\"label\":\"On\",\"type\":\"boolean\"}],"
            "\"p\":{\"a\":\"first\",\"z\":\"last\"},"
            "\"rows\":[{\"c\":[{\"v\":1.0},{\"v\":\"a\\\"b\"},{\"v\":true}]},"
            "{\"c\":[{\"v\":2.5},{\"v\":\"\xef\xbf\xbd\"},{\"v\":null}]}]}");
}

TEST(DataTable, CsvQuotesOnlyWhatNeedsIt) {
  DataTable t;
  t.AddColumn("n", "Name", "string");
  t.AddColumn("v", "Value", "number");
  t.AddRow({std::string("plain"), 1.5});
  t.AddRow({std::string("a,b \"c\""), 2.0});
  EXPECT_EQ(t.ToCsv(), "Name,Value\r\nplain,1.5\r\n\"a,b \"\"c\"\"\",2\r\n");
}

// OWASP's CSV-injection advice: a text cell a spreadsheet would run as a
// formula gets a leading ' and is quoted; numbers, negative ones included,
// stay numbers. Expected lines written by hand.
TEST(DataTable, CsvNeutralisesFormulasButKeepsNegativeNumbers) {
  DataTable t;
  t.AddColumn("n", "Name", "string");
  t.AddColumn("v", "Value", "number");
  for (const char* name : {"=HYPERLINK(\"http://x\",\"y\")", "+cmd|'/c calc'!A0", "-2+3", "@SUM(A1)", "\tx", "\rx",
                           "-1.5", "+2", "-3e-7", "-", "-e5", "a=b"}) {
    t.AddRow({std::string(name), -4.25});
  }
  EXPECT_EQ(t.ToCsv(),
            "Name,Value\r\n"
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",-4.25\r\n"
            "\"'+cmd|'/c calc'!A0\",-4.25\r\n"
            "\"'-2+3\",-4.25\r\n"
            "\"'@SUM(A1)\",-4.25\r\n"
            "\"'\tx\",-4.25\r\n"
            "\"'\rx\",-4.25\r\n"
            "-1.5,-4.25\r\n"
            "+2,-4.25\r\n"
            "-3e-7,-4.25\r\n"
            "\"'-\",-4.25\r\n"
            "\"'-e5\",-4.25\r\n"
            "a=b,-4.25\r\n");
}

}  // namespace
}  // namespace tbprof
