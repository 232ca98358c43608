"""Inputs as the native calls take them: a plan as text with its origin, catalogs as paths, filters
as "K=V" pairs, days as YYYY-MM-DD."""

import os

from . import _native
from ._errors import _raise


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
