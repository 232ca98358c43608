estimat
exit 2
