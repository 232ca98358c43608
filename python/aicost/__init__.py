"""aicost from Python: what training or serving a large model will cost.

Every function returns what ``aicost ... -o json`` prints, as dicts and lists (the JSON the same
C++ code renders, parsed); docs/JSON_OUTPUT.md documents the fields. A plan is a path (``str`` or
``os.PathLike``), YAML text (a ``str`` with a line break) or a ``dict`` in the plan schema
(docs/PLAN_FORMAT.md). Errors raise ``aicost.Error`` subclasses; nothing exits or prints.

    import aicost
    est = aicost.estimate("examples/gpt3-175b-a100.yaml")
    print(est["cost"]["total_usd"])
"""

import json
import os

from . import _native

__all__ = [
    "estimate", "search", "reliability", "optimize", "diff", "validate", "catalog",
    "Error", "InputError", "NotFound", "ParseError", "IoError", "OutOfMemory", "Infeasible",
    "InternalError", "frame",
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
    if not reply[0]:
        _raise(reply[1])
    return json.loads(reply[1])


def _source(plan, what="<plan>"):
    """(text, origin, base_dir) of a plan given as a path, YAML text or a dict."""
    if isinstance(plan, dict):
        # JSON is YAML: the dict goes in as it is, keys and values as given.
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


def estimate(plan, *, allow_oom=False, simulate=0, seed=1, conservative=False, catalog=None):
    """``aicost estimate``: a training plan (time, MFU, memory, cost) or a serving plan (replicas,
    latency, monthly cost). Raises OutOfMemory when a training plan does not fit, unless
    ``allow_oom``. ``simulate``: Monte-Carlo runs of wall time and cost (with ``seed``)."""
    text, origin, base = _source(plan)
    return _result(_native.estimate(text, origin, base, _catalogs(catalog), allow_oom, simulate, seed,
                                    conservative))


def diff(a, b, *, catalog=None):
    """``aicost diff``: what changes from plan ``a`` to ``b`` (two training or two serving plans): every input that differs and what it does to time and money."""
    ta, oa, da = _source(a, "<a>")
    tb, ob, db = _source(b, "<b>")
    return _result(_native.diff(ta, oa, da, tb, ob, db, _catalogs(catalog)))


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
    return _result(_native.search(text, origin, base, _catalogs(catalog), top, objective or "",
                                  threads or 0, callback))


def reliability(plan, simulate=0, seed=1, *, threads=None, spares=True, catalog=None):
    """``aicost reliability``: failures, checkpoints, restarts and spares of a training plan.
    ``simulate``: Monte-Carlo runs (0: the closed forms only)."""
    text, origin, base = _source(plan)
    return _result(_native.reliability(text, origin, base, _catalogs(catalog), simulate, seed, threads or 0,
                                       spares))


def optimize(plan, guardrails=None, *, threads=None, catalog=None):
    """``aicost optimize``: what to change in a training or serving plan, what it saves and risks.
    ``guardrails``: red lines as a path, YAML text or dict (docs/OPTIMIZE.md)."""
    text, origin, base = _source(plan)
    g_text, g_origin = None, ""
    if guardrails is not None:
        g_text, g_origin, _ = _source(guardrails, "<guardrails>")
    return _result(_native.optimize(text, origin, base, _catalogs(catalog), g_text, g_origin, threads or 0))


def _rows(reply, frame_wanted):
    rows = _result(reply)
    return frame(rows) if frame_wanted is not False else rows


def validate(csv, cv=False, *, catalog=None):
    """``aicost validate``: the model against measured runs (docs/VALIDATION.md); ``cv``
    cross-validates."""
    return _result(_native.validate(os.fspath(csv), cv, _catalogs(catalog)))


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
