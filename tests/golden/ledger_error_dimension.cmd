ledger report --db @TMP@/l.db --by servce
exit 2
