"""aicost.Ledger against `aicost ledger ... -o json`: the same JSON for the same ledger, errors as
exceptions, DataFrames of the report's lines and the check's findings.

Each test works on a ledger in its own TemporaryDirectory (removed after it), loaded from the
shipped examples/governance files (README tour step 12)."""

import datetime
import decimal
import glob
import json
import os
import subprocess
import tempfile

import pytest

import aicost

ROOT = os.getcwd()
AICOST = os.environ.get("AICOST_BIN", os.path.join(ROOT, "build/apps/aicost/aicost"))
EXPORTS = sorted(glob.glob("examples/governance/*.csv")) + sorted(glob.glob("examples/governance/*.prom"))
BUDGETS = "examples/governance/budgets.yaml"


def cli(*args, status=0):
    """What `aicost ARGS -o json` prints on standard output, as bytes; its exit code must be `status`."""
    out = subprocess.run([AICOST, *args, "-o", "json"], cwd=ROOT, capture_output=True)
    assert out.returncode == status, out.stderr.decode()
    return out.stdout


def serialised(value):
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()


@pytest.fixture()
def ledger():
    with tempfile.TemporaryDirectory() as d:
        lab = aicost.Ledger(os.path.join(d, "gov.db"))
        lab.ingest(EXPORTS)
        yield lab


def test_ingest_gives_the_cli_json():
    assert len(EXPORTS) == 2  # the FOCUS export and the telemetry of tour step 12
    with tempfile.TemporaryDirectory() as d:
        ours = aicost.Ledger(os.path.join(d, "py.db")).ingest(EXPORTS)
        theirs = [json.loads(part) for part in cli("ledger", "ingest", "--db", os.path.join(d, "cli.db"),
                                                    *EXPORTS).replace(b"}\n{", b"}\n\x00{").split(b"\x00")]
        # Each load is stamped with its time; everything else is the same.
        for result in ours + theirs:
            assert result["source"].pop("loaded_at")
        assert [serialised(r) for r in ours] == [serialised(r) for r in theirs]
        assert ours[0]["outcome"] == "loaded" and ours[0]["records"] > 0
        # A single path gives its result alone; loading it again is skipped.
        again = aicost.Ledger(os.path.join(d, "py.db")).ingest(EXPORTS[0])
        assert again["outcome"] != "loaded"


def test_report_matches_cli(ledger):
    assert serialised(ledger.report(by=["tag:team"], useful=True, frame=False)) == cli(
        "ledger", "report", "--db", ledger.db, "--by", "tag:team", "--useful")


def test_report_options_match_cli(ledger):
    ours = ledger.report(by=["tag:team", "service"], from_="2025-06-01", to="2025-06-15", granularity="week",
                         top=4, filters={"tag:team": ["llm-serve", "llm-train"]}, frame=False)
    theirs = cli("ledger", "report", "--db", ledger.db, "--by", "tag:team,service", "--from", "2025-06-01", "--to",
                 "2025-06-15", "--granularity", "week", "--top", "4", "--filter", "tag:team=llm-serve",
                 "--filter", "tag:team=llm-train")
    assert serialised(ours) == theirs
    assert {line["tag:team"] for line in ours["lines"]} <= {"llm-serve", "llm-train", "(other)"}


def test_sources_match_cli(ledger):
    rows = ledger.sources(frame=False)
    assert serialised(rows) == cli("ledger", "sources", "--db", ledger.db)
    assert [os.path.basename(r["path"]) for r in rows] == [os.path.basename(p) for p in EXPORTS]


def test_check_matches_cli_and_dry_run_remembers_nothing(ledger):
    ours = ledger.check(BUDGETS, as_of="2025-06-28", frame=False)
    assert serialised(ours) == cli("ledger", "check", "--db", ledger.db, "--budgets", BUDGETS, "--as-of",
                                   "2025-06-28", "--dry-run", status=3)
    assert ours["gate_failed"] is True  # the CLI's exit 3
    assert any(a["new"] for a in ours["anomalies"])
    # A dry run remembered nothing; a real one records the alerts, and the next check (ours or
    # the CLI's) no longer calls them new.
    import datetime
    assert ledger.check(BUDGETS, as_of=datetime.date(2025, 6, 28), frame=False) == ours
    ledger.check(BUDGETS, as_of="2025-06-28", dry_run=False)
    after = ledger.check(BUDGETS, as_of="2025-06-28", frame=False)
    assert not any(a["new"] for a in after["anomalies"])
    assert serialised(after) == cli("ledger", "check", "--db", ledger.db, "--budgets", BUDGETS, "--as-of",
                                    "2025-06-28", "--dry-run", status=3)


def test_report_dataframe_round_trip(ledger):
    pandas = pytest.importorskip("pandas")  # Debian python3-pandas: installed by install-deps.sh
    doc = ledger.report(by=["tag:team"], frame=False)
    df = ledger.report(by=["tag:team"])
    assert isinstance(df, pandas.DataFrame)
    assert list(df["tag:team"]) == [line["tag:team"] for line in doc["lines"]]
    assert df.attrs["query"] == doc["query"]
    # Money is exact text in the JSON and float in the frame.
    exact = sum(decimal.Decimal(line["effective"]) for line in doc["lines"])
    assert df["effective"].dtype == "float64"
    assert abs(df["effective"].sum() - float(exact)) < 1e-6


