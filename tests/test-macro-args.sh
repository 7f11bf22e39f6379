#!/bin/sh
# GLib's MAX, MIN, CLAMP and ABS evaluate their arguments more than once:
# an argument that draws a random number (g_rand_*, dps_normal_factor) or
# consumes input (read, getc, strtok, a queue's pop) is drawn twice, and
# the value compared is not the value returned.  (Found so: a replica's
# speed floored at 0.2 came out negative and the step's schedule ran its
# clock backwards.)  Expected: no line printed, exit 0; the check catches
# such a line in a temporary file first.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
pat='\b(MAX|MIN|CLAMP|ABS)[[:space:]]*\(.*\b(g_rand_[a-z_]+|dps_normal_factor|gauss|rand|random|drand48|read|fread|getc|fgetc|getline|strtok|strtok_r|g_queue_pop_[a-z]+|g_async_queue_pop|g_async_queue_timeout_pop)[[:space:]]*\('

tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
printf 'double f = MAX (0.2, 1 + cv * gauss (rand));\n' > "$tmp/bad.c"
if ! grep -qE "$pat" "$tmp/bad.c"; then echo "FAIL: the check let a random draw inside MAX pass"; exit 1; fi
printf 'double g = dps_normal_factor (rand, cv, 0.2);\ndouble h = MAX (0.2, g);\n' > "$tmp/good.c"
if grep -qE "$pat" "$tmp/good.c"; then echo "FAIL: the check refused a draw outside MAX"; exit 1; fi

files=$(cd "$top" && git ls-files '*.c' '*.h' '*.cu' 2>/dev/null || (cd "$top" && find sim real calibrate plots tests -name '*.[ch]' -o -name '*.cu'))
n=$(printf '%s\n' $files | wc -l)
[ "$n" -gt 50 ] || { echo "FAIL: only $n source files found"; exit 1; }
bad=$(cd "$top" && grep -nE "$pat" $files)
if [ -n "$bad" ]; then
  printf '%s\n' "$bad"
  echo "FAIL: an argument of MAX/MIN/CLAMP/ABS draws or reads (it is evaluated twice): take it into a variable first"
  exit 1
fi
echo "macro-args: $n files, no argument of MAX/MIN/CLAMP/ABS draws or reads"
