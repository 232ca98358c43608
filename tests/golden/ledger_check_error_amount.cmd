ledger check --db {tmp}/l.db --budgets tests/data/governance/bad-amount.yaml
exit 2
