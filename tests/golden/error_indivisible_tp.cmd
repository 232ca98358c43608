estimate tests/plans/bad_indivisible_tp.yaml
exit 2
