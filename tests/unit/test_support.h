// Helpers shared by the unit tests of every module: the shipped catalog, and small model specs.
#pragma once

#include <gtest/gtest.h>

#include "aicost/catalog/catalog.h"
#include "aicost/catalog/model_spec.h"
#include "aicost/config/catalog_loader.h"

namespace aicost::testing {

// The shipped catalog, loaded once per test binary.
inline const catalog::Catalog& builtin_catalog() {
  static const catalog::Catalog c = [] {
    auto r = config::load_builtin_catalog();
    EXPECT_TRUE(r) << (r ? "" : r.error().what());
    return r ? *r : catalog::Catalog{};
  }();
  return c;
}

// A dense transformer with MHA and a GeLU MLP of width `ffn`.
inline catalog::ModelSpec dense_spec(int layers, int hidden, int heads, int ffn, int vocab) {
  catalog::ModelSpec s;
  s.id = "test-dense";
  s.num_layers = layers;
  s.hidden_size = hidden;
  s.num_attention_heads = heads;
  s.ffn_hidden_size = ffn;
  s.vocab_size = vocab;
  s.activation = catalog::Activation::kGelu;
  return s;
}

// The classic GPT block of Korthikanti et al. 2022: MHA, GeLU, f = 4h, dropout.
inline catalog::ModelSpec classic_gpt(int layers, int hidden, int heads, int vocab = 51200) {
  catalog::ModelSpec s = dense_spec(layers, hidden, heads, 4 * hidden, vocab);
  s.id = "classic";
  s.hidden_dropout = true;
  return s;
}

}  // namespace aicost::testing
