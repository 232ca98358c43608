ledger validate tests/data/ledger/focus-1.3-contract-commitment.csv
