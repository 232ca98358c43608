// The owned sections of a catalog file: a user's file overrides single defaults and adds servers;
// every figure needs a source and a kind, and an unpriced server a note saying why.
#include <gtest/gtest.h>

#include "aicost/config/catalog_loader.h"
#include "test_support.h"

namespace aicost::config {
namespace {

TEST(OwnedCatalog, UserFileOverridesOneDefaultAndKeepsTheOthers) {
  catalog::Catalog cat = testing::builtin_catalog();
  const auto shipped = cat.owned_defaults();
  auto s = add_catalog_text(R"(owned_defaults:
  pue:
    value: 1.1
    kind: "est: our site"
    source: "facility meter, 2026"
servers:
  - id: our-h100
    gpu: h100-sxm-80gb
    gpus: 8
    price: 250000USD
    kind: street
    source: "our purchase order"
    power: {max: 10.2kW, training: 8kW, idle: 1.5kW, kind: est, source: "our meter"}
)",
                            "mine.yaml", cat);
  ASSERT_TRUE(s) << s.error().what();
  EXPECT_DOUBLE_EQ(cat.owned_defaults().pue.value, 1.1);
  EXPECT_EQ(cat.owned_defaults().pue.sourcing.kind, "est: our site");
  EXPECT_EQ(cat.owned_defaults().utilisation.value, shipped.utilisation.value);
  EXPECT_EQ(cat.owned_defaults().fabric.size(), shipped.fabric.size());
  // The cheaper server per GPU is now the default for H100 plans.
  ASSERT_NE(cat.server_for("h100-sxm-80gb"), nullptr);
  EXPECT_EQ(cat.server_for("h100-sxm-80gb")->id, "our-h100");
  EXPECT_DOUBLE_EQ(cat.server_for("h100-sxm-80gb")->idle_power.value(), 1500);
}

TEST(OwnedCatalog, EveryFigureNeedsAKindAndAnUnpricedServerAWhy) {
  catalog::Catalog cat;
  auto no_kind = add_catalog_text(
      "servers:\n  - {id: x, gpu: h100, gpus: 8, price: 1USD, source: s}\n", "mine.yaml", cat);
  ASSERT_FALSE(no_kind);
  EXPECT_NE(no_kind.error().message.find("has no 'kind'"), std::string::npos)
      << no_kind.error().what();
  auto no_why = add_catalog_text(
      "servers:\n  - {id: x, gpu: h100, gpus: 8, kind: none, source: s}\n", "mine.yaml", cat);
  ASSERT_FALSE(no_why);
  EXPECT_NE(no_why.error().message.find("has no price: its note must say why"), std::string::npos)
      << no_why.error().what();
  auto unitless = add_catalog_text(
      "owned_defaults:\n  electricity: {value: 0.08, kind: survey, source: s}\n", "mine.yaml", cat);
  ASSERT_FALSE(unitless);
  EXPECT_EQ(unitless.error().context, "mine.yaml:2:24");
  EXPECT_NE(unitless.error().message.find("'0.08USD/kWh'"), std::string::npos)
      << unitless.error().what();
}

}  // namespace
}  // namespace aicost::config