def test_check_findings_are_dataframes(ledger):
    pandas = pytest.importorskip("pandas")
    doc = ledger.check(BUDGETS, as_of="2025-06-28", frame=False)
    result = ledger.check(BUDGETS, as_of="2025-06-28")
    for key in ("budgets", "anomalies", "waste"):
        assert isinstance(result[key], pandas.DataFrame)
        assert len(result[key]) == len(doc[key]) > 0
    assert list(result["budgets"]["name"]) == [b["name"] for b in doc["budgets"]]
    assert result["gate_failed"] == doc["gate_failed"]


def test_ledger_errors_are_exceptions(ledger):
    with tempfile.TemporaryDirectory() as d:
        with pytest.raises(aicost.NotFound) as info:
            aicost.Ledger(os.path.join(d, "none.db")).report()
        assert info.value.context.startswith("--db")
        assert not os.path.exists(os.path.join(d, "none.db"))  # a read never makes a ledger
    with pytest.raises(aicost.InputError) as info:
        ledger.report(by=["colour"])
    assert info.value.context.startswith("--by")
    with pytest.raises(aicost.InputError) as info:
        ledger.report(from_="2025-13-01")
    assert info.value.context.startswith("--from")
    with pytest.raises(aicost.IoError):
        ledger.check("examples/governance/no-such-budgets.yaml", as_of="2025-06-28")


def test_a_failed_file_does_not_stop_the_others():
    with tempfile.TemporaryDirectory() as d:
        lab = aicost.Ledger(os.path.join(d, "lab.db"))
        with pytest.raises(aicost.IoError) as info:
            lab.ingest([os.path.join(d, "missing.csv"), EXPORTS[0]])
        assert [r["outcome"] for r in info.value.ingested] == ["loaded"]
        assert len(lab.sources(frame=False)) == 1


def test_check_limit_is_the_cli_limit(ledger):
    whole = ledger.check(BUDGETS, as_of="2025-06-28", frame=False)
    cut = ledger.check(BUDGETS, as_of="2025-06-28", limit=3, frame=False)
    assert serialised(cut) == cli("ledger", "check", "--db", ledger.db, "--budgets", BUDGETS, "--as-of",
                                  "2025-06-28", "--dry-run", "--limit", "3", status=3)
    # Expected from the unlimited call: its 3 largest findings, everything else as it is, and one
    # warning more that counts the other findings and sums their saving.
    rest = whole["waste"][3:]
    assert len(whole["waste"]) > 3 and rest
    assert cut["waste"] == whole["waste"][:3]
    assert {k: v for k, v in cut.items() if k not in ("waste", "warnings")} == \
        {k: v for k, v in whole.items() if k not in ("waste", "warnings")}
    assert cut["warnings"][:-1] == whole["warnings"]
    assert {w["currency"] for w in rest} == {"USD"}
    saving = sum(w["monthly_saving"] for w in rest)
    last = cut["warnings"][-1]
    prefix = "waste: the largest 3 of %d findings are listed (limit 3); the other %d save " % (
        len(whole["waste"]), len(rest))
    assert last.startswith(prefix) and last.endswith(" USD a month together"), last
    # The JSON's savings are rounded to cents; the warning sums them unrounded.
    assert abs(float(last[len(prefix):-len(" USD a month together")]) - saving) <= 0.005 * len(rest)
    # No limit, or one above the count, is the whole check.
    assert ledger.check(BUDGETS, as_of="2025-06-28", limit=len(whole["waste"]), frame=False) == whole
    for bad, error in ((-1, ValueError), (2.5, TypeError), ("3", TypeError), (True, TypeError)):
        with pytest.raises(error):
            ledger.check(BUDGETS, as_of="2025-06-28", limit=bad)


def test_check_forecast_path_as_rows(ledger):
    doc = ledger.check(BUDGETS, as_of="2025-06-28", frame=False)
    rows = doc.forecast_path(frame=False)
    assert len(rows) == sum(len(b["forecast"]["path"]) for b in doc["budgets"]) > 0
    one_day = datetime.timedelta(days=1)
    for b in doc["budgets"]:
        mine = [r for r in rows if r["budget"] == b["name"]]
        path = b["forecast"]["path"]
        assert [{k: r[k] for k in ("day", "expected", "low", "high")} for r in mine] == path
        assert all(r["period"] == b["period"] and r["currency"] == b["currency"] for r in mine)
        if not path:
            assert b["forecast"]["method"] == "actual"
            continue
        # One entry per day to the period's last, ascending, the last the period's forecast.
        days = [datetime.date.fromisoformat(r["day"]) for r in path]
        assert days == [days[0] + i * one_day for i in range(len(days))]
        assert days[-1] == datetime.date.fromisoformat(b["period_end"]) - one_day
        assert days[0] > datetime.date.fromisoformat(doc["data_through"])
        assert [path[-1][k] for k in ("expected", "low", "high")] == \
            [b["forecast"][k] for k in ("expected", "low", "high")]
        assert all(r["low"] <= r["expected"] <= r["high"] for r in path)
    pandas = pytest.importorskip("pandas")
    df = ledger.check(BUDGETS, as_of="2025-06-28").forecast_path()
    assert isinstance(df, pandas.DataFrame)
    assert list(df.columns) == ["budget", "period", "currency", "day", "expected", "low", "high"]
    assert df.to_dict("records") == rows
