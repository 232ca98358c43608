search tests/plans/search_small_infeasible.yaml -q
exit 1
