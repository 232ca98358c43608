calibrate tests/plans/calibrate-unknown-gpu.csv -o json
exit 2
