// Rate cards (config/rate_card.h): exact rates per GPU type with their currency, the owned-GPU TCO
// of a catalogued server, and errors at file:line:column.
#include "aicost/config/rate_card.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "aicost/config/catalog_loader.h"
#include "aicost/ledger/rate_card.h"

namespace aicost::config {
namespace {

const catalog::Catalog& builtin() {
  static const catalog::Catalog cat = [] {
    auto c = load_builtin_catalog();
    EXPECT_TRUE(c) << c.error().what();
    return c ? std::move(*c) : catalog::Catalog{};
  }();
  return cat;
}

std::string error_of(const std::string& yaml) {
  auto c = parse_rate_card(yaml, "rates.yaml", builtin());
  return c ? std::string() : c.error().what();
}

TEST(RateCard, RatesAreExactAndKeyedInLowerCase) {
  auto c =
      parse_rate_card("gpus:\n  H100: 2.10USD/h\n  a100: 0.000000001USD/h\nuntyped: 1.5USD/h\n",
                      "rates.yaml", builtin());
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_EQ(c->currency, "USD");
  ASSERT_EQ(c->gpus.count("h100"), 1u);
  EXPECT_EQ(c->gpus.at("h100").nanos_per_unit, 2'100'000'000);
  EXPECT_EQ(c->gpus.at("h100").where, "rates.yaml:2:9");
  EXPECT_EQ(c->gpus.at("a100").nanos_per_unit, 1);
  ASSERT_TRUE(c->untyped);
  EXPECT_EQ(c->untyped->nanos_per_unit, 1'500'000'000);
}

// With every owned input given and no running costs, the TCO is the capital over the busy
// GPU-hours: 240000 USD / (10000 h x 8 GPUs x 100 %) = 3 USD per GPU-hour (tco.md "How to
// combine").
TEST(RateCard, OwnedTcoOfACataloguedServer) {
  auto c = parse_rate_card(
      "gpus:\n  h100:\n    owned: {server: hgx-h100, server_price: 240000USD, fabric: 0USD, "
      "amortisation: 10000h,\n"
      "            residual: 0%, utilisation: 100%, support: 0%/y, electricity: 0USD/kWh, "
      "colocation: 0USD/kW-month}\n",
      "rates.yaml", builtin());
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_EQ(c->gpus.at("h100").nanos_per_unit, 3'000'000'000);
  EXPECT_EQ(c->gpus.at("h100").basis, "owned TCO (server hgx-h100, 100 % busy)");
  // Halving the busy share doubles the capital per busy hour (idle power costs nothing at 0
  // USD/kWh).
  auto half = parse_rate_card(
      "gpus:\n  h100:\n    owned: {server: hgx-h100, server_price: 240000USD, fabric: 0USD, "
      "amortisation: 10000h,\n"
      "            residual: 0%, utilisation: 50%, support: 0%/y, electricity: 0USD/kWh, "
      "colocation: 0USD/kW-month}\n",
      "rates.yaml", builtin());
  ASSERT_TRUE(half) << half.error().what();
  EXPECT_EQ(half->gpus.at("h100").nanos_per_unit, 6'000'000'000);
}

TEST(RateCard, MistakesNameTheirPlace) {
  EXPECT_NE(error_of("gpus:\n  h100: 2.10\n")
                .find("rates.yaml:2:9: the rate of h100 must be a price per GPU-hour"),
            std::string::npos);
  EXPECT_NE(error_of("gpus:\n  h100: 2.10USD/h\n  a100: 1EUR/h\n")
                .find("rates.yaml:3:9: this rate is in EUR but the card's first is in USD"),
            std::string::npos);
  EXPECT_NE(error_of("gpus:\n  h100: 2USD/h\n  H100: 3USD/h\n")
                .find("rates.yaml:3:3: GPU type 'h100' is priced twice"),
            std::string::npos);
  EXPECT_NE(error_of("gpu:\n  h100: 2USD/h\n").find("a rate card needs 'gpus:'"),
            std::string::npos);
  EXPECT_NE(error_of("gpus: {h100: 2USD/h}\nuntyped: 1USD/h\nuntype: 2\n")
                .find("unknown key 'untype'. Did you mean 'untyped'?"),
            std::string::npos);
  EXPECT_NE(error_of("gpus:\n  h100: {owned: {server: dgx-b200}}\n").find("dgx-b200"),
            std::string::npos);
}

TEST(RateCard, PricesAUsageRow) {
  auto c = parse_rate_card("gpus:\n  h100: 2.10USD/h\n", "rates.yaml", builtin());
  ASSERT_TRUE(c) << c.error().what();
  ledger::Charge row;
  row.sku_id = "H100";
  row.gpu_hours = 1.0 / 3.0;  // 20 GPU-minutes: 0.7 USD, rounded to the nano-unit
  ASSERT_TRUE(ledger::needs_price(row));
  ASSERT_TRUE(ledger::price_usage(row, *c).value());
  EXPECT_EQ(row.effective, 700'000'000);
  EXPECT_EQ(row.currency, "USD");
  EXPECT_FALSE(ledger::needs_price(row));
  ledger::Charge untyped;
  untyped.gpu_hours = 1;
  EXPECT_FALSE(ledger::price_usage(untyped, *c).value());  // no `untyped:` rate
  EXPECT_EQ(untyped.currency, "");
  EXPECT_EQ(ledger::unpriced_message({{"", "a100"}, {}, {}}, *c),
            "no rate for GPU types (untyped), a100 in rates.yaml: add them as `a100: <price>USD/h` "
            "under `gpus:` "
            "(and `untyped:` for GPUs without a type); nothing was loaded, since a row without its "
            "price would count "
            "as free");
}

// A quantity whose cost the ledger cannot hold (past 2^63 nano-units, 9.2e9 USD) is refused with
// what it is, never rounded by llroundl into some other amount: 1e10 GPU-hours at 2.10 USD is
// 2.1e10 USD; 4e9 GPU-hours (8.4e9 USD, 8.4e18 nano-units) still fits. Nothing of the row changes.
TEST(RateCard, AnAbsurdQuantityIsRefusedNotOverflowed) {
  auto c = parse_rate_card("gpus:\n  h100: 2.10USD/h\n", "rates.yaml", builtin());
  ASSERT_TRUE(c) << c.error().what();
  ledger::Charge row;
  row.sku_id = "h100";
  row.gpu_hours = 1e10;
  auto priced = ledger::price_usage(row, *c);
  ASSERT_FALSE(priced);
  EXPECT_EQ(priced.error().code, core::ErrorCode::kInvalidInput);
  for (const char* part : {"1e+10 GPU-hours at 2.1 USD per GPU-hour (rates.yaml:2",
                           "cost 2.1e+10 USD, beyond what a ledger row holds"})
    EXPECT_NE(priced.error().message.find(part), std::string::npos) << priced.error().message;
  EXPECT_EQ(row.billed, 0);
  EXPECT_EQ(row.currency, "");
  for (double bad : {-1e10, std::nan(""), std::numeric_limits<double>::infinity()}) {
    row.gpu_hours = bad;
    EXPECT_FALSE(ledger::price_usage(row, *c)) << bad;
  }
  row.gpu_hours = 4e9;
  auto fits = ledger::price_usage(row, *c);
  ASSERT_TRUE(fits) << fits.error().what();
  EXPECT_EQ(row.billed, 8'400'000'000'000'000'000);
}

// CPU, memory and storage (OpenShift usage): each rate per its own unit, a card without GPUs.
TEST(RateCard, CpuMemoryAndStorageRatesCarryTheirUnit) {
  auto c = parse_rate_card(
      "cpu: 0.031611USD/core-hour\nmemory: 0.004237USD/GiB-hour\nstorage: 0.04USD/GiB-month\n",
      "rates.yaml", builtin());
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_TRUE(c->gpus.empty());
  ASSERT_TRUE(c->cpu && c->memory && c->storage);
  EXPECT_EQ(c->cpu->nanos_per_unit, 31'611'000);
  EXPECT_EQ(c->memory->nanos_per_unit, 4'237'000);
  EXPECT_EQ(c->storage->nanos_per_unit, 40'000'000);
  EXPECT_EQ(c->storage->where, "rates.yaml:3:10");
  // 2.5 core-hours x 0.031611 = 0.0790275 USD; 3 GiB-months x 0.04 = 0.12 USD.
  ledger::Charge cpu;
  cpu.pricing_unit = ledger::kCoreHours;
  cpu.pricing_quantity = 2.5;
  ASSERT_TRUE(ledger::needs_price(cpu));
  ASSERT_TRUE(ledger::price_usage(cpu, *c).value());
  EXPECT_EQ(cpu.billed, 79'027'500);
  EXPECT_EQ(cpu.currency, "USD");
  ledger::Charge disk;
  disk.pricing_unit = ledger::kGibMonths;
  disk.pricing_quantity = 3;
  ASSERT_TRUE(ledger::price_usage(disk, *c).value());
  EXPECT_EQ(disk.effective, 120'000'000);
}

// gp3 at 0.08 and gp2 at 0.10 USD per GiB-month: 2 GiB-months of a gp3-csi volume cost 0.16 USD,
// of a GP2 volume (classes are read in lower case) 0.20 USD; a class the card does not list has no
// rate, and is named.
TEST(RateCard, StorageMayBePricedPerStorageClass) {
  auto c = parse_rate_card("storage:\n  gp3-csi: 0.08USD/GiB-month\n  GP2: 0.10USD/GiB-month\n",
                           "rates.yaml", builtin());
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_FALSE(c->storage);
  ASSERT_EQ(c->storage_classes.size(), 2u);
  EXPECT_EQ(c->storage_classes.at("gp2").where, "rates.yaml:3:8");
  ledger::Charge disk;
  disk.pricing_unit = ledger::kGibMonths;
  disk.pricing_quantity = 2;
  disk.sku_id = "gp3-csi";
  ASSERT_TRUE(ledger::price_usage(disk, *c).value());
  EXPECT_EQ(disk.billed, 160'000'000);
  disk.sku_id = "gp2";
  ASSERT_TRUE(ledger::price_usage(disk, *c).value());
  EXPECT_EQ(disk.billed, 200'000'000);
  ledger::Charge other;
  other.pricing_unit = ledger::kGibMonths;
  other.pricing_quantity = 1;
  other.sku_id = "standard";
  EXPECT_FALSE(ledger::price_usage(other, *c).value());
  ledger::Unpriced missing;
  missing.add(other, *c);
  other.sku_id = "";
  missing.add(other, *c);
  EXPECT_EQ(
      ledger::unpriced_message(missing, *c),
      "no rate for storage classes (no class), standard in rates.yaml: add them as `standard: "
      "<price>USD/GiB-month` under `storage:`; nothing was loaded, since a row without its price "
      "would count as "
      "free");
  EXPECT_NE(error_of("storage:\n  gp2: 0.1USD/GiB-month\n  Gp2: 0.2USD/GiB-month\n")
                .find("rates.yaml:3:3: storage class 'gp2' is priced twice"),
            std::string::npos);
  EXPECT_NE(error_of("storage:\n  gp2: 0.1USD/GB-month\n")
                .find("rates.yaml:2:8: the rate of storage class gp2 must be a "
                      "price per GiB-month of storage"),
            std::string::npos)
      << error_of("storage:\n  gp2: 0.1USD/GB-month\n");
  EXPECT_NE(error_of("storage: {}\n").find("one per storage class"), std::string::npos)
      << error_of("storage: {}\n");
}

TEST(RateCard, AResourceRateWithoutItsUnitOrACardWithoutRatesIsRefused) {
  EXPECT_NE(error_of("cpu: 0.03USD/h\n")
                .find("rates.yaml:1:6: the rate of CPU must be a price per CPU core-hour, as in "
                      "'0.031611USD/core-hour'; got '0.03USD/h'"),
            std::string::npos)
      << error_of("cpu: 0.03USD/h\n");
  EXPECT_NE(error_of("memory: 0.004USD/GB-hour\n").find("must be a price per GiB-hour of memory"),
            std::string::npos);
  EXPECT_NE(error_of("storage: 0.04USD/GiB-month\ncpu: 0.03EUR/core-hour\n")
                .find("write every rate of a card in one currency"),
            std::string::npos);
  EXPECT_NE(error_of("untyped: 1USD/h\n").find("a rate card needs 'gpus:'"), std::string::npos);
}

TEST(RateCard, AMissingRateIsNamedWithWhatToAdd) {
  auto c = parse_rate_card("cpu: 0.03USD/core-hour\n", "rates.yaml", builtin());
  ASSERT_TRUE(c) << c.error().what();
  ledger::Charge memory;
  memory.pricing_unit = ledger::kGibHours;
  memory.pricing_quantity = 1;
  EXPECT_FALSE(ledger::price_usage(memory, *c).value());
  ledger::Unpriced missing;
  missing.add(memory, *c);
  ledger::Charge gpu;
  gpu.sku_id = "h100";
  gpu.gpu_hours = 1;
  missing.add(gpu, *c);
  EXPECT_EQ(ledger::unpriced_message(missing, *c),
            "no rate for GPU type h100, memory GiB-hours in rates.yaml: add them as `h100: "
            "<price>USD/h` under "
            "`gpus:`, `memory: <price>USD/GiB-hour`; nothing was loaded, since a row without its "
            "price would count "
            "as free");
}

}  // namespace
}  // namespace aicost::config
