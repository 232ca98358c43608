ledger check --db {tmp}/l.db --budgets tests/data/governance/bad-parent.yaml
exit 2
