ledger ingest --db {tmp}/l.db tests/data/ledger/latin1-and-nul.csv
