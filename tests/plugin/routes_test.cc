#include "plugin/routes.h"

#include "plugin/gzip.h"

#include <variant>

#include "convert/base/file_bytes.h"

#include <gtest/gtest.h>

#include "proto/xplane.pb.h"

#include <boost/json.hpp>

#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

using namespace testing_plugin;

class PluginRoutes : public ::testing::Test {
 protected:
  void SetUp() override {
    logdir_ = std::make_unique<TempLogdir>();
    web_ = logdir_->base() / "web";
    StartService();
  }
  // A service over logdir_ (the UI bundle in web_ is read now).
  void StartService() {
    ProfileServiceOptions options;
    options.logdir = logdir_->logdir();
    options.web_dir = web_;
    options.cache_bytes = 64 << 20;
    auto s = ProfileService::Create(options);
    ASSERT_TRUE(s.ok()) << s.status().message();
    service_ = std::move(*s);
  }
  HttpResponse Get(const std::string& target, const std::string& method = "GET", bool accepts_gzip = false) {
    HttpRequest r;
    r.method = method;
    r.target = target;
    if (accepts_gzip) r.headers["accept-encoding"] = "gzip";
    return service_->Handle(r);
  }
  bool Deferred(const std::string& target) {
    HttpRequest r;
    r.target = target;
    return std::holds_alternative<ProfileService::Deferred>(service_->Begin(r));
  }
  HttpResponse Ready(const std::string& target) {
    HttpRequest r;
    r.target = target;
    auto outcome = service_->Begin(r);
    EXPECT_TRUE(std::holds_alternative<HttpResponse>(outcome)) << target;
    return std::holds_alternative<HttpResponse>(outcome) ? std::get<HttpResponse>(outcome) : HttpResponse{};
  }
  json::value GetJson(const std::string& target) {
    HttpResponse r = Get(target);
    EXPECT_EQ(r.status, 200) << target << ": " << r.Body();
    EXPECT_EQ(r.content_type, "application/json") << target;
    boost::system::error_code ec;
    json::value v = json::parse(r.Body(), ec);
    EXPECT_FALSE(ec) << target << ": " << r.Body();
    return v;
  }
  std::string Root() const { return service_->logdir().root(); }

  std::unique_ptr<TempLogdir> logdir_;
  std::filesystem::path web_;
  std::unique_ptr<ProfileService> service_;
};

json::array Hosts(std::initializer_list<const char*> names) {
  json::array a;
  for (const char* n : names) a.emplace_back(json::object{{"hostname", n}});
  return a;
}

bool LegacyConverterFor(const std::string& suffix) {
  for (const LegacyToolSpec& s : LegacyConverters()) {
    if (s.suffix == suffix) return true;
  }
  return false;
}

TEST_F(PluginRoutes, RunsAtBothPrefixes) {
  json::array expected = {"tf22/GPU-input-bound", "tf22/GPU-compute-bound", "tf22/Cloud-TPU",
                          "nested/deeper/train/run_multi", "empty_run", "demo/jsononly", "2020_08_05_13_37_44"};
  EXPECT_EQ(GetJson("/data/plugin/profile/runs"), json::value(expected));
  EXPECT_EQ(GetJson("/runs"), json::value(expected));
  EXPECT_EQ(GetJson("/data/plugin/profile/runs/"), json::value(expected));  // trailing slash stripped
}

// Tools of tf22/Cloud-TPU: its three ready JSON files, in xprof's order, then
// the tool of its tensorflow_stats.pb once a converter for it is registered.
json::array CloudTpuTools() {
  json::array tools = {"overview_page", "input_pipeline_analyzer", "pod_viewer"};
  for (const LegacyToolSpec& s : LegacyConverters()) {
    if (s.suffix == "tensorflow_stats.pb") tools.emplace_back(s.tool);
  }
  return tools;
}

