"""aicost from Python: what training or serving a large model will cost.

Every function returns what ``aicost ... -o json`` prints, as dicts and lists (the JSON the same
C++ code renders, parsed); docs/JSON_OUTPUT.md documents the fields. A plan is a path (``str`` or
``os.PathLike``), YAML text (a ``str`` with a line break) or a ``dict`` in the plan schema
(docs/PLAN_FORMAT.md). Errors raise ``aicost.Error`` subclasses; nothing exits or prints.

    import aicost
    est = aicost.estimate("examples/gpt3-175b-a100.yaml")
    print(est["cost"]["total_usd"])
"""

import operator
import os

from . import _native

__all__ = [
    "estimate", "search", "reliability", "optimize", "diff", "validate", "catalog",
    "Error", "InputError", "NotFound", "ParseError", "IoError", "OutOfMemory", "Infeasible",
    "InternalError", "frame", "Ledger", "Result", "CheckResult", "Chart",
]


class Error(Exception):
    """A failure aicost reported. ``code`` is the machine name of ``-o json`` errors
    ("invalid_input", "not_found", ...); ``message`` says what is wrong and what to do;
    ``file``, ``line`` and ``col`` say where in an input file, when known (else None)."""

    def __init__(self, info):
        self.code = info.get("code")
        self.message = info.get("message", "")
        self.context = info.get("context", "")
        self.file = info.get("file")
        self.line = info.get("line")
        self.col = info.get("column")
        self.excerpt = info.get("excerpt", "")
        super().__init__(info.get("text", self.message))


class InputError(Error):
    """A value in an input is wrong (an unknown key, a number without its unit, a bad layout)."""


class NotFound(InputError):
    """A named entry (GPU, model, instance) is not in the catalog."""


class ParseError(InputError):
    """An input is not well-formed YAML, JSON or CSV."""


class IoError(Error, OSError):
    """A file cannot be read or written."""


class Infeasible(Error):
    """The plan is well-formed but cannot run."""


class OutOfMemory(Infeasible):
    """The plan does not fit in GPU memory; the message lists what would fit."""


class InternalError(Error):
    """A bug in aicost; please report it with the plan that caused it."""


_BY_CODE = {
    "invalid_input": InputError,
    "not_found": NotFound,
    "parse_error": ParseError,
    "io_error": IoError,
    "infeasible": Infeasible,
    "internal_error": InternalError,
}


def _raise(info):
    cls = _BY_CODE.get(info.get("code"), Error)
    if cls is Infeasible and "does not fit in GPU memory" in info.get("message", ""):
        cls = OutOfMemory
    if info.get("code") == "cancelled":
        raise KeyboardInterrupt(info.get("message", "cancelled"))
    raise cls(info)


def _result(reply):
    """The value of a native call's reply (its JSON already as dicts and lists), or its error raised."""
    if not reply[0]:
        _raise(reply[1])
    return reply[1]


def _source(plan, what="<plan>"):
    """(text, origin, base_dir) of a plan given as a path, YAML text or a dict."""
    if isinstance(plan, dict):
        # JSON is YAML: the dict goes in as it is, keys and values as given.
        import json
        return json.dumps(plan), "<dict>", os.getcwd()
    if isinstance(plan, os.PathLike) or (isinstance(plan, str) and "\n" not in plan):
        reply = _native.plan_file(os.fspath(plan))
        if not reply[0]:
            _raise(reply[1])
        return reply[1], reply[2], reply[3]
    if isinstance(plan, str):
        return plan, what, os.getcwd()
    raise TypeError("a plan is a path, YAML text or a dict, not " + type(plan).__name__)


def _catalogs(catalog):
    if catalog is None:
        return []
    if isinstance(catalog, (str, os.PathLike)):
        return [os.fspath(catalog)]
    return [os.fspath(c) for c in catalog]


class Chart(dict):
    """One chart of a result: its Vega-Lite spec (a dict, the JSON the ``-o html`` page draws) and
    its ``title``. A notebook draws it: the mime bundle carries the spec as Vega-Lite 6 (the version
    the page embeds) and, with only its "$schema" changed, as Vega-Lite 5 for frontends that render
    that one (JupyterLab 4)."""

    def __init__(self, title, spec):
        super().__init__(spec)
        self.title = title

    def __repr__(self):
        return "<aicost.Chart %r>" % self.title

    def _repr_mimebundle_(self, include=None, exclude=None):
        v5 = dict(self)
        v5["$schema"] = "https://vega.github.io/schema/vega-lite/v5.json"
        return {"application/vnd.vegalite.v6+json": dict(self), "application/vnd.vegalite.v5+json": v5,
                "text/plain": repr(self)}


