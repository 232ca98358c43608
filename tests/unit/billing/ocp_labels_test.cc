// OpenShift node and namespace labels reports (src/billing/ocp_labels.cc): they load no rows; their
// labels tag the pod, volume and GPU rows of the same delivery, by name and day, pod (or volume)
// labels winning over the namespace's, the namespace's over the node's (koku's map_concat). And
// the ingest of a whole upload: a folder or koku's manifest.json, labels read first, priced by a
// rate card with a rate per storage class and per GPU model.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "aicost/billing/ingest.h"
#include "aicost/config/catalog_loader.h"
#include "aicost/config/rate_card.h"
#include "aicost/ledger/report.h"
#include "aicost/store/open.h"
#include "collected.h"
#include "ledger_test_support.h"
#include "temp_dir.h"

namespace aicost::billing {
namespace {

namespace fs = std::filesystem;

const std::string kData = std::string(AICOST_SOURCE_DIR) + "/tests/data/ocp/";

TEST(OcpLabels, ALabelsReportIsDetectedAndLoadsNoRowsAndNoErrors) {
  for (const char* file : {"node_labels.csv", "namespace_labels.csv"}) {
    Collected got;
    auto r = read_file(kData + file, Format::kAuto, got.sink());
    ASSERT_TRUE(r) << r.error().what();
    EXPECT_EQ(r->format, Format::kOcp) << file;
    EXPECT_EQ(r->loaded, 0) << file;
    EXPECT_EQ(r->rejected, 0) << got.errors();
    EXPECT_TRUE(got.charges.empty());
  }
}

// koku's pods (pod_usage.csv, node alpha, 2019-02-01..05) and the same cluster's node labels
// (node_labels.csv: on each of those days node alpha has label_key1..label_key4). Half the pod rows
// carry only key3 and key4 themselves (tests/data/ocp/expected.py: 240 of 480); read after the
// node labels in one delivery, every CPU and memory row has key1 = label_value1.
TEST(OcpLabels, NodeLabelsOfTheSameDeliveryTagItsPodsRows) {
  Collected alone;
  ASSERT_TRUE(read_file(kData + "pod_usage.csv", Format::kAuto, alone.sink()));
  std::size_t without = 0;
  for (const auto& c : alone.charges) without += tag_of(c, "key1") ? 0 : 1;
  EXPECT_EQ(without, 2u * 240);

  Collected together;
  Sink sink = together.sink();
  sink.context = make_delivery_context();
  ASSERT_TRUE(read_file(kData + "node_labels.csv", Format::kAuto, sink));
  ASSERT_TRUE(read_file(kData + "pod_usage.csv", Format::kAuto, sink));
  ASSERT_EQ(together.charges.size(), 960u);
  for (const auto& c : together.charges) {
    ASSERT_TRUE(tag_of(c, "key1") && tag_of(c, "key4")) << c.line;
    EXPECT_EQ(*tag_of(c, "key1"), "label_value1");
  }
}

// A pod labelled team=a, its namespace team=b and env=prod, its node env=dev and zone=z: team=a
// (the pod's), env=prod (the namespace's over the node's), zone=z. The report's own namespace, pod
// and node tags are never replaced. Labels of another day do not apply.
TEST(OcpLabels, PodLabelsWinOverTheNamespacesAndTheNamespacesOverTheNodes) {
  const std::string period = "2019-02-01 00:00:00 +0000 UTC,2019-03-01 00:00:00 +0000 UTC,";
  const std::string namespaces =
      "report_period_start,report_period_end,interval_start,interval_end,namespace,namespace_"
      "labels\n" +
      period +
      "2019-02-03 05:00:00 +0000 UTC,2019-02-03 05:59:59 +0000 "
      "UTC,shop,label_team:b|label_env:prod|label_node:x\n" +
      period +
      "2019-02-04 05:00:00 +0000 UTC,2019-02-04 05:59:59 +0000 UTC,shop,label_cost_center:42\n";
  const std::string nodes =
      "report_period_start,report_period_end,node,interval_start,interval_end,node_labels\n" +
      period +
      "node-a,2019-02-03 00:00:00 +0000 UTC,2019-02-03 01:00:00 +0000 "
      "UTC,label_env:dev|label_zone:z\n";
  const std::string pods =
      "report_period_start,report_period_end,pod,namespace,node,interval_start,interval_end,"
      "pod_usage_cpu_core_seconds,pod_request_cpu_core_seconds,pod_usage_memory_byte_seconds,"
      "pod_request_memory_byte_seconds,pod_labels\n" +
      period +
      "web-1,shop,node-a,2019-02-03 05:00:00 +0000 UTC,2019-02-03 06:00:00 +0000 "
      "UTC,3600,0,0,0,label_team:a\n";
  Collected got;
  Sink sink = got.sink();
  sink.context = make_delivery_context();
  ASSERT_TRUE(read_text(namespaces, "ns.csv", Format::kAuto, sink));
  ASSERT_TRUE(read_text(nodes, "nodes.csv", Format::kAuto, sink));
  ASSERT_TRUE(read_text(pods, "pods.csv", Format::kAuto, sink));
  ASSERT_EQ(got.charges.size(), 2u) << got.errors();
  for (const auto& c : got.charges) {
    ASSERT_TRUE(tag_of(c, "team") && tag_of(c, "env") && tag_of(c, "zone") && tag_of(c, "node"));
    EXPECT_EQ(*tag_of(c, "team"), "a");
    EXPECT_EQ(*tag_of(c, "env"), "prod");
    EXPECT_EQ(*tag_of(c, "zone"), "z");
    EXPECT_EQ(*tag_of(c, "node"), "node-a");
    EXPECT_EQ(tag_of(c, "cost_center"), nullptr);  // the namespace's label of 2019-02-04
  }
}

ledger::RateCard card(const std::string& file) {
  auto catalog = config::load_builtin_catalog();
  EXPECT_TRUE(catalog) << catalog.error().what();
  auto c = config::load_rate_card(kData + file, *catalog);
  EXPECT_TRUE(c) << c.error().what();
  return *c;
}

// The value of `key` per row of the ledger (kUntagged for rows without it).
std::map<std::string, std::int64_t> rows_by_tag(ledger::Store& store, const std::string& key) {
  ledger::ReportRequest req;
  req.by = {{ledger::Dimension::kTag, key}};
  auto r = ledger::run_report(store, req);
  EXPECT_TRUE(r) << r.error().what();
  std::map<std::string, std::int64_t> out;
  for (const auto& line : r->lines) out[line.values[0]] += line.sums.rows;
  return out;
}

// A folder whose pod report sorts before its node labels report: the ingest reads the labels
// first, so every pod row is tagged.
TEST(OcpLabels, AFoldersLabelsReportsAreReadFirst) {
  aicost::testing::TempDir dir("aicost-ocp");
  fs::create_directories(dir.path() / "upload");
  fs::copy_file(kData + "pod_usage.csv", dir.path() / "upload" / "a_pods.csv");
  fs::copy_file(kData + "node_labels.csv", dir.path() / "upload" / "b_node_labels.csv");
  auto store = store::open_store(dir.file("l.db"), {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(store) << store.error().what();
  const auto rates = card("rates.yaml");
  IngestOptions options;
  options.rate_card = &rates;
  auto r = ingest_file(**store, (dir.path() / "upload").string(), options);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->record.rows, 960);
  EXPECT_EQ(r->summary.version, "ocp-pod");  // the first part with rows
  const auto by = rows_by_tag(**store, "key1");
  EXPECT_EQ(by.count(ledger::kUntagged), 0u);
  EXPECT_EQ(by.at("label_value1"), 960);
}

TEST(OcpLabels, LabelsAloneAreRefusedWithWhatToIngestInstead) {
  aicost::testing::TempDir dir("aicost-ocp");
  auto store = store::open_store(dir.file("l.db"), {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(store) << store.error().what();
  auto r = ingest_file(**store, kData + "node_labels.csv", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().what().find("holds OpenShift node or namespace labels and no usage"),
            std::string::npos)
      << r.error().what();
  auto sources = (*store)->sources();
  ASSERT_TRUE(sources);
  EXPECT_TRUE(sources->empty());
}

// The operator's expected reports of one hour (tests/data/ocp/operator/) as one upload, priced by
// operator_rates.yaml: 5 pods (10 rows), 2 volumes (gp3-csi, gp2), 6 GPU rows and a VM-hour,
// 0.122297733 USD (tests/data/ocp/expected.py, each row rounded to the nano-unit). Node labels tag
// the pods and the volume on a labelled node.
TEST(OcpLabels, TheOperatorsUploadIngestsAsOneWithRatesPerStorageClassAndGpuModel) {
  aicost::testing::TempDir dir("aicost-ocp");
  auto store = store::open_store(dir.file("l.db"), {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(store) << store.error().what();
  const auto rates = card("operator_rates.yaml");
  IngestOptions options;
  options.rate_card = &rates;
  auto r = ingest_file(**store, kData + "operator", options);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->parts, 6u);
  EXPECT_EQ(r->record.rows, 19);
  EXPECT_EQ(r->record.rejected, 0);
  core::WideNanos billed = 0;
  for (const auto& t : r->record.totals) {
    EXPECT_EQ(t.currency, "USD");
    billed += t.billed;
  }
  EXPECT_NEAR(static_cast<double>(billed), 122297733.0, 19.0 / 2 + 1);
  const auto types = rows_by_tag(**store, "node_kubernetes_io_instance_type");
  // etcd-operator and openshift-controller-manager-operator on ip-10-0-184-152 (m5.xlarge),
  // hive-server-0 on ip-10-0-150-20 (m5.xlarge) and on ip-10-0-189-61 (m5.2xlarge): 2 rows each;
  // the hive-metastore volume on ip-10-0-150-20; the VM rhel-9-anaconda-98 on ip-10-0-184-152.
  EXPECT_EQ(types.at("m5.xlarge"), 2 * 3 + 1 + 1);
  EXPECT_EQ(types.at("m5.2xlarge"), 2);
}

TEST(OcpLabels, AStorageClassTheCardDoesNotPriceIsNamed) {
  aicost::testing::TempDir dir("aicost-ocp");
  auto store = store::open_store(dir.file("l.db"), {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(store) << store.error().what();
  auto catalog = config::load_builtin_catalog();
  ASSERT_TRUE(catalog);
  auto rates = config::parse_rate_card("storage: {gp3-csi: 0.085899346USD/GiB-month}\n",
                                       "rates.yaml", *catalog);
  ASSERT_TRUE(rates) << rates.error().what();
  IngestOptions options;
  options.rate_card = &*rates;
  auto r = ingest_file(**store, kData + "operator/cm-openshift-storage-usage-202011.csv", options);
  ASSERT_FALSE(r);
  EXPECT_NE(
      r.error().what().find(
          "no rate for storage class gp2 in rates.yaml: add it as `gp2: <price>USD/GiB-month` "
          "under `storage:`"),
      std::string::npos)
      << r.error().what();
}

// koku's payload.tar.gz as the operator uploads it, unpacked: its manifest.json (files, cluster_id)
// and the two reports it lists under their member names. The sums of both files
// (tests/data/ocp/expected.py): 77.007116247 + 0.375095950 USD.
TEST(OcpLabels, KokusManifestListsTheUploadsReports) {
  aicost::testing::TempDir dir("aicost-ocp");
  const fs::path up = dir.path() / "payload";
  fs::create_directories(up);
  fs::copy_file(kData + "payload_manifest.json", up / "manifest.json");
  fs::copy_file(kData + "pod_usage.csv",
                up / "e6b3701e-1e91-433b-b238-a31e49937558_February-2019-my-ocp-cluster-1.csv");
  fs::copy_file(kData + "storage_usage.csv",
                up / "e6b3701e-1e91-433b-b238-a31e49937558_storage.csv");
  auto store = store::open_store(dir.file("l.db"), {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(store) << store.error().what();
  const auto rates = card("rates.yaml");
  IngestOptions options;
  options.rate_card = &rates;
  auto r = ingest_file(**store, up.string(), options);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->parts, 2u);
  EXPECT_EQ(r->record.rows, 960 + 381);
  EXPECT_TRUE(r->restated.empty());
  core::WideNanos billed = 0;
  for (const auto& t : r->record.totals) billed += t.billed;
  EXPECT_NEAR(static_cast<double>(billed), 77382212197.0, 1341.0 / 2 + 1);
}

// The same upload as koku keeps it, payload.tar.gz itself (a gzip-compressed tar of the manifest
// and the two reports, tests/data/ocp/README.md): it loads as the folder it unpacks to, with the
// same rows and sums, and is the same delivery (already loaded) as that folder. Nothing of the
// unpacked copy stays behind ($TMPDIR is the test's folder, empty after each ingest).
TEST(OcpLabels, KokusTarballLoadsAsTheUploadItHolds) {
  aicost::testing::TempDir dir("aicost-ocp");
  aicost::testing::TempDir tmp("aicost-ocp-tmp");
  const char* was = std::getenv("TMPDIR");
  const std::string saved = was ? was : "";
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  auto store = store::open_store(dir.file("l.db"), {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(store) << store.error().what();
  const auto rates = card("rates.yaml");
  IngestOptions options;
  options.rate_card = &rates;
  auto r = ingest_file(**store, kData + "payload.tar.gz", options);
  const bool left_behind = !fs::is_empty(tmp.path());
  if (was)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_FALSE(left_behind);
  EXPECT_EQ(r->parts, 2u);
  EXPECT_EQ(r->record.rows, 960 + 381);
  EXPECT_EQ(r->record.file.path, fs::weakly_canonical(kData + "payload.tar.gz").string());
  core::WideNanos billed = 0;
  for (const auto& t : r->record.totals) billed += t.billed;
  EXPECT_NEAR(static_cast<double>(billed), 77382212197.0, 1341.0 / 2 + 1);

  const fs::path up = dir.path() / "payload";
  fs::create_directories(up);
  fs::copy_file(kData + "payload_manifest.json", up / "manifest.json");
  fs::copy_file(kData + "pod_usage.csv",
                up / "e6b3701e-1e91-433b-b238-a31e49937558_February-2019-my-ocp-cluster-1.csv");
  fs::copy_file(kData + "storage_usage.csv",
                up / "e6b3701e-1e91-433b-b238-a31e49937558_storage.csv");
  auto again = ingest_file(**store, up.string(), options);
  ASSERT_TRUE(again) << again.error().what();
  EXPECT_EQ(again->outcome, IngestResult::Outcome::kAlreadyLoaded);
}

// A tar member whose name would leave the folder it unpacks to is refused, naming it.
TEST(OcpLabels, ATarMemberOutsideItsFolderIsRefused) {
  aicost::testing::TempDir dir("aicost-ocp");
  // A ustar header by hand: name "../evil.csv", mode, sizes in octal, checksum over the header
  // with its own field as spaces (POSIX.1-1988 ustar).
  std::string header(512, '\0');
  auto put = [&](std::size_t at, const std::string& v) { header.replace(at, v.size(), v); };
  const std::string body = "a,b\n1,2\n";
  put(0, "../evil.csv");
  put(100, "0000644");
  put(108, "0000000");
  put(116, "0000000");
  char size[16];
  std::snprintf(size, sizeof size, "%011o", static_cast<unsigned>(body.size()));
  put(124, size);
  put(136, "00000000000");
  put(156, "0");
  put(257, "ustar");
  put(263, "00");
  put(148, "        ");
  unsigned sum = 0;
  for (unsigned char ch : header) sum += ch;
  char check[16];
  std::snprintf(check, sizeof check, "%06o", sum);
  put(148, std::string(check) + std::string(1, '\0') + " ");
  std::string tar = header + body + std::string(512 - body.size(), '\0') + std::string(1024, '\0');
  const auto path = dir.write("evil.tar", tar);
  auto store = store::open_store(dir.file("l.db"), {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(store) << store.error().what();
  auto r = ingest_file(**store, path, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().what().find("the archive member '../evil.csv' would land outside the folder"),
            std::string::npos)
      << r.error().what();
  EXPECT_FALSE(fs::exists(dir.path().parent_path() / "evil.csv"));
}

}  // namespace
}  // namespace aicost::billing
