"""What the calls return: dicts of the ``-o json`` output that a notebook shows as tables and
charts, and DataFrames of their lists when pandas is installed."""

from ._errors import _raise, _result


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


def frame(rows):
    """A pandas.DataFrame of a list of dicts when pandas is installed, else the list itself."""
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)


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