def _page_parts(page):
    """(title, [Chart], figures) of an ``-o html`` page (report/html.h's html_page): the specs
    are the JSON array of the script "aicost-specs" ("<\\/" in it is JSON for "/"), each chart's
    title the <h2> before its <div>, the figures the HTML-escaped table in <pre>."""
    import html
    import json
    import re
    title = html.unescape(page[page.index("<title>") + 7:page.index("</title>")])
    start = page.index('<script type="application/json" id="aicost-specs">')
    specs = json.loads(page[page.index(">", start) + 1:page.index("</script>", start)])
    body = page[page.index("<body>"):start]
    titles = [html.unescape(t) for t in re.findall(r'<h2>(.*?)</h2>\n<div class="chart" id="chart-\d+">', body)]
    mark = "<h2>Figures</h2>\n<pre>"
    figures = body[body.index(mark) + len(mark):body.rindex("</pre>")]
    return title, [Chart(t, spec) for t, spec in zip(titles, specs)], figures


class Result(dict):
    """What a command returns: the dict of its ``-o json`` output, which a notebook shows as the
    command's table (``_repr_html_``); ``charts()`` gives its charts as Vega-Lite specs. The table
    and the charts come from the command's ``-o html`` page, made when first asked for (the
    command runs again, with the same inputs)."""

    def __init__(self, doc, page):
        super().__init__(doc)
        self._page = page
        self._parts = None

    def _display(self):
        if self._parts is None:
            reply = self._page()
            if not reply[0]:
                _raise(reply[1])
            self._parts = _page_parts(reply[1].decode("utf-8"))
        return self._parts

    def charts(self):
        """The charts of the result, each a Chart (a Vega-Lite spec a notebook draws)."""
        return list(self._display()[1])

    def _repr_html_(self):
        import html
        title, _, figures = self._display()
        return "<div class=\"aicost\"><strong>%s</strong><pre>%s</pre></div>" % (html.escape(title), figures)


class CheckResult(Result):
    """``Ledger.check``'s Result, with each budget's forecast path as rows."""

    def __init__(self, doc, page):
        super().__init__(doc, page)
        # Taken from the JSON before its lists become DataFrames.
        self._path = [dict(budget=b["name"], period=b["period"], currency=b["currency"], **day)
                      for b in doc.get("budgets", []) for day in b["forecast"]["path"]]

    def forecast_path(self, *, frame=None):
        """Each budget's forecast day by day (``forecast.path`` of the JSON, docs/JSON_OUTPUT.md):
        one row per budget and predicted day, {budget, period, currency, day, expected, low,
        high}, ``expected`` the period's total up to the end of ``day`` and [low, high] its
        interval, in the budget's currency. A DataFrame when pandas is installed (and ``frame``
        is not False), else a list of dicts."""
        rows = [dict(r) for r in self._path]
        return rows if frame is False else _ledger_frame(rows)


def _shown(call, args):
    """``call(*args)``'s JSON as a Result whose display runs ``call`` again for its page."""
    return Result(_result(call(*args, False)), lambda: call(*args, True))


def estimate(plan, *, allow_oom=False, simulate=0, seed=1, conservative=False, catalog=None):
    """``aicost estimate``: a training plan (time, MFU, memory, cost) or a serving plan (replicas,
    latency, monthly cost). Raises OutOfMemory when a training plan does not fit, unless
    ``allow_oom``. ``simulate``: Monte-Carlo runs of wall time and cost (with ``seed``)."""
    text, origin, base = _source(plan)
    args = (text, origin, base, _catalogs(catalog), allow_oom, simulate, seed, conservative)
    return _shown(_native.estimate, args)


def diff(a, b, *, catalog=None):
    """``aicost diff``: what changes from plan ``a`` to ``b`` (two training or two serving plans): every input that differs and what it does to time and money."""
    ta, oa, da = _source(a, "<a>")
    tb, ob, db = _source(b, "<b>")
    return _shown(_native.diff, (ta, oa, da, tb, ob, db, _catalogs(catalog)))


def _progress_bar(share):
    import sys
    filled = int(share * 30)
    sys.stderr.write("\rsearching [%s%s] %3.0f %%" % ("#" * filled, "." * (30 - filled), share * 100))
    if share >= 1:
        sys.stderr.write("\n")
    sys.stderr.flush()


