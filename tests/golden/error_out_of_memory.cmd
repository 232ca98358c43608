estimate tests/plans/bad_out_of_memory.yaml
exit 1
