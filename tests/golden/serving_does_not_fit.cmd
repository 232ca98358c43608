estimate tests/plans/serving_does_not_fit.yaml
exit 1