TEST_F(PluginRoutes, RunToolsFromLegacyFiles) {
  // Ready JSON is always servable, in xprof's tool order.
  EXPECT_EQ(GetJson("/data/plugin/profile/run_tools?run=tf22/Cloud-TPU"), json::value(CloudTpuTools()));
  EXPECT_EQ(GetJson("/data/plugin/profile/run_tools?run=demo/jsononly"),
            json::value(json::array{"overview_page", "op_profile", "input_pipeline_analyzer", "memory_viewer",
                                    "pod_viewer"}));
  // The TF 2.3 run: trace.json.gz, plus each .pb whose converter is registered.
  json::array tf23 = {"trace_viewer"};
  if (LegacyConverterFor("overview_page.pb")) tf23.emplace(tf23.begin(), "overview_page");
  json::value got = GetJson("/run_tools?run=2020_08_05_13_37_44");
  ASSERT_TRUE(got.is_array());
  for (const json::value& t : tf23) EXPECT_NE(std::find(got.as_array().begin(), got.as_array().end(), t), got.as_array().end());
  if (LegacyConverters().empty()) {
    EXPECT_EQ(got, json::value(tf23));
  }
  // Unknown run and no run: xprof answers [].
  EXPECT_EQ(GetJson("/run_tools?run=no_such_run"), json::value(json::array()));
  EXPECT_EQ(GetJson("/run_tools"), json::value(json::array()));
  EXPECT_EQ(GetJson("/run_tools?run=empty_run"), json::value(json::array()));
}

TEST_F(PluginRoutes, RunToolsOfXPlaneRunListOnlyRegisteredTools) {
  json::value got = GetJson("/run_tools?run=nested/deeper/train/run_multi");
  ASSERT_TRUE(got.is_array());
  for (const json::value& t : got.as_array()) {
    EXPECT_NE(FindProfileTool(std::string(t.as_string())), nullptr) << t;
  }
  if (ProfileTools().empty()) {
    EXPECT_TRUE(got.as_array().empty());
  }
  if (FindProfileTool("overview_page") != nullptr) {
    EXPECT_EQ(got.as_array().front(), "overview_page");
  }
}

TEST_F(PluginRoutes, HostsFollowAllHostsRules) {
  const std::string multi = "/data/plugin/profile/hosts?run=nested/deeper/train/run_multi&tag=";
  EXPECT_EQ(GetJson(multi + "framework_op_stats"), json::value(Hosts({"ALL_HOSTS", "host1", "host2.example.com"})));
  EXPECT_EQ(GetJson(multi + "overview_page"), json::value(Hosts({"ALL_HOSTS"})));
  EXPECT_EQ(GetJson(multi + "pod_viewer"), json::value(Hosts({"ALL_HOSTS"})));
  EXPECT_EQ(GetJson(multi + "trace_viewer"), json::value(Hosts({"host1", "host2.example.com"})));
  EXPECT_EQ(GetJson(multi + "memory_profile"), json::value(Hosts({"host1", "host2.example.com"})));
  EXPECT_EQ(GetJson(multi + "overview_page^"), json::value(Hosts({"ALL_HOSTS"})));  // TBP 2.13–2.18 name
  // Legacy run: hosts of the tool's files (host names with dots).
  EXPECT_EQ(GetJson("/hosts?run=tf22/Cloud-TPU&tag=overview_page"), json::value(Hosts({"10.240.1.50"})));
  EXPECT_EQ(GetJson("/hosts?run=2020_08_05_13_37_44&tag=trace_viewer"),
            json::value(Hosts({"8c859046be41.ant.amazon.com"})));
  EXPECT_EQ(GetJson("/hosts?run=no_such_run&tag=overview_page"), json::value(json::array()));
}

