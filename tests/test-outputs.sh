#!/bin/sh
# No output replaces an input, and no output path a command cannot write
# is taken: a walk of every output flag of every command, generated from
# 'dpscale --help' and each command's --help (an option of a FILE or
# PREFIX that writes, draws or prefixes), each given
#   - the path of a file the same command reads as an input,
#   - that input by another name (a symlink, a hard link),
#   - an empty path, a path in a missing folder, a name ending in .pdf
#     (which no flag writes),
# and for a flag that also writes beside its file (calibrate's .csv), the
# input under that name.  Each is refused with exit status 2 and one line
# naming the flag and the path, before any work; the input is unchanged
# (checksum before and after) and nothing new is left in the folder.  A
# FILE option that is neither a known input nor recognised as an output
# fails the walk, so that a new one is classified here.
# Usage: test-outputs.sh DPSCALE_BINARY
set -u
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli-lib.sh"
d=$tmp/d
mkdir "$d"

# the inputs each command reads, by kind, and how it is run on one (@IN@),
# and for a prefix flag the first file it writes under the prefix
fixture () {   # fixture CMD FLAG: sets args, kind, suffix; fails for a command without one
  suffix=""
  case $1 in
    predict|advise) args="--gpus 8 --model @IN@" kind=model ;;
    sweep) args="--gpus 8,16 --model @IN@" kind=model suffix=.csv ;;
    collective) args="--compare @IN@ --topology dgx-h100" kind=log ;;
    calibrate) args="--import @IN@" kind=log ;;
    run) args="--emulate --calibration @IN@ --steps 2 --warmup 1" kind=profile ;;
    validate) args="--calibration @IN@" kind=profile suffix=.csv ;;
    plot) args="@IN@" kind=csv suffix=.png ;;
    *) return 1 ;;
  esac
  # a flag of a run that reads no file (--save-params: real compute, zoo
  # models only): its own paths alone
  case "$1 $2" in
    "run --save-params") args="--steps 2 --warmup 1" kind=none ;;
  esac
}
log=$here/data/nccl-tests-1x8.log
"$bin" calibrate --import "$log" -o "$tmp/p.calib" >/dev/null 2>&1 || ko "no profile to read"
"$bin" sweep --gpus 8,16 --format csv >"$tmp/sweep.csv" 2>/dev/null || ko "no sweep CSV to read"
make_input () {   # make_input KIND PATH: a file the command reads, whatever its name
  case $1 in
    model) case $2 in
             *.csv) printf 'layer,params,forward_ms,backward_ms\nfc,1000000,1,2\n' >"$2" ;;
             *) printf '[model]\nname = victim\narchitecture = mlp\nwidths = 64,64,64\n' >"$2" ;;
           esac ;;
    log) cp "$log" "$2" ;;
    profile) cp "$tmp/p.calib" "$2" ;;
    csv) cp "$tmp/sweep.csv" "$2" ;;
    none) printf 'read by no one\n' >"$2" ;;
  esac
}

