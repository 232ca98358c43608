#include <filesystem>
#include <fstream>

#include "aicost/config/guardrails.h"
#include "aicost/config/plan_edit.h"
#include "aicost/optimize/optimize.h"
#include "aicost/report/charts.h"
#include "aicost/report/optimize_report.h"
#include "plan_run.h"

namespace aicost::api {

namespace {

// The combined plan as a file; written only after everything else succeeded.
core::Status write_plan(const config::PlanEditor& editor, const optimize::OptimizeResult& res,
                        const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  std::string ids;
  for (const auto& id : res.combined.levers) ids += (ids.empty() ? "" : ", ") + id;
  const std::string header = "Emitted by `aicost optimize` from " + res.plan +
                             ": the combined plan (" +
                             (ids.empty() ? std::string("no lever accepted") : ids) + ").\n" +
                             "`aicost estimate` on this file gives the combined total; comments of "
                             "the original are not kept.";
  auto text = editor.emit(res.combined.change, dir.empty() ? "." : dir, header);
  if (!text) return text.error();
  std::ofstream out(path);
  out << *text;
  if (!out) return core::make_error(core::ErrorCode::kIo, "cannot write file", path);
  return {};
}

}  // namespace

core::Result<Output> optimize(const PlanSource& src, const catalog::Catalog& cat,
                              report::Format fmt, const OptimizeOptions& options) {
  optimize::Guardrails guardrails;
  if (options.guardrails) {
    auto gr = config::parse_guardrails(options.guardrails->text, options.guardrails->origin);
    if (!gr) return gr.error();
    guardrails = *gr;
  }
  auto editor = config::PlanEditor::from_text(src.text, src.origin,
                                              src.base_dir.empty() ? "." : src.base_dir, cat);
  if (!editor) return editor.error();
  auto limits = editor->limits();
  if (!limits) return limits.error();
  optimize::OptimizeInputs in;
  in.plan_name = editor->name();
  in.catalog = &cat;
  const config::PlanEditor& ed = *editor;
  in.evaluate = [&ed](const optimize::Change& c) { return ed.evaluate(c); };
  in.limits = *limits;
  in.guardrails = guardrails;
  in.threads = options.threads;
  auto res = optimize::optimize(in);
  if (!res) return res.error().with_context(src.origin);
  // Reports list what a change does to this plan's file: removals of keys it does not have are
  // no-ops and left out.
  for (auto& l : res->levers) l.change = editor->prune(l.change);
  res->combined.change = editor->prune(res->combined.change);
  Output out;
  out.text = report::render_optimize(*res, fmt);
  if (options.charts) out.charts = report::optimize_charts(res->levers, "USD");
  if (!options.emit_plan.empty()) AICOST_TRY_STATUS(write_plan(*editor, *res, options.emit_plan));
  out.warnings = res->warnings;
  return out;
}

}  // namespace aicost::api
