ledger
exit 2