# refused WHAT FLAGS VALUE INPUT CMD ARGS...: exit 2, one line naming a
# flag of FLAGS ("-o --output") and VALUE, INPUT unchanged, nothing new in $d
refused () {
  r_what=$1 r_flags=$2 r_value=$3 r_input=$4
  shift 4
  r_sum=$(md5sum <"$r_input")
  ls -A "$d" | sort >"$tmp/before"
  (cd "$d" && timeout 60 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"); r_got=$?
  r_shown=$r_value
  [ -n "$r_value" ] || r_shown="''"
  r_named=no
  for f in $r_flags; do grep -qF -- "$f $r_shown:" "$tmp/err" && r_named=yes; done
  if [ $r_got = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ $r_named = yes ]; then ok
  else ko "$r_what: dpscale $* -> exit $r_got, $(wc -l <"$tmp/err") lines: $(head -2 "$tmp/err")"; fi
  if [ "$(md5sum <"$r_input")" = "$r_sum" ]; then ok; else ko "$r_what: $r_input changed"; fi
  ls -A "$d" | sort >"$tmp/after"
  if cmp -s "$tmp/before" "$tmp/after"; then ok; else ko "$r_what: left $(comm -13 "$tmp/before" "$tmp/after" | tr '\n' ' ')"; fi
}

# the commands and their options, from --help
"$bin" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }' >"$tmp/commands"
[ -s "$tmp/commands" ] && ok || ko "no commands in dpscale --help"
walked=0
for cmd in $(cat "$tmp/commands"); do
  "$bin" "$cmd" --help >"$tmp/help" 2>&1
  # "  -o, --output=FILE   Text": short (may be empty), long, metavar, text, a | apart
  sed -n 's/^ *\(-[a-zA-Z]\)\{0,1\},\{0,1\} *--\([a-z0-9-]*\)=\(FILE\|PREFIX\)[^ ]* *\(.*\)$/\1|--\2|\3|\4/p' \
    "$tmp/help" >"$tmp/options"
  while IFS='|' read -r short long metavar text; do
    case $long in --model|--topology|--calibration|--import|--compare) continue ;; esac
    case $text in
      *rite*|*raw*|*refix*) ;;
      *) ko "$cmd $long ($metavar): neither a known input nor an output: classify it in test-outputs.sh"; continue ;;
    esac
    if ! fixture "$cmd" "$long"; then ko "$cmd $long: no input to walk it with: add one to fixture ()"; continue; fi
    flags="$short $long"
    [ "$long" = --output ] && flags="-o --output"
    walked=$((walked + 1))
    # the names: a picture flag's end in .png, a prefix's input ends in what it writes
    ext=""
    case $text in *.png*) [ "$metavar" = FILE ] && ext=.png ;; esac
    if [ "$metavar" = PREFIX ]; then victim=$d/v$suffix value=$d/v; else victim=$d/v$ext value=$victim; fi
    make_input "$kind" "$victim"
    run_case () {   # run_case WHAT VALUE INPUT
      a=$(printf '%s' "$args" | sed "s|@IN@|$3|")
      # shellcheck disable=SC2086
      refused "$cmd $long $1" "$flags" "$2" "$3" "$cmd" $a "$long=$2"
    }
    if [ "$kind" != none ] && [ "$metavar" = PREFIX ]; then
      run_case "an input's path" "$value" "$victim"
      ln -s "$victim" "$d/sym$suffix"; ln "$victim" "$d/hard$suffix"
      run_case "a symlink to an input" "$d/sym" "$victim"
      run_case "a hard link to an input" "$d/hard" "$victim"
      rm -f "$d/sym$suffix" "$d/hard$suffix"
    elif [ "$kind" != none ]; then
      run_case "an input's path" "$value" "$victim"
      ln -s "$victim" "$d/sym$ext"; ln "$victim" "$d/hard$ext"
      run_case "a symlink to an input" "$d/sym$ext" "$victim"
      run_case "a hard link to an input" "$d/hard$ext" "$victim"
      run_case "an input, read by another name" "$value" "$d/sym$ext"
      rm -f "$d/sym$ext" "$d/hard$ext"
    fi
    run_case "an empty path" "" "$victim"
    run_case "a missing folder" "$d/none/x$ext" "$victim"
    run_case "a wrong extension" "$d/x.pdf" "$victim"
    # files written beside it ("also .csv and .png beside it"): the input under such a name
    beside=$(printf '%s' "$text" | sed -n 's/.*default [^ ]*\(\.[a-z]*\); also \(\.[a-z]*\).*beside.*/\1 \2/p')
    if [ -n "$beside" ]; then
      main=${beside% *} side=${beside#* }
      rm -f "$victim"
      make_input "$kind" "$d/w$side"
      run_case "an input written beside ($side)" "$d/w$main" "$d/w$side"
      ln -s "$d/w$side" "$d/l$side"
      run_case "an input written beside, by a symlink" "$d/l$main" "$d/w$side"
      rm -f "$d/w$side" "$d/l$side"
    fi
    rm -f "$victim"
  done <"$tmp/options"
done
echo "walked $walked output flags"
if [ "$walked" -ge 12 ]; then ok; else ko "only $walked output flags found in the commands' --help"; fi
finish outputs
