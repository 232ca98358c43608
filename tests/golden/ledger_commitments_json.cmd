ledger commitments --db {tmp}/l.db -o json
setup ledger ingest --db {tmp}/l.db tests/data/ledger/focus-1.3-contract-commitment.csv
