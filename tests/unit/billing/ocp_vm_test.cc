// The OpenShift Virtualization report (src/billing/ocp_vm.cc): a KubeVirt VM's hour becomes an
// unpriced VM row of VM-hours (vm_uptime_total_seconds / 3600), priced by the rate card's `vm:`
// rate as koku's VM cost model charges it; no CPU, memory or disk rows (the VM's virt-launcher pod
// and its volume are in the pod and storage reports).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "aicost/billing/reader.h"
#include "aicost/config/catalog_loader.h"
#include "aicost/config/rate_card.h"
#include "aicost/ledger/rate_card.h"
#include "collected.h"

namespace aicost::billing {
namespace {

const std::string kReport =
    std::string(AICOST_SOURCE_DIR) + "/tests/data/ocp/operator/cm-openshift-vm-usage-202011.csv";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string* tag_of(const ledger::Charge& c, const std::string& key) {
  for (const auto& t : c.tags)
    if (t.key == key) return &t.value;
  return nullptr;
}

// The operator's expected VM report: rhel-9-anaconda-98 up 3,600 s of 18:00-18:59:59, 1 core and
// 500 bytes requested: 1 VM-hour.
TEST(OcpVm, TheOperatorsVmReportIsVmHours) {
  const std::string text = read(kReport);
  ASSERT_FALSE(text.empty()) << kReport;
  EXPECT_EQ(detect_format(text.substr(0, text.find('\n'))), Format::kOcp);
  auto got = collect(text, Format::kAuto);
  ASSERT_EQ(got.charges.size(), 1u) << got.errors();
  const auto& c = got.charges[0];
  EXPECT_EQ(c.pricing_unit, ledger::kVmHours);
  EXPECT_DOUBLE_EQ(*c.pricing_quantity, 1.0);
  EXPECT_EQ(c.gpu_hours, 0);
  EXPECT_EQ(c.period_end - c.period_start, 3600);
  EXPECT_EQ(c.resource_type, "VirtualMachine");
  EXPECT_EQ(c.resource_id, "rhel-9-anaconda-98");
  EXPECT_EQ(c.sku_id, "u1.medium");
  EXPECT_EQ(c.sub_account_id, "default");
  EXPECT_TRUE(ledger::needs_price(c));
  ASSERT_TRUE(tag_of(c, "vm_cpu_request_cores") && tag_of(c, "node") &&
              tag_of(c, "persistentvolumeclaim"));
  EXPECT_EQ(*tag_of(c, "vm_cpu_request_cores"), "1");
  EXPECT_EQ(*tag_of(c, "persistentvolumeclaim"), "rhel-9-anaconda-98-volume");

  auto catalog = config::load_builtin_catalog();
  ASSERT_TRUE(catalog);
  auto card = config::parse_rate_card("vm: 0.007USD/VM-hour\n", "rates.yaml", *catalog);
  ASSERT_TRUE(card) << card.error().what();
  ledger::Charge priced = c;
  ASSERT_TRUE(ledger::price_usage(priced, *card).value());
  EXPECT_EQ(priced.billed, 7'000'000);  // 1 VM-hour x 0.007 USD
  auto no_vm = config::parse_rate_card("cpu: 0.031611USD/core-hour\n", "rates.yaml", *catalog);
  ASSERT_TRUE(no_vm);
  ledger::Unpriced missing;
  ledger::Charge unpriced = c;
  ASSERT_FALSE(ledger::price_usage(unpriced, *no_vm).value());
  missing.add(unpriced, *no_vm);
  EXPECT_NE(ledger::unpriced_message(missing, *no_vm).find("`vm: <price>USD/VM-hour`"),
            std::string::npos)
      << ledger::unpriced_message(missing, *no_vm);
}

TEST(OcpVm, UptimeBeyondTheHourIsAnErrorAndNoUptimeNoRow) {
  const std::string text = read(kReport);
  const std::string header = text.substr(0, text.find('\n') + 1);
  std::string row = text.substr(text.find('\n') + 1);
  const std::string up = ",3600.000000,";
  ASSERT_NE(row.find(up), std::string::npos);
  std::string over = row, idle = row;
  over.replace(over.find(up), up.size(), ",7300,");
  idle.replace(idle.find(up), up.size(), ",0,");
  auto got = collect(header + over + idle, Format::kOcp);
  EXPECT_TRUE(got.charges.empty());
  ASSERT_EQ(got.issues.size(), 1u);
  EXPECT_EQ(got.issues[0].line, 2);
  EXPECT_EQ(got.issues[0].column, "vm_uptime_total_seconds");
}

}  // namespace
}  // namespace aicost::billing
