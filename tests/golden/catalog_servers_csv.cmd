catalog servers -o csv
