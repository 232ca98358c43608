#include "aicost/config/rate_card.h"

#include <cctype>
#include <cmath>

#include "aicost/core/amount.h"
#include "aicost/core/text.h"
#include "aicost/workload/training_job.h"
#include "aicost/config/catalog_loader.h"
#include "plan_sections.h"
#include "yaml_source.h"

namespace aicost::config {
namespace {

constexpr const char* kExample = "as in '2.10USD/h' (an amount, an ISO 4217 code, per GPU-hour)";

struct Reader {
  const Source& src;
  const catalog::Catalog& catalog;
  ledger::RateCard& card;

  // The card's currency is its first rate's; every other must agree.
  core::Status currency(const YAML::Node& n, const std::string& code) {
    if (card.currency.empty()) card.currency = code;
    if (code != card.currency)
      return src.error(n.Mark(), "this rate is in " + code + " but the card's first is in " + card.currency +
                                     ": write every rate of a card in one currency");
    return {};
  }

  // "2.10USD/h": exact.
  core::Result<ledger::RateCard::Rate> rate(const YAML::Node& n, const std::string& what) {
    const std::string t = n.IsScalar() ? n.Scalar() : "";
    std::string body = t;
    const bool per_hour = body.size() > 2 && body.compare(body.size() - 2, 2, "/h") == 0;
    if (per_hour) body.resize(body.size() - 2);
    std::size_t letters = 0;
    while (letters < body.size() && std::isupper(static_cast<unsigned char>(body[body.size() - 1 - letters]))) ++letters;
    const std::string code = body.substr(body.size() - letters);
    std::string number = body.substr(0, body.size() - letters);
    while (!number.empty() && number.back() == ' ') number.pop_back();
    const auto amount = core::parse_amount(number);
    if (!per_hour || code.size() != 3 || !amount || amount->nanos < 0)
      return src.error(n.Mark(), "the rate of " + what + " must be a price per GPU-hour, " + kExample + "; got '" +
                                     t + "'" + (n.IsScalar() ? "" : " (or {owned: {server: ...}})"));
    AICOST_TRY_STATUS(currency(n, code));
    return ledger::RateCard::Rate{static_cast<std::int64_t>(amount->nanos), src.where(n.Mark()), "rate card"};
  }

  // {owned: {server: ..., utilisation: ...}}: the owned-GPU TCO a plan in owned mode would get.
  core::Result<ledger::RateCard::Rate> owned(const YAML::Node& n, const std::string& type) {
    MapReader entry(n, "gpus." + type, src);
    const YAML::Node keys = entry.node("owned");
    AICOST_TRY_STATUS(entry.finish());
    if (!keys || !(keys.IsMap() || keys.IsNull()))
      return src.error(n.Mark(), "the rate of " + type + " must be a price per GPU-hour, " + kExample +
                                     ", or {owned: {server: ...}}");
    auto gpu = catalog.gpu(type);
    if (!gpu)
      return src.error(n.Mark(), "owned pricing needs the catalog's GPU '" + type + "': " + gpu.error().message);
    workload::TrainingJob job;
    job.cluster.gpu = **gpu;
    MapReader r(keys, "gpus." + type + ".owned", src);
    OwnedRequest req;
    std::vector<std::string> warnings;
    AICOST_TRY_STATUS(read_owned(r, catalog, job, req, warnings));
    for (const auto& k : owned_keys()) r.accept(k);
    AICOST_TRY_STATUS(r.finish());
    const int gpus = req.pricing.inputs.gpus_per_server;
    const auto pricing = price_owned(std::move(req), gpus, catalog);
    if (!pricing.owned)
      return core::make_error(core::ErrorCode::kInternal, "owned pricing gave no rate", src.where(n.Mark()));
    const auto& in = pricing.owned->inputs;
    // A model estimate becomes money here: rounded to the nano-unit once.
    const double usd_per_hour = core::per_hour(pricing.owned->rate.per_gpu);
    AICOST_TRY_STATUS(currency(n, "USD"));
    return ledger::RateCard::Rate{static_cast<std::int64_t>(std::llround(usd_per_hour * 1e9)), src.where(n.Mark()),
                                  core::sprintf("owned TCO (server %s, %.4g %% busy)", in.server.c_str(),
                                                100 * in.utilisation)};
  }

  core::Result<ledger::RateCard::Rate> entry(const YAML::Node& n, const std::string& type) {
    return n.IsMap() ? owned(n, type) : rate(n, type);
  }
};

}  // namespace

core::Result<ledger::RateCard> parse_rate_card(const std::string& text, const std::string& origin,
                                               const catalog::Catalog& catalog) {
  const Source src = Source::from_text(origin, text);
  auto root = parse_yaml(src, text);
  if (!root) return root.error();
  MapReader top(*root, "", src);
  if (!root->IsMap()) return top.not_a_map();
  ledger::RateCard card;
  card.source = origin;
  Reader reader{src, catalog, card};
  const YAML::Node gpus = top.node("gpus");
  if (!gpus || !gpus.IsMap() || gpus.size() == 0)
    return src.error(root->Mark(), "a rate card needs 'gpus:', a rate per GPU type, as in 'gpus: {h100: 2.10USD/h}'");
  for (const auto& kv : gpus) {
    const std::string type = ledger::rate_key(kv.first.Scalar());
    if (card.gpus.count(type))
      return src.error(kv.first.Mark(), "GPU type '" + type + "' is priced twice (types are read in lower case)");
    auto r = reader.entry(kv.second, type);
    if (!r) return r.error();
    card.gpus.emplace(type, std::move(*r));
  }
  if (const YAML::Node untyped = top.node("untyped"); untyped && !untyped.IsNull()) {
    auto r = reader.rate(untyped, "untyped GPUs");
    if (!r) return r.error();
    card.untyped = std::move(*r);
  }
  AICOST_TRY_STATUS(top.finish());
  return card;
}

core::Result<ledger::RateCard> load_rate_card(const std::string& path, const catalog::Catalog& catalog) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_rate_card(*text, path, catalog);
}

}  // namespace aicost::config