def search(plan, threads=None, progress=False, *, top=0, objective=None, catalog=None):
    """``aicost search``: the cheapest (or fastest, ``objective="fastest"``, or ``"best-mfu"``)
    layouts of a plan whose fields may be left out, listed or ranged. ``threads``: worker threads
    (None: every core). ``progress``: True draws a bar on stderr, or a callable gets the share done
    (0..1). The GIL is released while it runs; Ctrl-C stops it and raises KeyboardInterrupt."""
    text, origin, base = _source(plan)
    callback = _progress_bar if progress is True else (progress or None)
    args = (text, origin, base, _catalogs(catalog), top, objective or "", threads or 0)
    doc = _result(_native.search(*args, callback, False))
    return Result(doc, lambda: _native.search(*args, None, True))


def reliability(plan, simulate=0, seed=1, *, threads=None, spares=True, catalog=None):
    """``aicost reliability``: failures, checkpoints, restarts and spares of a training plan.
    ``simulate``: Monte-Carlo runs (0: the closed forms only)."""
    text, origin, base = _source(plan)
    return _shown(_native.reliability, (text, origin, base, _catalogs(catalog), simulate, seed, threads or 0, spares))


def optimize(plan, guardrails=None, *, threads=None, catalog=None):
    """``aicost optimize``: what to change in a training or serving plan, what it saves and risks.
    ``guardrails``: red lines as a path, YAML text or dict (docs/OPTIMIZE.md)."""
    text, origin, base = _source(plan)
    g_text, g_origin = None, ""
    if guardrails is not None:
        g_text, g_origin, _ = _source(guardrails, "<guardrails>")
    return _shown(_native.optimize, (text, origin, base, _catalogs(catalog), g_text, g_origin, threads or 0))


def _rows(reply, frame_wanted):
    rows = _result(reply)
    return frame(rows) if frame_wanted is not False else rows


def validate(csv, cv=False, *, catalog=None):
    """``aicost validate``: the model against measured runs (docs/VALIDATION.md); ``cv``
    cross-validates."""
    return _shown(_native.validate, (os.fspath(csv), cv, _catalogs(catalog)))


def frame(rows):
    """A pandas.DataFrame of a list of dicts when pandas is installed, else the list itself."""
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)


class catalog:  # noqa: N801  (a namespace, as in `aicost.catalog.gpus()`)
    """The GPUs, instances, model presets and servers aicost knows (``aicost catalog``), as a
    pandas.DataFrame when pandas is installed (``frame=False``: a list of dicts)."""

    @staticmethod
    def gpus(*, frame=None, catalog=None):
        return _rows(_native.catalog("gpus", _catalogs(catalog)), frame)

    @staticmethod
    def instances(*, frame=None, catalog=None):
        return _rows(_native.catalog("instances", _catalogs(catalog)), frame)

    @staticmethod
    def models(*, frame=None, catalog=None):
        return _rows(_native.catalog("models", _catalogs(catalog)), frame)

    @staticmethod
    def servers(*, frame=None, catalog=None):
        return _rows(_native.catalog("servers", _catalogs(catalog)), frame)


# Money in the ledger's JSON is exact decimal text; a DataFrame holds it as float64 columns.
_MONEY_COLUMNS = ("billed", "effective", "list", "contracted", "amount", "spent")


def _ledger_frame(rows):
    df = frame(rows)
    if df is rows:
        return rows
    import pandas
    for column in _MONEY_COLUMNS:
        if column in df.columns and df[column].map(lambda v: isinstance(v, str)).all():
            df[column] = pandas.to_numeric(df[column])
    return df


def _pairs(value, each=True):
    """["K=V", ...] from a list of "K=V" strings or a dict; a dict's list value gives one pair per
    item (``each``, filters: one dimension's values OR) or one "K=A,B" (aliases)."""
    if value is None:
        return []
    if not isinstance(value, dict):
        return [str(v) for v in value]
    out = []
    for key, v in value.items():
        if not isinstance(v, (list, tuple)):
            out.append("%s=%s" % (key, v))
        elif each:
            out.extend("%s=%s" % (key, x) for x in v)
        else:
            out.append("%s=%s" % (key, ",".join(v)))
    return out


def _day(value):
    """YYYY-MM-DD text of a date, a datetime or a string; "" for None."""
    if value is None:
        return ""
    if hasattr(value, "isoformat"):
        return value.isoformat()[:10]
    return str(value)


