#!/bin/sh
# The numeric flags' declarations (sim/app/cli-flags.c, printed by
# `dpscale --flags`) walked over every command that lists the flag in its
# --help: for each, the values its range refuses -- just below the lowest
# (or the lowest itself where it is excluded), just above the highest, the
# largest int and one past it, the smallest int (the sentinel an int flag
# starts at: given, a value), a fraction for a whole number, NaN, inf,
# -inf, 1e400, '' and junk -- are refused before any work with exit 2 and
# one line naming the flag.  Generated from the table, so a flag declared
# tomorrow is walked tomorrow; a command whose numeric option has no
# declaration aborts (dps_cli_flags_expect), which fails here too.
# Usage: test-flag-ranges.sh DPSCALE_BINARY
set -u
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
. "$(dirname "$0")/cli-lib.sh"

walk_setup "$bin"
"$bin" --flags >"$tmp/decls" || ko "dpscale --flags failed"
[ "$(grep -vc '^#' "$tmp/decls")" -ge 30 ] && ok || ko "only $(grep -vc '^#' "$tmp/decls") declarations"

# the refused values of one declaration, one a line ('' as an empty line)
refused () {
  awk -F'\t' -v lo="$2" -v hi="$3" -v open="$4" -v whole="$5" 'BEGIN {
    if (whole) { print lo - 1; print lo + 0.5 } else print (open ? lo : lo - (lo > 1 || lo < -1 ? 1e-6 * (lo < 0 ? -lo : lo) : 1e-6))
    if (whole && hi >= 2147483647) print "2147483648"   # past an int
    else print (whole ? hi + 1 : hi * 2 + 1)
    if (whole && hi < 2147483647) print "2147483647"
    if (whole) print "-2147483648"   # an int flag'"'"'s sentinel for "not given", given
    print "nan"; print "inf"; print "-inf"; print "1e400"; print ""; print "junk"
  }' </dev/null
}

cases=0
walked=0
for cmd in $(cat "$tmp/commands"); do
  walk_base "$cmd"
  "$bin" "$cmd" --help >"$tmp/help" 2>&1
  grep -v '^#' "$tmp/decls" >"$tmp/rows"
  while IFS="$(printf '\t')" read -r flag lo hi open whole unit; do
    grep -q -- "  $flag=\| $flag=" "$tmp/help" || continue
    echo "$cmd $flag" >>"$tmp/walked"
    refused "$flag" "$lo" "$hi" "$open" "$whole" >"$tmp/values"
    while IFS= read -r v; do
      echo x >>"$tmp/count"
      # shellcheck disable=SC2086
      (cd "$tmp" && timeout 60 "$bin" "$cmd" $base "$flag=$v" >"$tmp/out" 2>"$tmp/err")
      got=$?
      n=$(wc -l <"$tmp/err")
      if [ $got = 2 ] && [ "$n" = 1 ] && grep -q -- "$flag\b" "$tmp/err"; then ok
      else ko "dpscale $cmd $base $flag='$v' -> exit $got, $n lines: $(head -c 300 "$tmp/err" | tr '\n' '|')"; fi
      rm -rf "$tmp"/dpscale-* 2>/dev/null
    done <"$tmp/values"
  done <"$tmp/rows"
done
cases=$(wc -l <"$tmp/count" 2>/dev/null || echo 0)
walked=$(wc -l <"$tmp/walked" 2>/dev/null || echo 0)
echo "flag-ranges: $cases values over $walked command flags"
# every declaration appears in some command, and the walk is not empty
for flag in $(grep -v '^#' "$tmp/decls" | cut -f1); do
  if grep -q " $flag\$" "$tmp/walked"; then ok; else ko "$flag: declared, in no command's --help"; fi
done
[ "$cases" -gt 500 ] && ok || ko "only $cases values walked"
finish flag-ranges
