estimate tests/plans/bad_unknown_key.yaml
exit 2
