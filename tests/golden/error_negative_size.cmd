estimate tests/plans/bad_negative_size.yaml
exit 2
