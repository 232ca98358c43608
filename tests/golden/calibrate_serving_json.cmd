calibrate examples/calibration/hopper-serving-runs.csv -o json
