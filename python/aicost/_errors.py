"""The errors aicost raises: one class per ``-o json`` error code."""



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
