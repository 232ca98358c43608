#include "aicost/config/rate_card.h"

#include <cctype>
#include <cmath>
#include <tuple>

#include "aicost/config/catalog_loader.h"
#include "aicost/core/amount.h"
#include "aicost/core/text.h"
#include "aicost/workload/training_job.h"
#include "plan_sections.h"
#include "yaml_source.h"

namespace aicost::config {
namespace {

constexpr const char* kExample = "as in '2.10USD/h' (an amount, an ISO 4217 code, per GPU-hour)";

// What a rate is per, as written after the '/' ("h" for a GPU-hour), and an example for messages.
struct Per {
  const char* suffix;
  const char* unit;     // "GPU-hour"
  const char* example;  // "as in '2.10USD/h' (...)"
};
constexpr Per kPerGpuHour{"/h", "GPU-hour", kExample};
// Examples: OpenCost's default prices
// (../shared/data/billing-samples/opencost/default_pricing.json).
constexpr Per kPerCoreHour{"/core-hour", "CPU core-hour", "as in '0.031611USD/core-hour'"};
constexpr Per kPerGibHour{
    "/GiB-hour", "GiB-hour of memory",
    "as in '0.004237USD/GiB-hour' (GiB: 2^30 bytes; a price per GB-hour is 1.073741824 times "
    "less than per GiB-hour)"};
// koku's VM cost model charges a VM by the hour (koku/masu/database/trino_sql/openshift/
// cost_model/hourly_cost_virtual_machine.sql); the example is koku's development cost model's
// vm_cost_per_hour (dev/scripts/cost_models/openshift_on_prem_cost_model.json).
constexpr Per kPerVmHour{"/VM-hour", "VM-hour", "as in '0.007USD/VM-hour'"};
constexpr Per kPerGibMonth{
    "/GiB-month", "GiB-month of storage",
    "as in '0.04USD/GiB-month' (GiB: 2^30 bytes; a month: the calendar month)"};

struct Reader {
  const Source& src;
  const catalog::Catalog& catalog;
  ledger::RateCard& card;

  // The card's currency is its first rate's; every other must agree.
  core::Status currency(const YAML::Node& n, const std::string& code) {
    if (card.currency.empty()) card.currency = code;
    if (code != card.currency)
      return src.error(n.Mark(), "this rate is in " + code + " but the card's first is in " +
                                     card.currency +
                                     ": write every rate of a card in one currency");
    return {};
  }

