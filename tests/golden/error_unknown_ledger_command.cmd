ledger repot
exit 2
