// FOCUS 1.3: the new cost-and-usage columns, deprecated ProviderName/PublisherName, allocated
// charges, the Contract Commitment dataset, and the checks generated from the requirements models
// (src/billing/focus_rules.h). Fixtures: tests/data/ledger/focus-1.3-*.csv (README there).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "aicost/billing/ingest.h"
#include "aicost/billing/reader.h"
#include "collected.h"
#include "ledger_test_support.h"
#include "temp_dir.h"

namespace aicost::billing {
namespace {

const std::string kData = std::string(AICOST_SOURCE_DIR) + "/tests/data/ledger/";
const std::string kAllocation = kData + "focus-1.3-allocation.csv";
const std::string kCommitments = kData + "focus-1.3-contract-commitment.csv";

using ledger::RowIssue;

struct CollectedAll : Collected {
  std::vector<ledger::ContractCommitment> commitments;
  Sink sink() {
    Sink s = Collected::sink();
    s.commitment = [this](ledger::ContractCommitment&& c) {
      commitments.push_back(std::move(c));
      return core::Status{};
    };
    return s;
  }
};

CollectedAll read(const std::string& path) {
  CollectedAll c;
  auto s = read_file(path, Format::kAuto, c.sink());
  EXPECT_TRUE(s) << (s ? "" : s.error().what());
  if (s) c.summary = *s;
  return c;
}

CollectedAll read_text_all(const std::string& text, Format format = Format::kFocus) {
  CollectedAll c;
  auto s = read_text(text, "t.csv", format, c.sink());
  EXPECT_TRUE(s) << (s ? "" : s.error().what());
  if (s) c.summary = *s;
  return c;
}

std::string tag(const ledger::Charge& c, std::string_view key) {
  for (const auto& t : c.tags)
    if (t.key == key) return t.value;
  return "(none)";
}

const RowIssue* issue(const Collected& c, std::string_view column, std::string_view text) {
  for (const auto& i : c.issues)
    if (i.column == column && i.message.find(text) != std::string::npos) return &i;
  return nullptr;
}

// The FOCUS 1.2 mandatory columns and the two FOCUS 1.3 adds, one row of values.
const std::string kHeader13 =
    "BilledCost,BillingAccountId,BillingAccountName,BillingCurrency,BillingPeriodEnd,"
    "BillingPeriodStart,"
    "ChargeCategory,ChargeClass,ChargeDescription,ChargePeriodEnd,ChargePeriodStart,ContractedCost,"
    "EffectiveCost,InvoiceIssuerName,ListCost,PricingQuantity,PricingUnit,ProviderName,"
    "PublisherName,"
    "ServiceCategory,ServiceName,ServiceProviderName,HostProviderName";
std::string row13(std::string_view provider, std::string_view service_provider,
                  std::string_view host = "ACME") {
  return "1.5,acct,Acct,USD,2026-01-01T00:00:00Z,2025-12-01T00:00:00Z,Usage,,d,2025-12-02T01:00:"
         "00Z,"
         "2025-12-02T00:00:00Z,1.5,1.5,ACME,1.5,1,Hours," +
         std::string(provider) + ",ACME,Compute,VM," + std::string(service_provider) + "," +
         std::string(host);
}

TEST(Focus13, VersionIsDetectedFromTheNewColumns) {
  const auto c = read(kAllocation);
  EXPECT_EQ(c.summary.format, Format::kFocus);
  EXPECT_EQ(c.summary.version, "focus-1.3");
  EXPECT_EQ(c.summary.loaded, 4);
  EXPECT_EQ(c.summary.rejected, 0) << c.errors();
  // One 1.3 column alone is enough; a 1.2 file stays 1.2.
  EXPECT_EQ(read_text_all("ChargePeriodStart,BilledCost,HostProviderName\n2025-12-02,1,ACME\n")
                .summary.version,
            "focus-1.3");
  EXPECT_EQ(
      read_text_all("ChargePeriodStart,BilledCost,InvoiceId\n2025-12-02,1,I-1\n").summary.version,
      "focus-1.2");
}

TEST(Focus13, DeprecatedProviderAndPublisherAreNotesNotErrors) {
  const auto c = read(kAllocation);
  for (const char* column : {"ProviderName", "PublisherName"}) {
    const auto* i = issue(c, column, "is deprecated since FOCUS 1.3");
    ASSERT_NE(i, nullptr) << column;
    EXPECT_EQ(i->severity, RowIssue::Severity::kNote);
    EXPECT_EQ(i->line, 1);
  }
  EXPECT_NE(issue(c, "ProviderName",
                  "(replaced by ServiceProviderName); still read, as the provider where"),
            nullptr);
  EXPECT_NE(issue(c, "PublisherName", "; accepted, not read"), nullptr);
  // A file of 1.2 is not told about 1.3's deprecations.
  const auto old =
      read(testing::samples_dir() + "focus-spec-examples/virtual_currency_pricing_model_a1.csv");
  EXPECT_EQ(issue(old, "ProviderName", "deprecated"), nullptr);
}

TEST(Focus13, ServiceProviderNameWinsOverProviderNameRowByRow) {
  const auto c = read_text_all(kHeader13 + "\n" + row13("OldName", "NewName") + "\n" +
                               row13("OldName", "") + "\n");
  ASSERT_EQ(c.charges.size(), 2u) << c.errors();
  EXPECT_EQ(c.charges[0].provider, "NewName");
  EXPECT_EQ(c.charges[1].provider,
            "OldName");  // ServiceProviderName null: the deprecated column still says
  // Only ProviderName (the 1.3 file leaves ServiceProviderName out): read, and the column is named
  // missing.
  const auto only_old = read_text_all(
      "ChargePeriodStart,BilledCost,ProviderName,HostProviderName\n2025-12-02,1,OldName,ACME\n");
  ASSERT_EQ(only_old.charges.size(), 1u);
  EXPECT_EQ(only_old.charges[0].provider, "OldName");
  EXPECT_NE(issue(only_old, "", "ServiceProviderName"), nullptr);
}

TEST(Focus13, AllocatedChargesStayOnTheirResourceAndTakeTheAllocationAsTags) {
  const auto c = read(kAllocation);
  ASSERT_EQ(c.charges.size(), 4u);
  const auto& pod = c.charges[0];
  EXPECT_EQ(pod.resource_id, "i-0gpu8x");   // the billed host: telemetry joins on it
  EXPECT_EQ(tag(pod, "cluster"), "train");  // Tags
  EXPECT_EQ(tag(pod, "userDefinedTagScheme1/team"),
            "llm");  // AllocatedTags (allocatedtags.md example)
  EXPECT_EQ(tag(pod, "userDefinedTagScheme2/preemptible"), "true");
  EXPECT_EQ(tag(pod, "x_AllocatedResourceId"), "pod/trainer-0");
  EXPECT_EQ(tag(pod, "x_AllocatedResourceName"), "trainer-0");
  // The unallocated rest of the origin charge carries no allocation tags.
  EXPECT_EQ(tag(c.charges[2], "x_AllocatedResourceId"), "(none)");
  // The three parts of the origin charge add up to it exactly: 58.992 + 29.496 + 9.832 = 98.32 USD.
  std::int64_t sum = 0;
  for (int k = 0; k < 3; ++k) sum += c.charges[k].billed;
  EXPECT_EQ(sum, 98'320'000'000);
}

TEST(Focus13, AllocatedTagsThatRepeatATagKeepTheTagsValue) {
  const auto c = read_text_all(
      "ChargePeriodStart,BilledCost,Tags,AllocatedTags,AllocatedResourceId\n"
      "2025-12-02,1,\"{\"\"team\"\":\"\"infra\"\"}\",\"{\"\"Team\"\":\"\"llm\"\",\"\"app\"\":"
      "\"\"x\"\"}\",pod/a\n");
  ASSERT_EQ(c.charges.size(), 1u);
  EXPECT_EQ(tag(c.charges[0], "team"), "infra");
  EXPECT_EQ(tag(c.charges[0], "Team"), "(none)");
  EXPECT_EQ(tag(c.charges[0], "app"), "x");
  EXPECT_NE(issue(c, "AllocatedTags", "the Tags value is kept"), nullptr);
}

TEST(Focus13, AllocatedTagsThatAreNoObjectAreOneFindingAndTheRowKeepsItsTags) {
  const auto c = read_text_all(
      "ChargePeriodStart,BilledCost,Tags,AllocatedTags\n"
      "2025-12-02,1,\"{\"\"team\"\":\"\"infra\"\"}\",\"[\"\"team\"\"]\"\n");
  ASSERT_EQ(c.charges.size(), 1u);
  EXPECT_EQ(tag(c.charges[0], "team"), "infra");
  std::size_t findings = 0;
  for (const auto& i : c.issues) findings += i.column == "AllocatedTags";
  EXPECT_EQ(findings, 1u);
  EXPECT_NE(issue(c, "AllocatedTags",
                  "is not a JSON object (FOCUS rule aicost-1.3:AllocatedTags-Format)"),
            nullptr);
}

// Each check below comes from the generated table: a 1.2-model rule id or a 1.3 addition's.
TEST(Focus13, GeneratedRulesFindBadCellsWithLineAndColumn) {
  std::string bad = row13("ACME", "ACME", "");  // HostProviderName null
  const std::string text = kHeader13 + ",AllocatedTags,ServiceSubcategory\n" +
                           row13("ACME", "ACME") + ",,Virtual Machines\n" + bad +
                           ",\"[1,2]\",Virtual Machines\n" + row13("ACME", "ACME") +
                           ",,Virtual Machinery\n";
  const auto c = read_text_all(text);
  EXPECT_EQ(c.summary.loaded, 3);  // the rules warn; the reader decides what loads
  const auto* host =
      issue(c, "HostProviderName", "HostProviderName is null; FOCUS requires a value");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->line, 3);
  EXPECT_NE(host->message.find("aicost-1.3:HostProviderName-NotNull"), std::string::npos);
  const auto* json = issue(c, "AllocatedTags", "is not a JSON object");
  ASSERT_NE(json, nullptr);
  EXPECT_EQ(json->line, 3);
  const auto* value =
      issue(c, "ServiceSubcategory", "'Virtual Machinery' is not a FOCUS ServiceSubcategory value");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->line, 4);
  // A rule of the FOCUS 1.2 model, by its id there.
  const auto dates =
      read_text_all(kHeader13 + "\n" +
                    "1,a,A,USD,2026-01-01T00:00:00Z,yesterday,Usage,,d,2025-12-02T01:00:00Z,"
                    "2025-12-02T00:00:00Z,1,1,ACME,1,1,Hours,ACME,ACME,Compute,VM,ACME,ACME\n");
  const auto* start = issue(dates, "BillingPeriodStart",
                            "'yesterday' is not a date-time (FOCUS rule BillingPeriodStart-");
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(start->line, 2);
}

TEST(Focus13, MandatoryColumnsFollowTheVersion) {
  // A 1.3 file must have ServiceProviderName and HostProviderName; a 1.2 file need not.
  const auto c = read_text_all("ChargePeriodStart,BilledCost,AllocatedResourceId\n2025-12-02,1,\n");
  const auto* missing = issue(c, "", "mandatory FOCUS columns missing");
  ASSERT_NE(missing, nullptr);
  EXPECT_NE(missing->message.find("HostProviderName"), std::string::npos);
  EXPECT_NE(missing->message.find("ServiceProviderName"), std::string::npos);
  const auto old = read_text_all("ChargePeriodStart,BilledCost,InvoiceId\n2025-12-02,1,I\n");
  const auto* old_missing = issue(old, "", "mandatory FOCUS columns missing");
  ASSERT_NE(old_missing, nullptr);
  EXPECT_EQ(old_missing->message.find("ServiceProviderName"), std::string::npos);
}

TEST(Focus13, FilesBefore13KeepTheirChecks) {
  // The null and type rules run on 1.3 files only: the 1.2 examples load as before, without them.
  for (const char* name :
       {"virtual_currency_pricing_model_a1.csv", "saas_spend_agreements_b2.csv"}) {
    const auto c = read(testing::samples_dir() + "focus-spec-examples/" + name);
    for (const auto& i : c.issues)
      EXPECT_EQ(i.message.find("FOCUS rule"), std::string::npos) << i.message;
  }
  // ... but the allowed values are checked in every version, as they were.
  const auto c =
      read_text_all("ChargePeriodStart,BilledCost,ChargeFrequency\n2025-12-02,1,Usage-based\n");
  EXPECT_NE(issue(c, "ChargeFrequency", "'Usage-based' is not a FOCUS ChargeFrequency value"),
            nullptr);
}

TEST(Focus13, ValidateNamesLineAndColumnOfABad13File) {
  testing::TempDir dir("aicost-focus13");
  const auto path = (dir.path() / "bad-1.3.csv").string();
  std::ofstream(path) << kHeader13 << "\n"
                      << row13("ACME", "ACME") << "\n"
                      << "x" << row13("ACME", "", "ACME").substr(3)
                      << "\n";  // BilledCost "x"; ServiceProviderName null
  auto v = validate_file(path, Format::kAuto);
  ASSERT_TRUE(v) << v.error().what();
  EXPECT_EQ(v->summary.version, "focus-1.3");
  EXPECT_EQ(v->summary.rejected, 1);
  auto at = [&](std::string_view column, RowIssue::Severity s) {
    return std::find_if(v->issues.begin(), v->issues.end(),
                        [&](const RowIssue& i) { return i.column == column && i.severity == s; });
  };
  const auto billed = at("BilledCost", RowIssue::Severity::kError);
  ASSERT_NE(billed, v->issues.end());
  EXPECT_EQ(billed->line, 3);
  const auto spn = at("ServiceProviderName", RowIssue::Severity::kWarning);
  ASSERT_NE(spn, v->issues.end());
  EXPECT_EQ(spn->line, 3);
}

TEST(Focus13, ContractCommitmentDatasetIsReadExactly) {
  const auto c = read(kCommitments);
  EXPECT_EQ(c.summary.format, Format::kFocusCommitment);
  EXPECT_EQ(c.summary.version, "focus-1.3-contract-commitment");
  EXPECT_EQ(c.summary.rejected, 0) << c.errors();
  EXPECT_TRUE(c.charges.empty());
  ASSERT_EQ(c.commitments.size(), 2u);
  const auto& spend = c.commitments[0];
  EXPECT_EQ(spend.line, 2);
  EXPECT_EQ(spend.contract_id, "C-100");
  EXPECT_EQ(spend.commitment_id, "12346");
  EXPECT_EQ(spend.category, "Spend");
  EXPECT_EQ(spend.currency, "USD");
  ASSERT_TRUE(spend.cost);
  EXPECT_EQ(*spend.cost, 500'000'000'000'000);  // 500,000.00 USD in nano-units
  EXPECT_FALSE(spend.quantity);
  EXPECT_EQ(spend.commitment_start, 1764547200);  // 2025-12-01T00:00:00Z
  EXPECT_EQ(spend.commitment_end, 1796083200);    // 2026-12-01T00:00:00Z
  const auto& usage = c.commitments[1];
  EXPECT_FALSE(usage.cost);
  ASSERT_TRUE(usage.quantity);
  EXPECT_EQ(*usage.quantity, 8760.0);
  EXPECT_EQ(usage.unit, "compute_hours");
  // Every cell conforms: nothing to say but nothing.
  EXPECT_TRUE(c.issues.empty()) << c.issues.front().message;
}

TEST(Focus13, ContractCommitmentRowsWithoutKeysAreRejectedWithLineAndColumn) {
  const std::string header =
      "BillingCurrency,ContractCommitmentCategory,ContractCommitmentCost,"
      "ContractCommitmentDescription,"
      "ContractCommitmentId,ContractCommitmentPeriodEnd,ContractCommitmentPeriodStart,"
      "ContractCommitmentQuantity,"
      "ContractCommitmentType,ContractCommitmentUnit,ContractId,ContractPeriodEnd,"
      "ContractPeriodStart\n";
  const std::string ok_tail =
      ",2026-12-01T00:00:00Z,2025-12-01T00:00:00Z,,T,,C,2027-01-01T00:00:00Z,2025-12-01T00:00:"
      "00Z\n";
  const auto c =
      read_text_all(header + "USD,Spend,10,d,id-1" + ok_tail +  // line 2: loads
                        "USD,Spend,10,d," + ok_tail +           // line 3: no id
                        "USD,Spend,,d,id-3" + ok_tail +         // line 4: neither cost nor quantity
                        "USD,Spent,10,d,id-4" + ok_tail,        // line 5: loads, warned
                    Format::kAuto);
  EXPECT_EQ(c.summary.format, Format::kFocusCommitment);
  EXPECT_EQ(c.summary.loaded, 2);
  EXPECT_EQ(c.summary.rejected, 2);
  const auto* id = issue(c, "ContractCommitmentId", "is null");
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(id->line, 3);
  EXPECT_EQ(id->severity, RowIssue::Severity::kError);
  const auto* neither = issue(c, "ContractCommitmentCost", "both null");
  ASSERT_NE(neither, nullptr);
  EXPECT_EQ(neither->line, 4);
  const auto* category = issue(c, "ContractCommitmentCategory",
                               "'Spent' is not a FOCUS ContractCommitmentCategory value");
  ASSERT_NE(category, nullptr);
  EXPECT_EQ(category->line, 5);
}

}  // namespace
}  // namespace aicost::billing
