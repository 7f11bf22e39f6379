#!/bin/sh
# The layers, lowest first: sim/base, sim (the core), real, calibrate,
# sim/app.  A source file may include headers of its own layer and of lower
# ones, always by folder ("sim/ddp.h"), never a higher layer's: the build
# enforces it too (each library's include path holds its own and lower
# folders alone), and this test names the offending line.  Expected: no
# line printed, exit 0; a file in sim/ including "calibrate/profile.h"
# fails (checked by the test itself on a temporary file below).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

layer_of () {   # folder of a path -> its rank (0 lowest), or -1
  case "$1" in
    sim/base/*) echo 0 ;; sim/app/*) echo 4 ;; sim/*) echo 1 ;;
    real/*) echo 2 ;; calibrate/*) echo 3 ;; *) echo -1 ;;
  esac
}

check () {   # file (relative to top) -> prints each bad include, returns 1 if any
  f=$1 bad=0
  own=$(layer_of "$f")
  [ "$own" -ge 0 ] || return 0
  lines=$(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$top/$f") || return 0
  old_ifs=$IFS
  IFS='
'
  for l in $lines; do
    inc=$(printf '%s\n' "$l" | sed 's/.*include[[:space:]]*"\([^"]*\)".*/\1/')
    ln=${l%%:*}
    case "$inc" in
      dps-config.h) continue ;;
      */*) ;;
      *) echo "$f:$ln: #include \"$inc\" names no folder (write \"sim/$inc\", \"real/$inc\", ...)"; bad=1; continue ;;
    esac
    want=$(layer_of "$inc")
    if [ "$want" -lt 0 ]; then
      echo "$f:$ln: #include \"$inc\": not a folder of the project's layers"; bad=1
    elif [ "$want" -gt "$own" ]; then
      echo "$f:$ln: #include \"$inc\": a lower layer includes a higher one"; bad=1
    fi
  done
  IFS=$old_ifs
  return $bad
}

# the check itself must catch a bad include
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/sim" && printf '#include "calibrate/profile.h"\n' > "$tmp/sim/bad.c"
top_saved=$top top=$tmp
if check sim/bad.c >/dev/null; then echo "FAIL: the check let sim/ include calibrate/"; exit 1; fi
top=$top_saved

status=0 n=0
for f in $(cd "$top" && git ls-files 'sim/*.c' 'sim/*.h' 'real/*.c' 'real/*.h' 'real/*.cu' 'calibrate/*.c' 'calibrate/*.h' 2>/dev/null \
           || (cd "$top" && find sim real calibrate -name '*.[ch]' -o -name '*.cu')); do
  n=$((n + 1))
  check "$f" || status=1
done
[ "$n" -gt 50 ] || { echo "FAIL: only $n source files found"; exit 1; }
if [ $status -eq 0 ]; then echo "layers: $n files, no include from a lower layer to a higher one"; else echo "FAIL: includes against the layers"; fi
exit $status
