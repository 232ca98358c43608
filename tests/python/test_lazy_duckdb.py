"""The package loads the ledger's libraries only when a ledger is used, and DuckDB's only when a
Parquet file is read (python/ledger_module.cc, python/duckdb_lazy.cc): `import aicost` and an
estimate leave libpq, libarchive, cpp-httplib, SQLite and DuckDB out of the process; an ingest of a
CSV loads the ledger's but not DuckDB's; one of Parquet loads DuckDB's and reads the same rows as
the CSV the file was written from.

The Parquet file is written by DuckDB itself (through ctypes, in another process), from the FOCUS
sample of examples/governance, into a TemporaryDirectory removed after the test."""

import os
import subprocess
import sys
import tempfile

CSV = "examples/governance/focus-ai-lab-2025-05-06.csv"
DUCKDB = os.environ.get("AICOST_DUCKDB_LIB", "")

WRITE_PARQUET = r"""
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
db, con = ctypes.c_void_p(), ctypes.c_void_p()
assert lib.duckdb_open(None, ctypes.byref(db)) == 0
assert lib.duckdb_connect(db, ctypes.byref(con)) == 0
sql = "COPY (FROM read_csv('%s', all_varchar = true)) TO '%s' (FORMAT parquet)" % (sys.argv[2], sys.argv[3])
assert lib.duckdb_query(con, sql.encode(), None) == 0, sql
"""

INGEST = r"""
import json, sys
import aicost
def loaded():
    with open("/proc/self/maps") as f:
        maps = f.read()
    return sorted(lib for lib in ("libduckdb", "libpq", "libarchive", "libcpp-httplib", "libsqlite3") if lib in maps)
aicost.estimate("examples/gpt3-175b-a100.yaml")
planning = loaded()
lab = aicost.Ledger(sys.argv[2])
csv = lab.ingest(sys.argv[3])
ledger = loaded()
parquet = lab.ingest(sys.argv[1])
print(json.dumps({"planning": planning, "ledger": ledger, "parquet_read": loaded(), "parquet": parquet, "csv": csv}))
"""


def test_ledger_libraries_load_with_a_ledger_and_duckdb_for_parquet_only():
    assert os.path.isfile(DUCKDB), "AICOST_DUCKDB_LIB names libduckdb.so (set by tests/CMakeLists.txt)"
    with tempfile.TemporaryDirectory() as d:
        parquet = os.path.join(d, "focus.parquet")
        subprocess.run([sys.executable, "-c", WRITE_PARQUET, DUCKDB, CSV, parquet], check=True)
        out = subprocess.run([sys.executable, "-c", INGEST, parquet, os.path.join(d, "lab.db"), CSV], check=True,
                             capture_output=True)
        import json
        got = json.loads(out.stdout)
    assert got["planning"] == []
    assert got["ledger"] == ["libarchive", "libcpp-httplib", "libpq", "libsqlite3"]
    assert got["parquet_read"] == ["libarchive", "libcpp-httplib", "libduckdb", "libpq", "libsqlite3"]
    assert got["parquet"]["outcome"] == "loaded"
    assert got["parquet"]["source"]["format"].startswith("focus")
    # As many records as the CSV they were written from.
    assert got["parquet"]["records"] == got["csv"]["records"] > 0
