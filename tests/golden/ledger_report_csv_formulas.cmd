ledger report --db {tmp}/l.db --by resource_name,currency -o csv
setup ledger ingest --db {tmp}/l.db tests/data/ledger/formula-and-bad-row.csv
