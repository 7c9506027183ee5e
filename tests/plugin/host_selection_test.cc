// /data never answers for a host other than the one asked for: a host the run
// does not have, or ALL_HOSTS for a tool that shows one host at a time, is a
// 404 naming the run's hosts (the UI then lists them).
#include <gtest/gtest.h>

#include "plugin/routes.h"
#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

using testing_plugin::TempLogdir;

class HostSelection : public testing_plugin::ServiceTest {
 protected:
  void SetUp() override { StartService(logdir_.logdir()); }
  // The fixture's two-host xplane run: host1 and host2.example.com.
  static std::string Multi(const std::string& rest) { return "/data?run=nested/deeper/train/run_multi&" + rest; }

  TempLogdir logdir_;
};

TEST_F(HostSelection, UnknownHostIs404NamingTheHosts) {
  // overview_page combines every host whatever the host says, and used to answer for an unknown one.
  for (const char* tool : {"overview_page", "framework_op_stats", "trace_viewer", "memory_profile"}) {
    HttpResponse r = Get(Multi(std::string("tag=") + tool + "&host=no_such_host"));
    EXPECT_EQ(r.status, 404) << tool << ": " << r.Body();
    EXPECT_NE(r.Body().find("no_such_host"), std::string::npos) << r.Body();
    EXPECT_NE(r.Body().find("host1, host2.example.com"), std::string::npos) << r.Body();
  }
  EXPECT_EQ(Get(Multi("tag=trace_viewer&hosts=host1,no_such_host")).status, 404);
}

TEST_F(HostSelection, AllHostsForAOneHostToolIs404) {
  for (const char* tool : {"trace_viewer", "trace_viewer@", "memory_profile"}) {
    HttpResponse r = Get(Multi(std::string("tag=") + tool + "&host=ALL_HOSTS"));
    EXPECT_EQ(r.status, 404) << tool << ": " << r.Body();
    EXPECT_NE(r.Body().find("host1, host2.example.com"), std::string::npos) << r.Body();
  }
  // Tools that combine hosts still take it, and a named host still works.
  EXPECT_EQ(Get(Multi("tag=framework_op_stats&host=ALL_HOSTS")).status, 200);
  EXPECT_EQ(Get(Multi("tag=overview_page&host=ALL_HOSTS")).status, 200);
  EXPECT_EQ(Get(Multi("tag=overview_page&host=host1")).status, 200);
  EXPECT_EQ(Get(Multi("tag=trace_viewer&host=host2.example.com")).status, 200);
}

}  // namespace
}  // namespace tbprof