// pod_viewer compares hosts: a one-host xplane run would show one bar, so /hosts does not offer it there (the UI's
// menu offers pod_viewer only where /hosts answers a host); its /data is still served.
TEST_F(PluginRoutes, PodViewerOfferedOnlyWithSeveralHosts) {
  tensorflow::profiler::XSpace space;
  space.add_planes()->set_name("/host:CPU");
  WriteFile(logdir_->logdir() / "plugins/profile/one_host/host0.xplane.pb", space.SerializeAsString());
  EXPECT_EQ(GetJson("/hosts?run=one_host&tag=pod_viewer"), json::value(json::array()));
  EXPECT_EQ(GetJson("/hosts?run=one_host&tag=overview_page"), json::value(Hosts({"host0"})));
  EXPECT_EQ(Get("/data?run=one_host&tag=pod_viewer&host=host0").status, 200);
  EXPECT_EQ(GetJson("/hosts?run=nested/deeper/train/run_multi&tag=pod_viewer"), json::value(Hosts({"ALL_HOSTS"})));
  // A legacy run's pod_viewer.json is a file the profiler wrote: offered as before.
  EXPECT_EQ(GetJson("/hosts?run=tf22/Cloud-TPU&tag=pod_viewer"), json::value(Hosts({"10.240.1.50"})));
}

TEST_F(PluginRoutes, DataServesLegacyJsonAsIs) {
  HttpResponse r = Get("/data/plugin/profile/data?run=tf22/Cloud-TPU&tag=overview_page&host=10.240.1.50");
  ASSERT_EQ(r.status, 200) << r.Body();
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.Body(), ReadFile(logdir_->logdir() / "tf22/plugins/profile/Cloud-TPU/10.240.1.50.overview_page.json"));
  ASSERT_NE(r.gzip_body, nullptr);  // compressed once, when cached
  EXPECT_EQ(testing_plugin::Gunzip(*r.gzip_body), r.Body());
  // Unknown query parameters (the frontend forwards its own) change nothing.
  HttpResponse again = Get("/data?run=tf22/Cloud-TPU&tag=overview_page&host=ALL_HOSTS");
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.Body(), r.Body());
  HttpResponse junk =
      Get("/data?tag=pod_viewer&run=tf22/Cloud-TPU&resolution=abc&start_time_ms=zz&session_id=1&x=%20");
  ASSERT_EQ(junk.status, 200) << junk.Body();
  EXPECT_EQ(junk.Body(), ReadFile(logdir_->logdir() / "tf22/plugins/profile/Cloud-TPU/10.240.1.50.pod_viewer.json"));
}

TEST_F(PluginRoutes, DataSendsTraceJsonGzPrecompressed) {
  HttpResponse r = Get("/data?run=2020_08_05_13_37_44&tag=trace_viewer&host=8c859046be41.ant.amazon.com", "GET", true);
  ASSERT_EQ(r.status, 200) << r.Body();
  EXPECT_EQ(r.content_encoding, "gzip");
  EXPECT_EQ(r.content_type, "application/json");
  const std::string file = ReadFile(logdir_->logdir() / "plugins/profile/2020_08_05_13_37_44/8c859046be41.ant.amazon.com.trace.json.gz");
  EXPECT_EQ(r.Body(), file);
  auto plain = testing_plugin::Gunzip(r.Body());
  ASSERT_TRUE(plain.has_value());
  EXPECT_NE(plain->find("traceEvents"), std::string::npos);
  // The TBP-legacy name is an alias.
  EXPECT_EQ(Get("/data?run=2020_08_05_13_37_44&tag=trace_viewer%23", "GET", true).Body(), file);
  // A client without gzip gets the file inflated (by a worker, bounded by the response limit).
  EXPECT_EQ(Get("/data?run=2020_08_05_13_37_44&tag=trace_viewer").Body(), *plain);
}

