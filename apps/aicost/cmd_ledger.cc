// `aicost ledger init|ingest|report|sources|commitments|validate|compact` (check:
// cmd_ledger_check.cc; change, changes: cmd_ledger_changes.cc): the cost ledger (docs/LEDGER.md).
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "aicost/billing/ingest.h"
#include "aicost/report/commitments_report.h"
#include "aicost/report/ledger_report.h"
#include "aicost/store/open.h"
#include "commands.h"

namespace aicost::app {
namespace {

struct LedgerOptions : LedgerDb {
  std::vector<std::string> files;
  std::string format = "auto";
  std::string rate_card;
  bool replace = false;
  bool restate = false;
  std::string export_name;
  bool strict = false;
  api::LedgerReportOptions report;
};

int run_ingest(const LedgerOptions& o, const GlobalOptions& g, report::Format fmt) {
  api::LedgerIngestOptions opts;
  opts.files = o.files;
  opts.format = o.format;
  opts.rate_card = o.rate_card;
  opts.catalog_files = g.catalog_files;
  opts.replace = o.replace;
  opts.restate = o.restate;
  opts.export_name = o.export_name;
  int status = 0;
  auto r = api::ledger_ingest(cli_ledger_db(o), opts, fmt,
                              [&](const std::string&, const core::Result<std::string>& out) {
                                if (!out) {
                                  status = std::max(status, report_error(out.error(), g));
                                  return;
                                }
                                // Flushed per file: the line of a committed file must survive a
                                // kill of what follows.
                                std::cout << *out << std::flush;
                              });
  if (!r) return report_error(r.error(), g);
  // Under --strict, rows left out are a failure cron can see; an error's own code comes first.
  return status == 0 && r->rows_left_out && o.strict ? 4 : status;
}

// `aicost ledger init`: an empty ledger, or the one already there, left as it was.
int run_init(const LedgerOptions& o, const GlobalOptions& g, report::Format fmt) {
  bool created = false;
  auto store = open_ledger(o, store::OpenMode::kCreate, &created);
  if (!store) return ledger_error(store.error(), o, g);
  const std::string where = store::redact(o.db);
  if (fmt == report::Format::kJson) {
    std::cout << nlohmann::json{{"db", where},
                                {"backend", (*store)->backend()},
                                {"schema_version", (*store)->schema_version()},
                                {"created", created}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << (created ? "created a new ledger at " : "a ledger is already at ") << where << " ("
              << (*store)->backend() << ", schema " << (*store)->schema_version()
              << (created ? ")" : "; left as it was)") << "\n";
  }
  return 0;
}

}  // namespace

api::LedgerDb cli_ledger_db(const LedgerDb& d) {
  api::LedgerDb out = d;
  out.notice = [](const std::string& line) { std::cerr << "aicost: " << line << std::endl; };
  return out;
}

core::Result<std::unique_ptr<ledger::Store>> open_ledger(const LedgerDb& d, store::OpenMode mode,
                                                         bool* created) {
  return api::open_ledger(cli_ledger_db(d), mode, created);
}

int ledger_error(const core::Error& e, const LedgerDb& d, const GlobalOptions& g) {
  return report_error(scrub_error(e, d.db), g);
}

Command ledger_command() {
  return {
      "ledger", "the cost ledger: load billing exports and GPU telemetry, attribute the spend",
      [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
        auto o = std::make_shared<LedgerOptions>();
        o->db = store::default_db();
        // The default shown with its password hidden ($AICOST_DB may hold one).
        sub.add_option("--db", o->db,
                       "the ledger: a SQLite file, or PostgreSQL as postgresql://user@host/db or "
                       "'host=... dbname=...' "
                       "(also $AICOST_DB)")
            ->default_str(store::redact(o->db));
        sub.add_option("--threads", o->threads,
                       "threads a read of a large SQLite ledger may use (default: every core this "
                       "process may run on)")
            ->check(CLI::Range(1u, 1024u));
        sub.add_option("--lock-timeout", o->lock_timeout,
                       "how long a write (ingest, compact, recording alerts) waits for another one "
                       "before it fails, "
                       "e.g. 30s, 10min, 0s (readers never wait)")
            ->capture_default_str();
        sub.require_subcommand(1);
        sub.fallthrough();
        auto chosen = std::make_shared<std::function<int()>>();
        auto on = [chosen](CLI::App* app, const std::function<int()>& run) {
          app->callback([chosen, run] { *chosen = run; });
        };

        auto* init = sub.add_subcommand("init",
                                        "make an empty ledger at --db (ingest makes one too); one "
                                        "already there is left as it was");
        on(init, [o, &g] {
          auto fmt = output_format(g);
          return fmt ? run_init(*o, g, *fmt) : report_error(fmt.error(), g);
        });

        auto* ingest = sub.add_subcommand(
            "ingest",
            "load billing exports (FOCUS, AWS CUR, Azure, GCP, OCI; CSV, compressed or Parquet), "
            "usage (Slurm, OpenCost) and dcgm-exporter telemetry (makes the ledger if missing)");
        ingest
            ->add_option("files", o->files,
                         "files (plain, gzip, zstd, zip or Parquet), folders or manifests to load, "
                         "- for standard input; "
                         "each is one transaction, and one loaded before is skipped")
            ->required();
        ingest
            ->add_option("--format", o->format,
                         "auto, focus, focus-contract-commitment, aws-cur, azure, gcp, oci, "
                         "dcgm-prometheus, dcgm-csv, slurm, opencost, ocp")
            ->capture_default_str();
        ingest->add_option(
            "--rate-card", o->rate_card,
            "YAML prices for usage without a bill (Slurm, OpenShift): gpus: {h100: 2.10USD/h}, "
            "cpu: 0.03USD/core-hour, memory: 0.004USD/GiB-hour, storage: 0.04USD/GiB-month");
        ingest->add_flag("--replace", o->replace,
                         "a path loaded before with other bytes: swap the new content in");
        ingest->add_flag("--restate", o->restate,
                         "each file is the whole delivery of its billing periods: it replaces an "
                         "earlier delivery of "
                         "those periods of the same export (folders and manifests always are)");
        ingest->add_option(
            "--export", o->export_name,
            "the export a restating file belongs to (default: the manifest's; else provider and "
            "billing account alone)");
        ingest->add_flag("--strict", o->strict,
                         "exit 4 when a file had rows that were not loaded (each is reported)");
        ingest->footer(
            "Exit status: 0 loaded (rows that could not be read are reported, not loaded), 4 under "
            "--strict when some were not, 1 or 2 an error.");
        on(ingest, [o, &g] {
          auto fmt = output_format(g);
          return fmt ? run_ingest(*o, g, *fmt) : report_error(fmt.error(), g);
        });

        auto* rep = sub.add_subcommand("report", "cost by dimensions and tags over time");
        rep->add_option("--by", o->report.by,
                        "comma-separated: provider, service, region, resource, sub_account, "
                        "charge_category, pricing_category, ... or tag:KEY");
        rep->add_option("--from", o->report.from, "first day included, YYYY-MM-DD");
        rep->add_option("--to", o->report.to, "first day left out, YYYY-MM-DD");
        rep->add_option("--granularity", o->report.granularity,
                        "total, day, week (ISO, from Monday) or month")
            ->capture_default_str();
        rep->add_option(
            "--top", o->report.top,
            "keep the N groups with the most effective cost; fold the rest into (other)");
        rep->add_option("--filter", o->report.filters,
                        "DIMENSION=VALUE, repeatable: one dimension's values OR, different "
                        "dimensions AND (tag:env= selects untagged rows)");
        rep->add_option("--alias", o->report.aliases,
                        "tag keys that mean the same: team=owner,squad (repeatable)");
        rep->add_flag(
            "--useful", o->report.useful,
            "join loaded GPU telemetry: the share of GPU-hours the GPUs were busy (useful_pct)");
        rep->footer(
            "Example: aicost ledger report --by tag:team,service --from 2024-09-01 --to 2024-10-01 "
            "--granularity week");
        on(rep, [o, &g] {
          auto fmt = output_format(g);
          if (!fmt) return report_error(fmt.error(), g);
          // Written as it is made: a report of millions of lines is never held whole.
          if (auto s = api::ledger_report(cli_ledger_db(*o), o->report, *fmt, std::cout); !s)
            return report_error(s.error(), g);
          return 0;
        });

        auto* sources =
            sub.add_subcommand("sources", "what is loaded: files, formats, rows, totals");
        on(sources, [o, &g] {
          auto fmt = output_format(g);
          if (!fmt) return report_error(fmt.error(), g);
          return print_output(api::ledger_sources(cli_ledger_db(*o), *fmt), *fmt, g);
        });

        auto* commitments = sub.add_subcommand(
            "commitments",
            "FOCUS 1.3 contract commitments loaded: each term, its amount or quantity and period");
        on(commitments, [o, &g] {
          auto fmt = output_format(g);
          if (!fmt) return report_error(fmt.error(), g);
          auto store = open_ledger(*o, store::OpenMode::kExisting);
          if (!store) return ledger_error(store.error(), *o, g);
          auto terms = (*store)->commitments();
          if (!terms) return ledger_error(terms.error(), *o, g);
          std::cout << report::render_commitments(*terms, *fmt);
          return 0;
        });

        auto* compact =
            sub.add_subcommand("compact",
                               "rewrite the ledger for reading: SQLite into 64 KiB pages (needs "
                               "its size again in free disk), PostgreSQL VACUUM ANALYZE");
        on(compact, [o, &g] {
          auto fmt = output_format(g);
          if (!fmt) return report_error(fmt.error(), g);
          auto store = open_ledger(*o, store::OpenMode::kExisting);
          if (!store) return ledger_error(store.error(), *o, g);
          auto r = (*store)->compact();
          if (!r)
            return ledger_error(r.error().with_context("--db " + store::redact(o->db)), *o, g);
          std::cout << report::render_compact(store::redact(o->db), *r, *fmt);
          return 0;
        });

        auto* validate = sub.add_subcommand(
            "validate",
            "check a billing export against FOCUS and print what fails (exit 1 if anything does)");
        validate
            ->add_option("file", o->files,
                         "the export to check (plain, gzip, zstd or zip; - for standard input)")
            ->required()
            ->expected(1);
        validate->add_option("--format", o->format, "as for ingest")->capture_default_str();
        on(validate, [o, &g] {
          auto fmt = output_format(g);
          if (!fmt) return report_error(fmt.error(), g);
          auto format = billing::parse_format(o->format);
          if (!format) return report_error(format.error().with_context("--format"), g);
          auto v = billing::validate_file(o->files.front(), *format);
          if (!v) return report_error(v.error(), g);
          bool failed = false;
          std::cout << report::render_validation(o->files.front(), *v, *fmt, failed);
          return failed ? 1 : 0;
        });
        auto* check = sub.add_subcommand("check",
                                         "budgets, forecasts and anomalies: alerts printed, sent "
                                         "to a webhook, exported for Prometheus");
        on(check, setup_ledger_check(check, g, *o));
        setup_ledger_changes(sub, g, *o, on);
        return [chosen] { return *chosen ? (*chosen)() : 2; };
      }};
}

}  // namespace aicost::app
