ledger ingest --db {tmp}/l.db tests/data/ledger/formula-and-bad-row.csv --strict
exit 4