TEST_F(PluginRoutes, DataNoDataShapes) {
  // A tag that is no tool: xprof's 404 "No Data", which tool is unknown and the run's tools (its files'),
  // so a bare "No Data" page does not leave the reader guessing.
  HttpResponse bogus = Get("/data?run=tf22/Cloud-TPU&tag=bogus_tool");
  EXPECT_EQ(bogus.status, 404);
  EXPECT_EQ(bogus.content_type, "text/plain");
  std::string offers;
  for (const json::value& t : CloudTpuTools()) offers += (offers.empty() ? "" : ", ") + std::string(t.as_string());
  EXPECT_EQ(bogus.Body(), "No Data: tbprof has no tool \"bogus_tool\". Run \"tf22/Cloud-TPU\" offers: " + offers + ".");
  EXPECT_EQ(Get("/data?run=empty_run&tag=bogus_tool").Body(),
            "No Data: tbprof has no tool \"bogus_tool\". Run \"empty_run\" has no tool that tbprof can show.");
  EXPECT_EQ(Get("/data?run=no_such_run&tag=bogus_tool").status, 404);
  // Known tools without an answer stay xprof's bare "No Data".
  for (const char* tool : {"overview_page", "trace_viewer@", "framework_op_stats", "hlo_stats"}) {
    if (FindProfileTool(tool) != nullptr) continue;
    HttpResponse r = Get(std::string("/data?run=nested/deeper/train/run_multi&host=host1&tag=") + tool);
    EXPECT_EQ(r.status, 404) << tool;
    EXPECT_EQ(r.Body(), "No Data") << tool;
  }
  // A legacy .pb without a converter is not servable either.
  if (!LegacyConverterFor("input_pipeline.pb")) {
    EXPECT_EQ(Get("/data?run=tf22/GPU-compute-bound&tag=input_pipeline_analyzer").Body(), "No Data");
  }
  HttpResponse csv = Get("/data_csv?run=tf22/Cloud-TPU&tag=bogus_tool");
  EXPECT_EQ(csv.status, 404);
  // Ready JSON cannot become CSV.
  HttpResponse json_csv = Get("/data_csv?run=tf22/Cloud-TPU&tag=overview_page");
  EXPECT_EQ(json_csv.status, 400);
  EXPECT_EQ(json_csv.Body(), "CSV format not supported for this tool type");
}

TEST_F(PluginRoutes, DataErrors) {
  EXPECT_EQ(Get("/data?run=tf22/Cloud-TPU").status, 400);            // no tag
  EXPECT_EQ(Get("/data?tag=overview_page").status, 400);             // no run
  EXPECT_EQ(Get("/data?run=no_such_run&tag=overview_page").status, 404);
  HttpResponse host = Get("/data?run=tf22/Cloud-TPU&tag=overview_page&host=otherhost");
  EXPECT_EQ(host.status, 404);
  EXPECT_NE(host.Body().find("otherhost"), std::string::npos);
  EXPECT_EQ(Get("/data?run=tf22/Cloud-TPU&tag=overview_page&host=%zz").status, 400);  // malformed escape
}

TEST_F(PluginRoutes, PathEscapesAre400) {
  for (const std::string& t : PathEscapeTargets()) {
    HttpResponse r = Get(t);
    EXPECT_EQ(r.status, 400) << t << " -> " << r.Body();
    EXPECT_EQ(r.Body().find("SECRET"), std::string::npos) << t;
    EXPECT_FALSE(r.Body().empty()) << t;
  }
  // The file link out of GPU-compute-bound is never served.
  HttpResponse leak = Get("/data?tag=overview_page&run=tf22/GPU-compute-bound&host=leak");
  EXPECT_NE(leak.status, 200);
  EXPECT_EQ(leak.Body().find("SECRET"), std::string::npos);
}

