search tests/plans/search_small_infeasible.yaml -q -o json
exit 1