  // "2.10USD/h", "0.03USD/core-hour": exact.
  core::Result<ledger::RateCard::Rate> rate(const YAML::Node& n, const std::string& what,
                                            const Per& per = kPerGpuHour) {
    const std::string t = n.IsScalar() ? n.Scalar() : "";
    std::string body = t;
    const std::string_view suffix = per.suffix;
    const bool per_unit = body.size() > suffix.size() &&
                          body.compare(body.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (per_unit) body.resize(body.size() - suffix.size());
    std::size_t letters = 0;
    while (letters < body.size() &&
           std::isupper(static_cast<unsigned char>(body[body.size() - 1 - letters])))
      ++letters;
    const std::string code = body.substr(body.size() - letters);
    std::string number = body.substr(0, body.size() - letters);
    while (!number.empty() && number.back() == ' ') number.pop_back();
    const auto amount = core::parse_amount(number);
    if (!per_unit || code.size() != 3 || !amount || amount->nanos < 0)
      return src.error(
          n.Mark(),
          "the rate of " + what + " must be a price per " + per.unit + ", " + per.example +
              "; got '" + t + "'" +
              (n.IsScalar() || &per != &kPerGpuHour ? "" : " (or {owned: {server: ...}})"));
    AICOST_TRY_STATUS(currency(n, code));
    return ledger::RateCard::Rate{static_cast<std::int64_t>(amount->nanos), src.where(n.Mark()),
                                  "rate card"};
  }

  // {owned: {server: ..., utilisation: ...}}: the owned-GPU TCO a plan in owned mode would get.
  core::Result<ledger::RateCard::Rate> owned(const YAML::Node& n, const std::string& type) {
    MapReader entry(n, "gpus." + type, src);
    const YAML::Node keys = entry.node("owned");
    AICOST_TRY_STATUS(entry.finish());
    if (!keys || !(keys.IsMap() || keys.IsNull()))
      return src.error(n.Mark(), "the rate of " + type + " must be a price per GPU-hour, " +
                                     kExample + ", or {owned: {server: ...}}");
    auto gpu = catalog.gpu(type);
    if (!gpu)
      return src.error(
          n.Mark(), "owned pricing needs the catalog's GPU '" + type + "': " + gpu.error().message);
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
      return core::make_error(core::ErrorCode::kInternal, "owned pricing gave no rate",
                              src.where(n.Mark()));
    const auto& in = pricing.owned->inputs;
    // A model estimate becomes money here: rounded to the nano-unit once.
    const double usd_per_hour = core::per_hour(pricing.owned->rate.per_gpu);
    AICOST_TRY_STATUS(currency(n, "USD"));
    return ledger::RateCard::Rate{static_cast<std::int64_t>(std::llround(usd_per_hour * 1e9)),
                                  src.where(n.Mark()),
                                  core::sprintf("owned TCO (server %s, %.4g %% busy)",
                                                in.server.c_str(), 100 * in.utilisation)};
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
  const YAML::Node cpu = top.node("cpu"), memory = top.node("memory"),
                   storage = top.node("storage"), vm = top.node("vm");
  const bool resources = (cpu && !cpu.IsNull()) || (memory && !memory.IsNull()) ||
                         (storage && !storage.IsNull()) || (vm && !vm.IsNull());
  if (gpus && !gpus.IsNull() && (!gpus.IsMap() || gpus.size() == 0))
    return src.error(gpus.Mark(),
                     "'gpus:' is a rate per GPU type, as in 'gpus: {h100: 2.10USD/h}'");
  if ((!gpus || gpus.IsNull()) && !resources)
    return src.error(
        root->Mark(),
        "a rate card needs 'gpus:', a rate per GPU type, as in 'gpus: {h100: 2.10USD/h}', "
        "or a rate for 'cpu:', 'memory:', 'storage:' or 'vm:' (as in 'cpu: "
        "0.031611USD/core-hour')");
  if (gpus && gpus.IsMap())
    for (const auto& kv : gpus) {
      const std::string type = ledger::rate_key(kv.first.Scalar());
      if (card.gpus.count(type))
        return src.error(kv.first.Mark(),
                         "GPU type '" + type + "' is priced twice (types are read in lower case)");
      auto r = reader.entry(kv.second, type);
      if (!r) return r.error();
      card.gpus.emplace(type, std::move(*r));
    }
  if (const YAML::Node untyped = top.node("untyped"); untyped && !untyped.IsNull()) {
    auto r = reader.rate(untyped, "untyped GPUs");
    if (!r) return r.error();
    card.untyped = std::move(*r);
  }
  // `storage:` is one rate, or a rate per storage class ({gp3-csi: 0.08USD/GiB-month, ...}).
  if (storage && storage.IsMap()) {
    if (storage.size() == 0)
      return src.error(storage.Mark(),
                       "'storage:' is a rate per GiB-month, or one per storage class, as in "
                       "'storage: {gp3-csi: 0.08USD/GiB-month}'");
    for (const auto& kv : storage) {
      const std::string name = ledger::rate_key(kv.first.Scalar());
      if (card.storage_classes.count(name))
        return src.error(kv.first.Mark(), "storage class '" + name +
                                              "' is priced twice (classes are read in lower case)");
      auto r = reader.rate(kv.second, "storage class " + name, kPerGibMonth);
      if (!r) return r.error();
      card.storage_classes.emplace(name, std::move(*r));
    }
  }
  for (const auto& [node, what, per, slot] :
       {std::tuple{cpu, "CPU", &kPerCoreHour, &card.cpu},
        std::tuple{memory, "memory", &kPerGibHour, &card.memory},
        std::tuple{storage, "storage", &kPerGibMonth, &card.storage},
        std::tuple{vm, "VM", &kPerVmHour, &card.vm}}) {
    if (!node || node.IsNull() || (slot == &card.storage && node.IsMap())) continue;
    auto r = reader.rate(node, what, *per);
    if (!r) return r.error();
    *slot = std::move(*r);
  }
  AICOST_TRY_STATUS(top.finish());
  return card;
}

core::Result<ledger::RateCard> load_rate_card(const std::string& path,
                                              const catalog::Catalog& catalog) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_rate_card(*text, path, catalog);
}

}  // namespace aicost::config
