ledger check --db {tmp}/l.db --budgets tests/data/governance/bad-scope.yaml
exit 2
