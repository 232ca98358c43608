ledger validate ../shared/data/billing-samples/focus-sample-data/focus_sample.csv
exit 1