TEST_F(PluginRoutes, SessionAndRunPathScopeEveryRoute) {
  const std::string cloud = PercentEncode(Root() + "/tf22/plugins/profile/Cloud-TPU");
  EXPECT_EQ(GetJson("/runs?session_path=" + cloud), json::value(json::array{"Cloud-TPU"}));
  EXPECT_EQ(GetJson("/run_tools?run=Cloud-TPU&session_path=" + cloud), json::value(CloudTpuTools()));
  EXPECT_EQ(Get("/data?run=Cloud-TPU&tag=pod_viewer&session_path=" + cloud).status, 200);
  EXPECT_EQ(GetJson("/runs?run_path=tf22%2Fplugins%2Fprofile"),
            json::value(json::array{"GPU-input-bound", "GPU-compute-bound", "Cloud-TPU"}));
  EXPECT_EQ(Get("/data?run=2020_08_05_13_37_44&tag=trace_viewer&session_path=" + cloud).status, 404);
}

TEST_F(PluginRoutes, SmallRoutesShapes) {
  EXPECT_EQ(GetJson("/config"), json::value(json::object{{"enableTabNameLabel", false},
                                                         {"hideCaptureProfileButton", false},
                                                         {"srcPathPrefix", ""},
                                                         {"captureToken", service_->request_token()}}));
  HttpResponse version = Get("/data/plugin/profile/version");
  EXPECT_EQ(version.status, 200);
  EXPECT_EQ(version.content_type, "text/plain");
  EXPECT_EQ(version.Body(), kTbprofVersion);

  HttpRequest post;
  post.method = "POST";
  post.target = "/capture_profile?service_addr=localhost&duration=1000";
  post.headers["x-tbprof-token"] = service_->request_token();
  HttpResponse capture = service_->Handle(post);
  EXPECT_EQ(capture.status, 500);
  boost::system::error_code ec;
  json::value err = json::parse(capture.Body(), ec);
  ASSERT_FALSE(ec);
  ASSERT_TRUE(err.is_object());
  EXPECT_EQ(err.as_object().size(), 1u);
  EXPECT_EQ(err.at("error"), "Could not interpret \"localhost\" as a host-port pair.");

  HttpResponse modules = Get("/module_list?run=tf22/Cloud-TPU&tag=graph_viewer&graph_type=xla");
  EXPECT_EQ(modules.status, 200);
  EXPECT_EQ(modules.content_type, "text/plain");
  EXPECT_EQ(modules.Body(), "");
  EXPECT_EQ(Get("/module_list?run=no_such_run").Body(), "");
}

TEST_F(PluginRoutes, ModuleListReadsHloProtoFileNames) {
  // Module names come from <module>.hlo_proto.pb (the content is not read).
  const auto dir = logdir_->logdir() / "tf22/plugins/profile/Cloud-TPU";
  WriteFile(dir / "jit_step.hlo_proto.pb", "");
  WriteFile(dir / "jit_init.hlo_proto.pb", "");
  EXPECT_EQ(Get("/module_list?run=tf22/Cloud-TPU").Body(), "jit_init,jit_step");
}

TEST_F(PluginRoutes, ModuleListReadsXSpaceHloModules) {
  // An XSpace's /host:metadata plane: one event metadata per module with an `Hlo Proto` stat.
  tensorflow::profiler::XSpace space;
  auto* meta = space.add_planes();
  meta->set_name("/host:metadata");
  (*meta->mutable_stat_metadata())[1].set_name("Hlo Proto");
  (*meta->mutable_stat_metadata())[1].set_id(1);
  for (int64_t id : {3, 4}) {
    auto& md = (*meta->mutable_event_metadata())[id];
    md.set_id(id);
    md.set_name(id == 3 ? "jit_train_step" : "jit_eval");
    auto* stat = md.add_stats();
    stat->set_metadata_id(1);
    stat->set_bytes_value("");
  }
  const auto dir = logdir_->logdir() / "tf22/plugins/profile/Cloud-TPU";
  WriteFile(dir / "host0.xplane.pb", space.SerializeAsString());
  EXPECT_EQ(Get("/module_list?run=tf22/Cloud-TPU").Body(), "jit_eval,jit_train_step");
}

