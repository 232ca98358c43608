calibrate examples/calibration/blackwell-runs.csv