class Ledger:
    """The cost ledger (``aicost ledger``, docs/LEDGER.md): a SQLite file or a PostgreSQL
    connection string, as ``--db``. Each call opens it, works without the GIL and closes it, and
    returns what ``aicost ledger ... -o json`` prints.

        lab = aicost.Ledger("lab.db")
        lab.ingest("examples/ledger/focus-ai-lab-2025-06.csv")
        lab.report(by=["tag:team"])          # a DataFrame of the lines (frame=False: the JSON)
    """

    def __init__(self, db, *, threads=None, lock_timeout="10min"):
        self.db = os.fspath(db)
        self.threads = threads or 0
        self.lock_timeout = lock_timeout

    def __repr__(self):
        return "aicost.Ledger(%r)" % self.db

    def ingest(self, path, *, format="auto", rate_card=None, replace=False, restate=False, export=None,
               catalog=None):
        """``aicost ledger ingest``: load billing exports, usage or telemetry (a path, or a list of
        them, each its own transaction; makes the ledger when it is missing). Returns the file's
        result (a list of them for a list). A file that fails does not stop the ones after it: the
        first failure is raised once all were tried, with ``.ingested`` holding the results of
        those that loaded."""
        paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
        reply = _native.ledger_ingest(self.db, self.threads, self.lock_timeout, [os.fspath(p) for p in paths],
                                      format, os.fspath(rate_card) if rate_card else "", _catalogs(catalog),
                                      replace, restate, export or "")
        if not reply[0]:
            _raise(reply[1])
        results, failure = [], None
        for _, ok, value in reply[1]:
            if ok:
                results.append(value)
            elif failure is None:
                failure = value
        if failure is not None:
            try:
                _raise(failure)
            except Error as e:
                e.ingested = results
                raise
        return results[0] if isinstance(path, (str, os.PathLike)) else results

    def report(self, by=(), *, from_=None, to=None, granularity="total", top=0, filters=None, aliases=None,
               useful=False, frame=None):
        """``aicost ledger report``: cost by dimensions and tags (``by``: names as ``--by``, e.g.
        ["tag:team", "service"]) over ``from_`` (first day) .. ``to`` (first day left out), per
        ``granularity`` (total, day, week, month). ``filters``: {"tag:team": "ml"} or
        ["tag:team=ml"]; ``aliases``: {"team": ["owner"]}. With pandas (and ``frame`` not False) a
        DataFrame of the lines, money as floats, the query in ``.attrs``; else the JSON."""
        if isinstance(by, str):
            by = [by]
        args = (self.db, self.threads, ",".join(by), _day(from_), _day(to), granularity, top, _pairs(filters),
                _pairs(aliases, each=False), useful)
        result = _shown(_native.ledger_report, args)
        if frame is False:
            return result
        df = _ledger_frame(result["lines"])
        if df is result["lines"]:
            return result
        df.attrs.update({k: v for k, v in result.items() if k != "lines"})
        return df

    def sources(self, *, frame=None):
        """``aicost ledger sources``: each file loaded, its format, rows and totals (a DataFrame
        with pandas unless ``frame`` is False)."""
        rows = _result(_native.ledger_sources(self.db, self.threads))
        return rows if frame is False else _ledger_frame(rows)

    def check(self, budgets, as_of=None, dry_run=True, *, strict=False, stale_after_days=3, limit=0,
              frame=None):
        """``aicost ledger check``: budgets (a YAML file, docs/GOVERNANCE.md), forecasts, anomalies
        and waste as of ``as_of`` (a date or YYYY-MM-DD; None: today, UTC). ``dry_run`` (the
        default) sends and remembers nothing; False records the alerts that are new as sent, as
        the CLI does without a webhook. ``limit``: as ``--limit``, only the N largest waste
        findings, and a last warning counting the rest (0: all). ``gate_failed`` in the result is
        what the CLI's exit 3 says. With pandas (and ``frame`` not False) the lists of findings
        (budgets, plans, anomalies, waste, stop_losses) are DataFrames. ``forecast_path()`` of the
        result gives each budget's forecast day by day."""
        if isinstance(limit, bool):
            raise TypeError("limit is a count of waste findings (0: all), not %r" % (limit,))
        limit = operator.index(limit)  # TypeError for 2.5 or "3"
        if limit < 0:
            raise ValueError("limit is a count of waste findings (0: all), not %d" % limit)
        args = [self.db, self.threads, self.lock_timeout, os.fspath(budgets), _day(as_of), True, strict,
                stale_after_days, limit]
        # The display shows the check as it was made: a real one (alerts recorded) is drawn from a
        # dry run just before it, which sees the same alerts as new.
        page = _native.ledger_check(*args, True) if not dry_run else None
        args[5] = dry_run
        result = CheckResult(_result(_native.ledger_check(*args, False)),
                             (lambda: page) if page else (lambda: _native.ledger_check(*args, True)))
        if frame is False:
            return result
        for key in ("budgets", "plans", "anomalies", "waste", "stop_losses"):
            if key in result:
                result[key] = _ledger_frame(result[key])
        return result

