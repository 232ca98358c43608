estimate tests/plans/does-not-exist.yaml
exit 1
