ledger report --db {tmp}/l.db --by servce
exit 2
