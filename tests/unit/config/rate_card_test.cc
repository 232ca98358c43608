// Rate cards (config/rate_card.h): exact rates per GPU type with their currency, the owned-GPU TCO
// of a catalogued server, and errors at file:line:column.
#include "aicost/config/rate_card.h"

#include <gtest/gtest.h>

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
  auto c = parse_rate_card("gpus:\n  H100: 2.10USD/h\n  a100: 0.000000001USD/h\nuntyped: 1.5USD/h\n", "rates.yaml",
                           builtin());
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
// GPU-hours: 240000 USD / (10000 h x 8 GPUs x 100 %) = 3 USD per GPU-hour (tco.md "How to combine").
TEST(RateCard, OwnedTcoOfACataloguedServer) {
  auto c = parse_rate_card(
      "gpus:\n  h100:\n    owned: {server: hgx-h100, server_price: 240000USD, fabric: 0USD, amortisation: 10000h,\n"
      "            residual: 0%, utilisation: 100%, support: 0%/y, electricity: 0USD/kWh, colocation: 0USD/kW-month}\n",
      "rates.yaml", builtin());
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_EQ(c->gpus.at("h100").nanos_per_unit, 3'000'000'000);
  EXPECT_EQ(c->gpus.at("h100").basis, "owned TCO (server hgx-h100, 100 % busy)");
  // Halving the busy share doubles the capital per busy hour (idle power costs nothing at 0 USD/kWh).
  auto half = parse_rate_card(
      "gpus:\n  h100:\n    owned: {server: hgx-h100, server_price: 240000USD, fabric: 0USD, amortisation: 10000h,\n"
      "            residual: 0%, utilisation: 50%, support: 0%/y, electricity: 0USD/kWh, colocation: 0USD/kW-month}\n",
      "rates.yaml", builtin());
  ASSERT_TRUE(half) << half.error().what();
  EXPECT_EQ(half->gpus.at("h100").nanos_per_unit, 6'000'000'000);
}

TEST(RateCard, MistakesNameTheirPlace) {
  EXPECT_NE(error_of("gpus:\n  h100: 2.10\n").find("rates.yaml:2:9: the rate of h100 must be a price per GPU-hour"),
            std::string::npos);
  EXPECT_NE(error_of("gpus:\n  h100: 2.10USD/h\n  a100: 1EUR/h\n")
                .find("rates.yaml:3:9: this rate is in EUR but the card's first is in USD"),
            std::string::npos);
  EXPECT_NE(error_of("gpus:\n  h100: 2USD/h\n  H100: 3USD/h\n").find("rates.yaml:3:3: GPU type 'h100' is priced twice"),
            std::string::npos);
  EXPECT_NE(error_of("gpu:\n  h100: 2USD/h\n").find("a rate card needs 'gpus:'"), std::string::npos);
  EXPECT_NE(error_of("gpus: {h100: 2USD/h}\nuntyped: 1USD/h\nuntype: 2\n").find("unknown key 'untype'. Did you mean 'untyped'?"), std::string::npos);
  EXPECT_NE(error_of("gpus:\n  h100: {owned: {server: dgx-b200}}\n").find("dgx-b200"), std::string::npos);
}

TEST(RateCard, PricesAUsageRow) {
  auto c = parse_rate_card("gpus:\n  h100: 2.10USD/h\n", "rates.yaml", builtin());
  ASSERT_TRUE(c) << c.error().what();
  ledger::Charge row;
  row.sku_id = "H100";
  row.gpu_hours = 1.0 / 3.0;  // 20 GPU-minutes: 0.7 USD, rounded to the nano-unit
  ASSERT_TRUE(ledger::needs_price(row));
  ASSERT_TRUE(ledger::price_usage(row, *c));
  EXPECT_EQ(row.effective, 700'000'000);
  EXPECT_EQ(row.currency, "USD");
  EXPECT_FALSE(ledger::needs_price(row));
  ledger::Charge untyped;
  untyped.gpu_hours = 1;
  EXPECT_FALSE(ledger::price_usage(untyped, *c));  // no `untyped:` rate
  EXPECT_EQ(untyped.currency, "");
  EXPECT_EQ(ledger::unpriced_message({{"", "a100"}, {}}, *c),
            "no rate for GPU types (untyped), a100 in rates.yaml: add them as `a100: <price>USD/h` under `gpus:` "
            "(and `untyped:` for GPUs without a type); nothing was loaded, since a row without its price would count "
            "as free");
}

}  // namespace
}  // namespace aicost::config
