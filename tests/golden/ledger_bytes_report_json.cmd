ledger report --db {tmp}/l.db --by resource_name -o json
setup ledger ingest --db {tmp}/l.db tests/data/ledger/latin1-and-nul.csv
