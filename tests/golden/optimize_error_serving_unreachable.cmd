optimize tests/plans/serving_unreachable.yaml --emit-plan {tmp}/never.yaml
exit 1
