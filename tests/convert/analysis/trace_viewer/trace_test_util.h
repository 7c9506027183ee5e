// Helpers shared by the trace viewer tests: JSON parsing with a Chrome
// trace-event schema check, and tiny hand-built profiles.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace tbprof::trace_testing {

// Parses `json`, checks it is a trace-event document (object with a
// traceEvents array whose entries carry the fields their phase requires) and
// returns it. Failures are reported through gtest.
inline boost::json::object ParseTraceDocument(const std::string& json) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(json, ec);
  EXPECT_FALSE(ec) << "invalid JSON: " << ec.message();
  if (ec || !v.is_object()) {
    ADD_FAILURE() << "trace document is not a JSON object";
    return {};
  }
  boost::json::object doc = v.as_object();
  EXPECT_TRUE(doc.contains("traceEvents") && doc.at("traceEvents").is_array());
  if (!doc.contains("traceEvents")) return doc;
  for (const boost::json::value& ev : doc.at("traceEvents").as_array()) {
    EXPECT_TRUE(ev.is_object());
    const boost::json::object& e = ev.as_object();
    EXPECT_TRUE(e.contains("ph") && e.at("ph").is_string()) << boost::json::serialize(e);
    EXPECT_TRUE(e.contains("pid") && e.at("pid").is_number()) << boost::json::serialize(e);
    EXPECT_TRUE(e.contains("name") && e.at("name").is_string()) << boost::json::serialize(e);
    if (!e.contains("ph") || !e.at("ph").is_string()) continue;
    std::string ph(e.at("ph").as_string());
    if (ph == "M") {
      EXPECT_TRUE(e.contains("args") && e.at("args").is_object()) << boost::json::serialize(e);
      std::string name(e.at("name").as_string());
      EXPECT_TRUE(name == "process_name" || name == "process_sort_index" || name == "thread_name" ||
                  name == "thread_sort_index")
          << name;
      if (name.rfind("thread_", 0) == 0) {
        EXPECT_TRUE(e.contains("tid")) << boost::json::serialize(e);
      }
    } else if (ph == "X") {
      EXPECT_TRUE(e.contains("tid") && e.at("tid").is_number()) << boost::json::serialize(e);
      EXPECT_TRUE(e.contains("ts") && e.at("ts").is_number()) << boost::json::serialize(e);
      EXPECT_TRUE(e.contains("dur") && e.at("dur").is_number()) << boost::json::serialize(e);
      if (e.contains("dur") && e.at("dur").is_number()) {
        EXPECT_GT(e.at("dur").to_number<double>(), 0.0);
      }
      if (e.contains("bind_id")) {
        EXPECT_TRUE(e.contains("flow_in") || e.contains("flow_out"));
      }
      if (e.contains("args")) {
        EXPECT_TRUE(e.at("args").is_object());
      }
    } else if (ph == "i") {
      EXPECT_TRUE(e.contains("tid") && e.contains("ts")) << boost::json::serialize(e);
      EXPECT_EQ(e.at("s"), "t");
    } else if (ph == "C") {
      // A counter sample: on the process (no thread), every arg a number.
      EXPECT_FALSE(e.contains("tid")) << boost::json::serialize(e);
      EXPECT_TRUE(e.contains("ts") && e.at("ts").is_number()) << boost::json::serialize(e);
      EXPECT_TRUE(e.contains("args") && e.at("args").is_object()) << boost::json::serialize(e);
      if (e.contains("args") && e.at("args").is_object()) {
        for (const auto& [k, v] : e.at("args").as_object()) EXPECT_TRUE(v.is_number()) << k;
      }
    } else if (ph == "s" || ph == "f") {
      // A flow's ends (the critical path's arrows): on a thread, with an id; the end binds to its slice.
      EXPECT_TRUE(e.contains("tid") && e.contains("ts") && e.contains("id") && e.contains("cat"))
          << boost::json::serialize(e);
      if (ph == "f") {
        EXPECT_EQ(e.at("bp"), "e") << boost::json::serialize(e);
      }
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  return doc;
}

// The non-metadata events of a document.
inline std::vector<boost::json::object> Events(const boost::json::object& doc) {
  std::vector<boost::json::object> out;
  if (!doc.contains("traceEvents")) return out;
  for (const boost::json::value& ev : doc.at("traceEvents").as_array()) {
    if (ev.as_object().at("ph") != "M") out.push_back(ev.as_object());
  }
  return out;
}

inline double Num(const boost::json::object& o, const char* key) { return o.at(key).to_number<double>(); }

}  // namespace tbprof::trace_testing
