// xprof's DataTable tests (openxla/xprof), built with our DataTable and read
// back from its JSON, where every tool's table shows them.
//
// Ported scenarios (file :: test — status — result):
// xprof/convert/data_table_utils_test.cc
//   DataTableUtilsTest.ToJson                      ported   pass (7 columns with id/label/type, 3 rows of values)
//   DataTableUtilsTest.ToJsonWithCustomProperties  ported   pass (p holds exactly key1/key2)
//   TableRowAddCellsTest.AddNumberCell, AddTextCell, AddBooleanCell
//                                                  ported   pass (one cell, its value and type, no "f")
//   TableRowAddCellsTest.AddFormattedNumberCell, AddHexCell, AddBytesCell, AddFormattedDateCell
//                                                  left out: our tables write no formatted ("f") values;
//                                                  no tool of tbprof emits one
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "convert/base/data_table.h"

namespace tbprof {
namespace {

namespace json = boost::json;

struct Col {
  const char* id;
  const char* type;
  const char* label;
};
const std::vector<Col> kColumns = {{"rank", "number", "Rank"},
                                   {"program_id", "string", "Program Id"},
                                   {"op_category", "string", "Op Category"},
                                   {"op_name", "string", "Op Name"},
                                   {"bytes_accessed", "number", "Bytes Accessed"},
                                   {"model_flops", "number", "Model Flops"},
                                   {"occurrences", "number", "#Occurrences"}};

struct Row {
  double rank;
  const char *program_id, *category, *op;
  double bytes, model_flops, occurrences;

  std::vector<DataTable::Cell> Cells() const {
    return {rank, std::string(program_id), std::string(category), std::string(op), bytes, model_flops, occurrences};
  }
};
const std::vector<Row> kRows = {{1, "11111", "category1", "op1", 200000000, 123123123, 10},
                                {2, "22222", "category2", "op2", 1000000, 0, 20},
                                {3, "33333", "category3", "op3", 3000000, 565656, 30}};

json::object Parse(const DataTable& t) { return json::parse(t.ToJson()).as_object(); }

TEST(XprofDataTableUtilsPorts, ToJson) {
  DataTable t;
  for (const Col& c : kColumns) t.AddColumn(c.id, c.label, c.type);
  for (const Row& r : kRows) t.AddRow(r.Cells());
  json::object out = Parse(t);
  const json::array& cols = out.at("cols").as_array();
  const json::array& rows = out.at("rows").as_array();
  ASSERT_EQ(cols.size(), kColumns.size());
  ASSERT_EQ(rows.size(), kRows.size());
  for (size_t i = 0; i < kColumns.size(); ++i) {
    EXPECT_EQ(cols[i].at("id").as_string(), kColumns[i].id);
    EXPECT_EQ(cols[i].at("label").as_string(), kColumns[i].label);
    EXPECT_EQ(cols[i].at("type").as_string(), kColumns[i].type);
  }
  for (size_t i = 0; i < kRows.size(); ++i) {
    SCOPED_TRACE(i);
    std::vector<DataTable::Cell> want = kRows[i].Cells();
    const json::array& cells = rows[i].at("c").as_array();
    ASSERT_EQ(cells.size(), want.size());
    for (size_t j = 0; j < want.size(); ++j) {
      const json::value& v = cells[j].at("v");
      if (const double* d = std::get_if<double>(&want[j])) {
        EXPECT_DOUBLE_EQ(v.to_number<double>(), *d);
      } else {
        EXPECT_EQ(v.as_string(), std::get<std::string>(want[j]));
      }
    }
  }
}

TEST(XprofDataTableUtilsPorts, ToJsonWithCustomProperties) {
  DataTable t;
  t.SetProperty("key1", "value1");
  t.SetProperty("key2", "value2");
  json::object out = Parse(t);
  const json::object& p = out.at("p").as_object();
  EXPECT_EQ(p.size(), 2u);
  EXPECT_EQ(p.at("key1").as_string(), "value1");
  EXPECT_EQ(p.at("key2").as_string(), "value2");
}

// One cell of each plain kind: its value is written as is, with no
// formatted ("f") form.
TEST(XprofDataTableUtilsPorts, AddNumberTextAndBooleanCells) {
  const std::vector<std::pair<const char*, DataTable::Cell>> cells = {
      {"number", 123.45}, {"string", std::string("test_string")}, {"boolean", true}};
  for (const auto& [type, cell] : cells) {
    SCOPED_TRACE(type);
    DataTable t;
    t.AddColumn("c", "c", type);
    t.AddRow({cell});
    json::object out = Parse(t);
    const json::array& row = out.at("rows").as_array().at(0).at("c").as_array();
    ASSERT_EQ(row.size(), 1u);
    const json::object& c = row[0].as_object();
    EXPECT_FALSE(c.contains("f"));
    if (const double* d = std::get_if<double>(&cell)) {
      EXPECT_DOUBLE_EQ(c.at("v").as_double(), *d);
    } else if (const std::string* s = std::get_if<std::string>(&cell)) {
      EXPECT_EQ(c.at("v").as_string(), *s);
    } else {
      EXPECT_EQ(c.at("v").as_bool(), std::get<bool>(cell));
    }
  }
}

}  // namespace
}  // namespace tbprof
