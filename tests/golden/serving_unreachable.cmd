estimate tests/plans/serving_unreachable.yaml
exit 1
