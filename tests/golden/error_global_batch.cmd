estimate tests/plans/bad_global_batch.yaml
exit 2
