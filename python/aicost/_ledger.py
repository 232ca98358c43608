"""``aicost.Ledger``: the cost ledger's commands (``aicost ledger``)."""

import operator
import os

from ._errors import Error, _raise, _result
from ._inputs import _catalogs, _day, _pairs
from ._results import CheckResult, _ledger_frame, _shown


def _calls():
    """The ledger's native module, imported on a ledger's first call: the libraries it loads
    (libpq, SQLite, libarchive, cpp-httplib) are most of an import's time, and planning does not
    need them (python/ledger_module.cc)."""
    from . import _native_ledger
    return _native_ledger


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
        reply = _calls().ledger_ingest(self.db, self.threads, self.lock_timeout, [os.fspath(p) for p in paths],
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
        result = _shown(_calls().ledger_report, args)
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
        rows = _result(_calls().ledger_sources(self.db, self.threads))
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
        page = _calls().ledger_check(*args, True) if not dry_run else None
        args[5] = dry_run
        result = CheckResult(_result(_calls().ledger_check(*args, False)),
                             (lambda: page) if page else (lambda: _calls().ledger_check(*args, True)))
        if frame is False:
            return result
        for key in ("budgets", "plans", "anomalies", "waste", "stop_losses"):
            if key in result:
                result[key] = _ledger_frame(result[key])
        return result
