estimate tests/plans/bad_out_of_memory.yaml -o json
exit 1