TEST_F(PluginRoutes, TensorBoardCoreRoutes) {
  json::value listing = GetJson("/data/plugins_listing");
  EXPECT_EQ(listing, json::value(json::object{
                         {"profile", json::object{{"disable_reload", false},
                                                  {"enabled", true},
                                                  {"loading_mechanism", json::object{{"module_path", "/data/plugin/profile/index.js"},
                                                                                     {"type", "IFRAME"}}},
                                                  {"remove_dom", false},
                                                  {"tab_name", "profile"}}}}));
  EXPECT_EQ(GetJson("/data/runs"), json::value(json::array{".", "demo", "nested/deeper/train", "tf22"}));
  EXPECT_EQ(GetJson("/data/logdir"), json::value(json::object{{"logdir", Root()}}));
  json::value env = GetJson("/data/environment");
  EXPECT_EQ(env.at("data_location"), json::value(Root()));
  for (const char* k : {"creation_time", "experiment_description", "experiment_name", "version", "window_title"}) {
    EXPECT_TRUE(env.as_object().contains(k)) << k;
  }
  HttpResponse notes = Get("/data/notifications");
  EXPECT_EQ(notes.status, 302);
  HttpResponse entry = Get("/data/plugin_entry.html?name=profile");
  EXPECT_EQ(entry.status, 200);
  EXPECT_EQ(entry.content_type.rfind("text/html", 0), 0u);
  EXPECT_NE(entry.Body().find("<base href=\"plugin/profile/\" />"), std::string::npos);
  bool hashed_csp = false;
  for (const auto& [name, value] : entry.headers) {
    // SHA-256 of the inline script, base64: computed independently with
    //   printf '%s' 'import("./index.js").then((m) => void m.render());' | openssl dgst -sha256 -binary | base64
    hashed_csp |= name == "Content-Security-Policy" &&
                  value.find("'sha256-PVZp/wXI2V6hq7T2aNiDNM+vJWIOWwNwyhE53i+6lSQ='") != std::string::npos;
  }
  EXPECT_TRUE(hashed_csp);
}

