// An owned price as tables, notes and JSON.
#include "owned_parts.h"

#include <fmt/format.h>

#include "aicost/core/quantity.h"
#include "aicost/core/text.h"
#include "estimate_parts.h"
#include "rounding.h"

namespace aicost::report {

namespace {

using core::per_hour;
std::string usd_h(core::UsdPerSecond r) { return fmt::format("{:.2f}", per_hour(r)); }

std::string rental_name(const costing::Rental& r) {
  return r.instance + " " + catalog::to_string(r.mode);
}

// The run's share of the cluster's life, in wall-clock time.
double life_share(const costing::OwnedPricing& o, core::Seconds wall) {
  return o.inputs.life.value() > 0 ? wall / o.inputs.life : 0;
}

double life_months(const costing::OwnedPricing& o) {
  return o.inputs.life.value() / core::kSecondsPerMonth;
}

}  // namespace

std::vector<Table> owned_tables(const costing::OwnedPricing& o, core::Seconds wall) {
  const auto& in = o.inputs;
  const auto& r = o.rate;
  std::vector<Table> out;
  const double gpus = static_cast<double>(in.servers) * in.gpus_per_server;
  out.push_back(Table{
      {"metric", "value"},
      {{"cluster", fmt::format("{} x {} ({} GPUs)", core::group_digits(in.servers), in.server,
                               core::group_digits(gpus))},
       {"bought up front",
        fmt::format("{} USD (servers {} + fabric {})", core::group_digits(r.upfront.value()),
                    core::group_digits(in.server_price.value() * in.servers),
                    core::group_digits(in.fabric.value() * in.servers))},
       {"effective price",
        fmt::format("{} USD per busy GPU-hour at {} utilisation over {:.3g} y", usd_h(r.per_gpu),
                    pct(in.utilisation), in.life.value() / core::kSecondsPerYear)},
       {"fixed / elastic",
        fmt::format("{} / {} USD/GPU-h ({} fixed)", usd_h(r.fixed), usd_h(r.elastic),
                    pct(share(r.fixed.value(), r.per_gpu.value())))},
       {"running cost",
        fmt::format("{} USD/month for the cluster, capital excluded",
                    core::group_digits(r.running.value() * core::kSecondsPerMonth))},
       {"this run",
        fmt::format("{} of the cluster's life ({:.1f} of {} days)", pct(life_share(o, wall)),
                    core::in_days(wall), core::group_digits(core::in_days(in.life)))}},
      {false, false},
      ""});
  Table parts{{"part", "USD/GPU-h", "share", "nature", "driver"},
              {},
              {false, true, true, false, false},
              ""};
  for (const auto& p : r.parts) {
    parts.rows.push_back({p.name, usd_h(p.per_gpu),
                          pct(share(p.per_gpu.value(), r.per_gpu.value())),
                          p.fixed ? "fixed" : "elastic", p.driver});
  }
  parts.rows.push_back({"total", usd_h(r.per_gpu), pct(1), "", ""});
  out.push_back(std::move(parts));
  if (!o.break_even.empty()) {
    Table be{{"rent instead", "USD/GPU-h", "break-even months", "break-even utilisation"},
             {},
             {false, true, true, true},
             ""};
    for (const auto& b : o.break_even) {
      be.rows.push_back({rental_name(b.rental), usd_h(b.rental.per_gpu),
                         !b.months ? "never"
                         : *b.months > life_months(o)
                             ? fmt::format("{:.1f} (after the life)", *b.months)
                             : fmt::format("{:.1f}", *b.months),
                         b.utilisation ? pct(*b.utilisation) : "-"});
    }
    out.push_back(std::move(be));
  }
  Table inputs{{"input", "value", "from"}, {}, {false, false, false}, ""};
  for (const auto& s : o.sources) {
    inputs.rows.push_back({s.input, s.value, s.from + (s.weak ? ", weak" : "")});
  }
  out.push_back(std::move(inputs));
  return out;
}

std::vector<std::string> owned_notes(const costing::OwnedPricing& o, core::Seconds wall) {
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "break-even months: servers and fabric up front / (renting the same GPU-hours - "
      "running the cluster) per month of {:g} h; on demand rents only the busy hours, a "
      "reservation every hour; the residual value is left out",
      core::kHoursPerMonth));
  if (life_share(o, wall) < o.inputs.utilisation) {
    out.push_back(
        fmt::format("the {} utilisation rests on other work: this run alone fills {} of "
                    "the cluster's life",
                    pct(o.inputs.utilisation), pct(life_share(o, wall))));
  }
  out.insert(out.end(), o.notes.begin(), o.notes.end());
  return out;
}

Json owned_json(const costing::OwnedPricing& o, core::Seconds wall) {
  const auto& in = o.inputs;
  const auto& r = o.rate;
  Json j;
  j["server"] = in.server;
  j["servers"] = in.servers;
  j["gpus_per_server"] = in.gpus_per_server;
  j["utilisation"] = sig(in.utilisation);
  j["life_years"] = sig(in.life.value() / core::kSecondsPerYear);
  j["run_share_of_life"] = sig(life_share(o, wall));
  j["price_per_gpu_hour_usd"] = sig(per_hour(r.per_gpu));
  j["fixed_per_gpu_hour_usd"] = sig(per_hour(r.fixed));
  j["elastic_per_gpu_hour_usd"] = sig(per_hour(r.elastic));
  j["upfront_usd"] = cents(r.upfront.value());
  j["running_usd_per_month"] = cents(r.running.value() * core::kSecondsPerMonth);
  Json parts = Json::array();
  for (const auto& p : r.parts) {
    parts.push_back({{"part", p.name},
                     {"per_gpu_hour_usd", sig(per_hour(p.per_gpu))},
                     {"nature", p.fixed ? "fixed" : "elastic"},
                     {"driver", p.driver}});
  }
  j["parts"] = parts;
  Json be = Json::array();
  for (const auto& b : o.break_even) {
    be.push_back({{"instance", b.rental.instance},
                  {"mode", catalog::to_string(b.rental.mode)},
                  {"price_per_gpu_hour_usd", sig(per_hour(b.rental.per_gpu))},
                  {"months", b.months ? Json(sig(*b.months)) : Json(nullptr)},
                  {"within_life", b.months.has_value() && *b.months <= life_months(o)},
                  {"utilisation", b.utilisation ? Json(sig(*b.utilisation)) : Json(nullptr)}});
  }
  j["break_even"] = be;
  Json inputs = Json::array();
  for (const auto& s : o.sources) {
    inputs.push_back({{"input", s.input},
                      {"value", s.value},
                      {"from", s.from},
                      {"source", s.source.empty() ? Json(nullptr) : Json(s.source)},
                      {"weak", s.weak}});
  }
  j["inputs"] = inputs;
  j["notes"] = owned_notes(o, wall);
  return j;
}

}  // namespace aicost::report
