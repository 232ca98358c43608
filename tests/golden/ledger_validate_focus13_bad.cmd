ledger validate tests/data/ledger/focus-1.3-bad.csv
exit 1
