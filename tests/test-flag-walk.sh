#!/bin/sh
# Every value flag of every command (read from each command's --help, so a
# new flag is walked the day it is added), given the values no flag takes:
# -1, NaN, '' and junk.  Each is refused before any work with exit 2 and
# one line naming the flag (a path that names no file: exit 1 and one
# line naming the path), or, where the flag does take it, the command
# finishes with exit 0.  Never a crash, a second line, a hang, or work
# started (run, calibrate and validate would run for minutes).  Infinity,
# 1e400, a number past a range, blanks and lists with an empty entry are
# parsed by the same checks (dps_cli_int_given, dps_cli_double_given,
# dps_cli_split_list, the empty-value check of dps_cli_parse) and are
# test-bad-inputs.sh's; output paths are test-outputs.sh's.  Each value
# costs a start of dpscale (about 0.1 s: CUDA's libraries load).
# Usage: test-flag-walk.sh DPSCALE_BINARY
set -u
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
. "$(dirname "$0")/cli-lib.sh"

walk_setup "$bin"
hostile='-1|nan||junk'
cases=0
for cmd in $(cat "$tmp/commands"); do
  walk_base "$cmd"
  "$bin" "$cmd" --help >"$tmp/help" 2>&1
  # "  -x, --flag=METAVAR   text": the long name, its short one, the metavar
  sed -n 's/^ *\(-\([A-Za-z]\), \)\{0,1\}--\([a-z0-9_-]*\)=\([^ ]*\).*/\3 \2 \4/p' "$tmp/help" >"$tmp/flags"
  [ -s "$tmp/flags" ] && ok || ko "$cmd: no value flags in --help"
  while read -r flag short meta; do
    [ -n "$meta" ] || { meta=$short; short=; }
    case $flag in output|trace|plot|save-params) continue ;; esac
    case $meta in *FILE*|*LOG*|*SCRIPT*) file=yes ;; *) file=no ;; esac
    old_ifs=$IFS
    IFS='|'
    for v in $hostile; do
      IFS=$old_ifs
      cases=$((cases + 1))
      # shellcheck disable=SC2086
      (cd "$tmp" && timeout 60 "$bin" "$cmd" $base "--$flag=$v" >"$tmp/out" 2>"$tmp/err")
      got=$?
      n=$(wc -l <"$tmp/err")
      named=no
      grep -q -- "--$flag\b" "$tmp/err" && named=yes
      [ -n "$short" ] && grep -q -- "-$short\b" "$tmp/err" && named=yes
      [ $file = yes ] && [ -n "$v" ] && grep -qF -- "$v" "$tmp/err" && named=yes
      if [ $got = 0 ] || { { [ $got = 2 ] || { [ $got = 1 ] && [ $file = yes ]; }; } && [ "$n" = 1 ] && [ $named = yes ]; }; then ok
      else ko "dpscale $cmd $base --$flag='$v' -> exit $got, $n lines: $(head -c 300 "$tmp/err" | tr '\n' '|')"; fi
      rm -rf "$tmp"/dpscale-* 2>/dev/null
      IFS='|'
    done
    IFS=$old_ifs
  done <"$tmp/flags"
done
echo "flag-walk: $cases flag values walked"
[ $cases -gt 500 ] && ok || ko "only $cases flag values walked"
finish flag-walk
