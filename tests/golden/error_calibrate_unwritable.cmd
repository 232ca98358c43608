calibrate examples/calibration/blackwell-runs.csv --write tests/no-such-folder/my-profile.yaml
exit 1
