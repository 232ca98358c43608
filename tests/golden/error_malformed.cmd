estimate tests/plans/bad_malformed.yaml
exit 2
