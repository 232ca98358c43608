#!/usr/bin/env python3
"""Writes src/billing/focus_rules.inc: the FOCUS checks `aicost ledger validate` runs, taken from
the FOCUS requirements models rather than written by hand.

Inputs (both in the model format of the FinOps Foundation's focus_validator):
  - the FOCUS 1.2 model, focus_validator/rules/model-1.2.json of finopsfoundation/focus_validator
    at df515ce3 (tag v2.0.1, 2026-02-05); a copy is ../shared/data/billing-samples/focus-validator/;
  - data/focus/model-1.3-additions.json: what FOCUS 1.3 adds (no 1.3 model is published; that
    file says where each of its rules comes from in the 1.3 specification), and its Corrections:
    rules of the 1.2 model that contradict the specification, replaced (each says why).

Only rules that hold on a file alone are taken: status Active, no applicability criteria (a
provider capability the file cannot show), no condition on another column, keyword MUST or MUST
NOT, and reached from the dataset's root through such composites that AND their items (a rule
under an OR is one branch of a choice). Of those:
  Presence  ColumnPresent, MUST          -> the column is mandatory
  Nullability CheckNotValue null, MUST NOT -> the column may not be null
  Type      TypeDecimal / TypeDateTime    -> the cell must parse as one
  Format    FormatKeyValue                -> the cell must be a JSON object
  Validation OR of CheckValue on one column -> the allowed values
Composite rules with AND of such items (the additions use them) are read item by item.

  python3 tools/focus_rules/generate.py            # rewrite the .inc
  python3 tools/focus_rules/generate.py --check    # exit 1 when the .inc is not what it would write
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_MODEL = os.path.join(ROOT, "..", "shared", "data", "billing-samples", "focus-validator", "model-1.2.json")
ADDITIONS = os.path.join(ROOT, "data", "focus", "model-1.3-additions.json")
OUTPUT = os.path.join(ROOT, "src", "billing", "focus_rules.inc")

KINDS = {"TypeDecimal": "kDecimal", "TypeDateTime": "kDateTime", "FormatKeyValue": "kJsonObject"}
DATASETS = {"CostAndUsage": "kCostAndUsage", "ContractCommitment": "kContractCommitment"}


class Column:
    def __init__(self, dataset, name):
        self.dataset, self.name = dataset, name
        self.since = "1.0"
        self.mandatory = self.not_null = self.kind_rule = self.values_rule = ""
        self.kind = "kAny"
        self.values = []


def unconditional(rule):
    crit = rule.get("ValidationCriteria", {})
    return (rule.get("Status", "Active") == "Active" and not rule.get("ApplicabilityCriteria")
            and not crit.get("Condition"))


def take(columns, dataset, since, rule_id, keyword, req):
    fn = req.get("CheckFunction")
    if fn == "AND":
        for item in req.get("Items", []):
            take(columns, dataset, since, rule_id, keyword, item)
        return
    if fn == "OR":
        items = req.get("Items", [])
        names = {i.get("ColumnName") for i in items}
        if items and all(i.get("CheckFunction") == "CheckValue" for i in items) and len(names) == 1:
            col = column(columns, dataset, names.pop(), since)
            col.values = [i["Value"] for i in items if i.get("Value") is not None]
            col.values_rule = rule_id
        return
    name = req.get("ColumnName")
    if not name:
        return
    if fn == "ColumnPresent" and keyword == "MUST":
        column(columns, dataset, name, since).mandatory = rule_id
    elif fn == "CheckNotValue" and req.get("Value", 0) is None and keyword == "MUST NOT":
        column(columns, dataset, name, since).not_null = rule_id
    elif fn in KINDS:
        col = column(columns, dataset, name, since)
        col.kind, col.kind_rule = KINDS[fn], rule_id


def column(columns, dataset, name, since):
    key = (dataset, name)
    if key not in columns:
        columns[key] = Column(dataset, name)
        columns[key].since = since
    return columns[key]


def required(model):
    """The rules a dataset requires on its own: reached from its root through composites that AND
    their items, each without condition or applicability. A rule under an OR (one branch of a
    nullability choice) or under a conditional composite is left out. A model without datasets
    (the additions) requires every rule it has."""
    rules = model["ModelRules"]
    if "ModelDatasets" not in model:
        return set(rules)
    seen = set()
    todo = [r for d in model["ModelDatasets"].values() for r in d["ModelRules"]]
    while todo:
        rule_id = todo.pop()
        rule = rules.get(rule_id)
        if rule_id in seen or rule is None or not unconditional(rule):
            continue
        crit = rule["ValidationCriteria"]
        if crit.get("Keyword") not in ("MUST", "MUST NOT"):
            continue
        seen.add(rule_id)
        req = crit.get("Requirement", {})
        if req.get("CheckFunction") == "AND":
            todo += [i["ModelRuleId"] for i in req.get("Items", []) if i.get("CheckFunction") == "CheckModelRule"]
    return seen


def read(path, since, columns, corrections=None):
    with open(path, encoding="utf-8") as f:
        model = json.load(f)
    # Where a model says other than the specification, the additions' Corrections replace the
    # rule's criteria (each says why).
    for rule_id, fix in (corrections or {}).items():
        if rule_id not in model["ModelRules"]:
            sys.exit("a correction names %s, which the model does not have" % rule_id)
        model["ModelRules"][rule_id]["ValidationCriteria"] = fix["ValidationCriteria"]
    wanted = required(model)
    for rule_id, rule in sorted(model["ModelRules"].items()):
        if not unconditional(rule):
            continue
        crit = rule["ValidationCriteria"]
        # A value of the wrong type, or outside the allowed values, is wrong wherever the column
        # holds one: those rules count even under a conditional parent. Presence and nullability
        # only where the dataset requires them.
        keyword = crit.get("Keyword", "") if rule_id in wanted else "(conditional)"
        take(columns, rule.get("Dataset", "CostAndUsage"), since, rule_id, keyword, crit.get("Requirement", {}))
    return model


def c_string(s):
    return json.dumps(s, ensure_ascii=False)


def render(columns, deprecated, model_path):
    out = [
        "// Generated by tools/focus_rules/generate.py; do not edit (run it again instead).",
        "// From: finopsfoundation/focus_validator df515ce3 focus_validator/rules/model-1.2.json (FOCUS 1.2)",
        "//   and data/focus/model-1.3-additions.json (FOCUS 1.3, each rule with its specification source).",
        "// Included by src/billing/focus_rules.cc only.",
        "",
    ]
    rows = sorted(columns.values(), key=lambda c: (c.dataset, c.name))
    for i, c in enumerate(rows):
        if c.values:
            out.append("constexpr std::string_view kValues%d[] = {%s};" % (i, ", ".join(c_string(v) for v in c.values)))
    out.append("")
    out.append("constexpr ColumnRule kColumnRules[] = {")
    for i, c in enumerate(rows):
        values = "std::span<const std::string_view>(kValues%d)" % i if c.values else "{}"
        out.append("    {Dataset::%s, %s, %s, %s, %s, Kind::%s, %s, %s, %s}," % (
            DATASETS[c.dataset], c_string(c.name), c_string(c.since), c_string(c.mandatory), c_string(c.not_null),
            c.kind, c_string(c.kind_rule), values, c_string(c.values_rule)))
    out.append("};")
    out.append("")
    out.append("constexpr DeprecatedColumn kDeprecated[] = {")
    for name, d in sorted(deprecated.items()):
        out.append("    {%s, %s, %s}," % (c_string(name), c_string(d["Version"]), c_string(d["ReplacedBy"])))
    out.append("};")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=DEFAULT_MODEL, help="the FOCUS 1.2 model JSON")
    ap.add_argument("--check", action="store_true", help="compare with the file instead of writing it")
    args = ap.parse_args()
    with open(ADDITIONS, encoding="utf-8") as f:
        corrections = json.load(f).get("Corrections", {})
    columns = {}
    read(args.model, "1.0", columns, corrections)
    additions = read(ADDITIONS, "1.3", columns)
    text = render(columns, additions.get("Deprecated", {}), args.model)
    if args.check:
        with open(OUTPUT, encoding="utf-8") as f:
            if f.read() != text:
                print("src/billing/focus_rules.inc is out of date; run python3 tools/focus_rules/generate.py",
                      file=sys.stderr)
                return 1
        return 0
    with open(OUTPUT, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
