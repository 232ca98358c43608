search tests/plans/search_small.yaml -o json
