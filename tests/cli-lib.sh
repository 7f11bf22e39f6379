# Shared by the command-line test scripts (sourced): a scratch folder
# removed on exit, pass/fail counters, and a JSON number reader.
#   ok               count a check that passed
#   ko MESSAGE       count a failure and say why
#   num KEY FILE     the first number of "KEY" : N in a JSON file
#   median           the median of the numbers on standard input, one a line (nan: none)
#   finish NAME      print the closing line and exit with the verdict
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok () { pass=$((pass + 1)); }
ko () { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
num () { sed -n "s/.*\"$1\" : \([-0-9.e+]*\).*/\1/p" "$2" | head -1; }
median () { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
finish () {
  echo "$1: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit $?
}
