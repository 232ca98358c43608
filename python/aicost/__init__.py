"""aicost from Python: what training or serving a large model will cost.

Every function returns what ``aicost ... -o json`` prints, as dicts and lists (the JSON the same
C++ code renders, parsed); docs/JSON_OUTPUT.md documents the fields. A plan is a path (``str`` or
``os.PathLike``), YAML text (a ``str`` with a line break) or a ``dict`` in the plan schema
(docs/PLAN_FORMAT.md). Errors raise ``aicost.Error`` subclasses; nothing exits or prints.

    import aicost
    est = aicost.estimate("examples/gpt3-175b-a100.yaml")
    print(est["cost"]["total_usd"])
"""

import os

from . import _native
from ._errors import (Error, InputError, NotFound, ParseError, IoError, Infeasible, OutOfMemory,
                      InternalError, _result)
from ._inputs import _catalogs, _source
from ._ledger import Ledger
from ._results import Chart, CheckResult, Result, _shown, frame

__all__ = [
    "estimate", "search", "reliability", "optimize", "diff", "validate", "catalog",
    "Error", "InputError", "NotFound", "ParseError", "IoError", "OutOfMemory", "Infeasible",
    "InternalError", "frame", "Ledger", "Result", "CheckResult", "Chart",
]

# The classes are aicost.X wherever they are defined (tracebacks, pickling, help()).
for _cls in (Error, InputError, NotFound, ParseError, IoError, Infeasible, OutOfMemory, InternalError,
             Chart, Result, CheckResult, Ledger):
    _cls.__module__ = __name__
del _cls


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
