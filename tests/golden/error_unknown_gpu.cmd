estimate tests/plans/bad_unknown_gpu.yaml
exit 2
