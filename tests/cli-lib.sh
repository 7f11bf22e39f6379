# Shared by the command-line test scripts (sourced): a scratch folder
# removed on exit, pass/fail counters, and a JSON number reader.
#   ok               count a check that passed
#   ko MESSAGE       count a failure and say why
#   num KEY FILE     the first number of "KEY" : N in a JSON file
#   median           the median of the numbers on standard input, one a line (nan: none)
#   finish NAME      print the closing line and exit with the verdict
#   expect STATUS PATTERN -- ARGS...
#                    dpscale ($bin) run with ARGS exits with STATUS, its stderr
#                    (stdout when STATUS is 0) matches the grep PATTERN, and an
#                    error is one line
#   leftovers        the emulated clusters (dps namespaces and links) whose id
#                    no live run holds: a dead run's, never a concurrent
#                    test's (each run holds its cluster's lock file)
#   plot_checks SCRIPT PNG MISSING
#                    a plots/ script's picture PNG is a PNG, and SCRIPT run on
#                    a build folder without MISSING refuses it in one line
#                    ("MISSING not built") and leaves no files
#   walk_setup BIN   the walks' set-up: a sweep CSV for plot ($tmp/s.csv) and the
#                    commands of BIN's --help, one a line ($tmp/commands)
#   walk_base CMD    the arguments a walked CMD needs besides the flag ($base)
#   torch_python     the python3 that imports torch.distributed ($DPS_PYTHON, else
#                    /usr/bin/python3, else python3), or exit 77 (skipped) with NAME's line
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok () { pass=$((pass + 1)); }
ko () { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
num () { sed -n "s/.*\"$1\" : \([-0-9.e+]*\).*/\1/p" "$2" | head -1; }
median () { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# leftovers: dps namespaces and links whose cluster id nobody holds (a dead run's)
leftovers () {
  { ip netns list 2>/dev/null | awk '{print $1}'; ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//'; } \
    | sed -n 's/^dpsb\{0,1\}\([0-9][0-9]*\)[nrp][0-9]*$/\1/p; s/^dpsb\([0-9][0-9]*\)$/\1/p' | sort -u | while read -r id; do
      lock=/run/dpscale-netemu-$id.lock
      [ -d /run ] || lock=/tmp/dpscale-netemu-$id.lock
      if [ ! -e "$lock" ]; then
        # numbered as before the locks (pid % 9000 + 100): another checkout's run, if such a dpscale lives
        for c in /proc/[0-9]*/comm; do
          p=${c#/proc/}; p=${p%/comm}
          [ $((p % 9000 + 100)) = "$id" ] && [ "$(cat "$c" 2>/dev/null)" = dpscale ] && continue 2
        done
        echo "cluster $id"
      elif flock -n "$lock" true; then echo "cluster $id"; fi
    done
}
plot_checks () {
  if [ "$(head -c 4 "$2" | od -An -c | tr -d ' ')" = "211PNG" ]; then ok; else ko "not a PNG"; fi
  mkdir "$tmp/empty"
  if sh "$1" "$tmp/empty" "$tmp/empty/x.png" 2> "$tmp/err"; then ko "a build without $3 accepted"; else ok; fi
  if [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "$3 not built" "$tmp/err"; then ok; else ko "error: $(cat "$tmp/err")"; fi
  if [ -z "$(ls "$tmp/empty")" ]; then ok; else ko "files left: $(ls "$tmp/empty")"; fi
}
expect () {
  want=$1 pattern=$2
  shift 3
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ "$got" -ne 0 ]; then text="$tmp/err"; else text="$tmp/out"; fi
  if [ "$got" -eq "$want" ] && { [ -z "$pattern" ] || grep -q -- "$pattern" "$text"; }; then
    ok
  else
    ko "dpscale $* -> exit $got (want $want), output:"
    head -5 "$text" >&2
  fi
  if [ "$got" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    ko "dpscale $*: error is not one line"
  fi
}
finish () {
  echo "$1: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit $?
}
walk_setup () {
  "$1" sweep --gpus 8,16 -o "$tmp/s" >/dev/null 2>&1
  [ -s "$tmp/s.csv" ] && ok || ko "no sweep CSV to plot"
  "$1" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }' >"$tmp/commands"
  [ "$(wc -l <"$tmp/commands")" -ge 9 ] && ok || ko "commands in dpscale --help: $(cat "$tmp/commands")"
}
walk_base () {
  case $1 in
    predict|advise|sweep) base="--gpus 8" ;;
    collective) base="-b 1M -e 1M" ;;
    plot) base="$tmp/s.csv" ;;
    *) base="" ;;
  esac
}
torch_python () {
  for p in ${DPS_PYTHON:-/usr/bin/python3 python3}; do
    if "$p" -c 'import torch.distributed' >/dev/null 2>&1; then echo "$p"; return 0; fi
  done
  echo "$1: no python3 here imports torch (Debian: apt-get install python3-torch); skipped" >&2
  exit 77
}