TEST_F(PluginRoutes, StaticUi) {
  // No UI built: "/" explains how to get one; the API still works.
  // TensorBoard's entry page imports index.js; without a UI-provided one it opens index.html.
  HttpResponse entry_js = Get("/data/plugin/profile/index.js");
  EXPECT_EQ(entry_js.status, 200);
  EXPECT_EQ(entry_js.content_type, "application/javascript");
  EXPECT_NE(entry_js.Body().find("export async function render()"), std::string::npos);
  EXPECT_NE(entry_js.Body().find("'index.html'"), std::string::npos);
  HttpResponse missing = Get("/");
  EXPECT_EQ(missing.status, 200);
  EXPECT_NE(missing.Body().find("not built"), std::string::npos);
  WriteFile(web_ / "index.html", "<html>tbprof ui</html>");
  WriteFile(web_ / "assets/app.js", "console.log(1);");
  WriteFile(logdir_->base() / "secret.txt", "SECRET");
  std::filesystem::create_symlink(logdir_->base() / "secret.txt", web_ / "link.txt");
  StartService();  // the UI bundle is read once, at start-up
  EXPECT_EQ(Get("/").Body(), "<html>tbprof ui</html>");
  EXPECT_EQ(Get("/data/plugin/profile/").Body(), "<html>tbprof ui</html>");
  HttpResponse js = Get("/assets/app.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.content_type, "application/javascript");
  EXPECT_EQ(js.Body(), "console.log(1);");
  EXPECT_EQ(Get("/data/plugin/profile/assets/app.js").Body(), "console.log(1);");
  // SPA routes get index.html; missing assets are a plain 404.
  EXPECT_EQ(Get("/data/plugin/profile/overview_page;run=x").Body(), "<html>tbprof ui</html>");
  EXPECT_EQ(Get("/missing.js").status, 404);
  EXPECT_EQ(Get("/..%2Fsecret.txt").status, 400);
  EXPECT_EQ(Get("/assets/../../secret.txt").status, 400);
  HttpResponse link = Get("/link.txt");
  EXPECT_EQ(link.status, 404);
  EXPECT_EQ(link.Body().find("SECRET"), std::string::npos);
}

TEST_F(PluginRoutes, MethodsAndMalformedTargets) {
  EXPECT_EQ(Get("/runs", "DELETE").status, 405);
  EXPECT_EQ(Get("/runs", "HEAD").status, 200);
  EXPECT_EQ(Get("runs").status, 400);
  EXPECT_EQ(Get("/runs%").status, 400);
  EXPECT_EQ(Get("/runs?run=%4").status, 400);
}

TEST_F(PluginRoutes, ConversionWaitsForAWorkerOnlyWhenUncached) {
  const std::string target = "/data?run=demo/jsononly&tag=op_profile";
  // Not cached yet: the network thread's pass defers the work.
  EXPECT_TRUE(Deferred(target));
  HttpResponse computed = Get(target);
  EXPECT_EQ(computed.status, 200);
  EXPECT_EQ(Ready(target).Body(), computed.Body());
  // Rewriting the file changes its identity: the cache is not served stale.
  WriteFile(logdir_->logdir() / "demo/plugins/profile/jsononly/profile_demo.op_profile.json", "{\"changed\":1}");
  EXPECT_EQ(Get(target).Body(), "{\"changed\":1}");
  // Never written: the logdir's files are only read.
  EXPECT_FALSE(std::filesystem::exists(logdir_->logdir() / "demo/plugins/profile/jsononly/.cached_tools.json"));
}

TEST_F(PluginRoutes, WarmFillsTheCacheOnce) {
  const std::string target = "/data?run=tf22/Cloud-TPU&tag=overview_page";
  EXPECT_TRUE(Deferred(target));
  // At least the two runs with a ready overview_page.json are converted.
  EXPECT_GE(service_->Warm(100), 2);
  EXPECT_EQ(Ready(target).status, 200);
  EXPECT_EQ(service_->Warm(100), 0);  // nothing left to compute
}

TEST(PluginGzip, RoundTripAndCorruptInput) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "{\"v\":" + std::to_string(i) + "},";
  auto gz = GzipCompress(text);
  ASSERT_TRUE(gz.ok());
  EXPECT_LT(gz->size(), text.size() / 4);
  EXPECT_EQ(testing_plugin::Gunzip(*gz), text);  // zlib's own inflate agrees
  auto back = Inflate(*gz, "body", 1 << 20);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, text);
  EXPECT_EQ(Inflate(gz->substr(0, gz->size() / 2), "body", 1 << 20).status().code(), ErrorCode::kDataLoss);
  EXPECT_EQ(Inflate("not gzip at all", "body", 1 << 20).status().code(), ErrorCode::kDataLoss);
  EXPECT_EQ(Inflate(*gz, "body", 100).status().code(), ErrorCode::kResourceExhausted);
}

// One parser for URL queries and `tbprof convert --param`.
TEST(PluginQuery, ParseQueryDecodesAndKeepsTheFirstValue) {
  auto q = ParseQuery("run=a%2Fb&tag=trace_viewer%40&x=1+2&run=second&&flag&k%3D=v%26w");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, (ToolParams{{"run", "a/b"}, {"tag", "trace_viewer@"}, {"x", "1 2"}, {"flag", ""}, {"k=", "v&w"}}));
  EXPECT_EQ(ParseQuery("a=%zz").status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(ParseQuery("a=%4").status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(ParseQuery("")->empty());
}

TEST(PluginGzip, AcceptEncodingParsing) {
  EXPECT_TRUE(AcceptsGzip("gzip"));
  EXPECT_TRUE(AcceptsGzip("deflate, gzip;q=1.0, *;q=0.5"));
  EXPECT_TRUE(AcceptsGzip("*"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("identity"));
  EXPECT_FALSE(AcceptsGzip(""));
}

}  // namespace
}  // namespace tbprof
