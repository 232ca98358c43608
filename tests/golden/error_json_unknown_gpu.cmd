estimate tests/plans/bad_unknown_gpu.yaml -o json
exit 2
