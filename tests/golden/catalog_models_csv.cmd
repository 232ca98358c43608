catalog models -o csv
