estimate tests/plans/bad_unitless_number.yaml
exit 2
