"""Notebook display: a result shows as the command's table (_repr_html_), and its charts are the
Vega-Lite specs of the `-o html` page, each with a mime bundle a notebook draws.

Run by ctest (python.pytest) like test_aicost.py; temporary ledgers live in a TemporaryDirectory."""

import glob
import html
import json
import os
import re
import subprocess
import tempfile

import aicost

ROOT = os.getcwd()
AICOST = os.environ.get("AICOST_BIN", os.path.join(ROOT, "build/apps/aicost/aicost"))
GPT3 = "examples/gpt3-175b-a100.yaml"
SERVING = "examples/serving-llama3-70b-chat.yaml"


def cli(*args, status=0):
    out = subprocess.run([AICOST, *args], cwd=ROOT, capture_output=True)
    assert out.returncode == status, out.stderr.decode()
    return out.stdout.decode()


def cli_page_specs(*args, status=0):
    """The chart specs and titles of `aicost ARGS -o html`, read from the page's markup."""
    page = cli(*args, "-o", "html", status=status)
    start = page.index('id="aicost-specs">') + len('id="aicost-specs">')
    specs = json.loads(page[start:page.index("</script>", start)])
    titles = [html.unescape(t) for t in re.findall(r"<h2>(.*?)</h2>\n<div class=\"chart\"", page)]
    return titles, specs


def test_estimate_shows_the_cli_table():
    shown = aicost.estimate(GPT3)._repr_html_()
    assert shown.startswith('<div class="aicost"><strong>aicost estimate: ')
    table = html.unescape(shown[shown.index("<pre>") + 5:shown.index("</pre>")])
    # The CLI's table, and after it the warnings it prints on standard error.
    out = subprocess.run([AICOST, "estimate", GPT3], cwd=ROOT, capture_output=True, check=True)
    assert table == out.stdout.decode() + out.stderr.decode()


def test_charts_are_the_pages_specs():
    for args, result in ((("estimate", GPT3), aicost.estimate(GPT3)),
                         (("estimate", SERVING), aicost.estimate(SERVING)),
                         (("reliability", GPT3, "--simulate", "100"), aicost.reliability(GPT3, simulate=100))):
        titles, specs = cli_page_specs(*args)
        charts = result.charts()
        assert specs and [c.title for c in charts] == titles
        assert [dict(c) for c in charts] == specs


def test_estimate_cost_chart_adds_up_to_the_total():
    # Derived from the JSON, not from the page: the cost-by-category bars sum to the total cost.
    result = aicost.estimate(GPT3)
    cost = [c for c in result.charts() if "cost" in c.title.lower()]
    assert len(cost) == 1
    values = cost[0]["data"]["values"]
    field = cost[0]["encoding"]["x"]["field"] if cost[0]["encoding"]["x"].get("type") == "quantitative" \
        else cost[0]["encoding"]["y"]["field"]
    assert abs(sum(v[field] for v in values) - result["cost"]["total_usd"]) < 0.01 * result["cost"]["total_usd"]


def test_chart_mime_bundle():
    chart = aicost.estimate(GPT3).charts()[0]
    bundle = chart._repr_mimebundle_()
    assert bundle["application/vnd.vegalite.v6+json"] == dict(chart)
    assert dict(chart)["$schema"].endswith("/vega-lite/v6.json")  # the version the page embeds
    v5 = bundle["application/vnd.vegalite.v5+json"]
    assert v5["$schema"] == "https://vega.github.io/schema/vega-lite/v5.json"
    assert {k: v for k, v in v5.items() if k != "$schema"} == {k: v for k, v in chart.items() if k != "$schema"}
    json.dumps(bundle)  # a notebook stores it as JSON


def test_ipython_formats_results_and_charts():
    formatters = __import__("pytest").importorskip("IPython.core.formatters")  # Debian python3-ipykernel
    display = formatters.DisplayFormatter()
    result = aicost.estimate(GPT3)
    data, _ = display.format(result)
    assert data["text/html"] == result._repr_html_()
    data, _ = display.format(result.charts()[0])
    assert "application/vnd.vegalite.v5+json" in data and "application/vnd.vegalite.v6+json" in data


def test_results_stay_the_cli_json():
    # The display adds nothing to the dict: the JSON is still the CLI's, byte for byte.
    result = aicost.estimate(GPT3)
    result._repr_html_()
    assert json.dumps(result, indent=2) + "\n" == cli("estimate", GPT3, "-o", "json")


def test_ledger_report_and_check_display():
    exports = sorted(glob.glob("examples/governance/*.csv")) + sorted(glob.glob("examples/governance/*.prom"))
    with tempfile.TemporaryDirectory() as d:
        lab = aicost.Ledger(os.path.join(d, "gov.db"))
        lab.ingest(exports)
        report = lab.report(by=["tag:team"], frame=False)
        titles, specs = cli_page_specs("ledger", "report", "--db", lab.db, "--by", "tag:team")
        assert [dict(c) for c in report.charts()] == specs and titles
        assert "llm-serve" in report._repr_html_()
        args = ("ledger", "check", "--db", lab.db, "--budgets", "examples/governance/budgets.yaml", "--as-of",
                "2025-06-28", "--dry-run")
        titles, specs = cli_page_specs(*args, status=3)
        # A real check is shown as it was made: its alerts new, as the dry run just before saw them.
        check = lab.check("examples/governance/budgets.yaml", as_of="2025-06-28", dry_run=False, frame=False)
        assert [dict(c) for c in check.charts()] == specs
        assert [c.title for c in check.charts()] == titles
