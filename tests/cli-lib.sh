# Shared by the command-line test scripts (sourced): a scratch folder
# removed on exit, pass/fail counters, and a JSON number reader.
#   ok               count a check that passed
#   ko MESSAGE       count a failure and say why
#   num KEY FILE     the first number of "KEY" : N in a JSON file
#   median           the median of the numbers on standard input, one a line (nan: none)
#   finish NAME      print the closing line and exit with the verdict
#   plot_checks SCRIPT PNG MISSING
#                    a plots/ script's picture PNG is a PNG, and SCRIPT run on
#                    a build folder without MISSING refuses it in one line
#                    ("MISSING not built") and leaves no files
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok () { pass=$((pass + 1)); }
ko () { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
num () { sed -n "s/.*\"$1\" : \([-0-9.e+]*\).*/\1/p" "$2" | head -1; }
median () { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
plot_checks () {
  if [ "$(head -c 4 "$2" | od -An -c | tr -d ' ')" = "211PNG" ]; then ok; else ko "not a PNG"; fi
  mkdir "$tmp/empty"
  if sh "$1" "$tmp/empty" "$tmp/empty/x.png" 2> "$tmp/err"; then ko "a build without $3 accepted"; else ok; fi
  if [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "$3 not built" "$tmp/err"; then ok; else ko "error: $(cat "$tmp/err")"; fi
  if [ -z "$(ls "$tmp/empty")" ]; then ok; else ko "files left: $(ls "$tmp/empty")"; fi
}
finish () {
  echo "$1: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit $?
}
