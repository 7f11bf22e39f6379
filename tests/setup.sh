#!/bin/sh
# Set up a Debian 12 machine for dpscale, build it, then run the demo or the
# whole test suite.  Run as root (it installs Debian packages when missing):
#
#   sh tests/setup.sh demo    build, then predict the shipped default (GPT-2 XL, 64 H100s)
#   sh tests/setup.sh test    build, then run every test with ctest, then the
#                             unit and command-line tests again under
#                             AddressSanitizer and UndefinedBehaviorSanitizer
#                             (leak checks included), and each fuzz target
#                             briefly on its corpus (clang, libFuzzer)
#
# The CUDA toolkit and NCCL are optional: when /usr/local/cuda holds them the
# GPU code is built too.
set -eu
mode=${1:-test}
case "$mode" in demo|test) ;; *) echo "usage: sh tests/setup.sh demo|test" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."

packages="cmake make gcc pkg-config libglib2.0-dev libjson-glib-dev gnuplot-nox openmpi-bin libopenmpi-dev libopenblas-dev"
# test: clang for the sanitizer and fuzz builds, python3-torch for calibrate/torch-layers.py's test
[ "$mode" = test ] && packages="$packages clang libclang-rt-14-dev python3-torch"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing$missing" >&2
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: these Debian packages are missing:$missing; run as root (sudo sh tests/setup.sh $mode)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"

if [ "$mode" = demo ]; then
  ./build/dpscale predict
else
  (cd build && ctest --output-on-failure -j "$jobs")
  # the unit, command-line and CPU runner tests under ASan + UBSan (Open MPI's
  # leaks suppressed: tests/lsan-openmpi.supp), and the parsers fuzzed briefly
  cmake --preset asan >/dev/null && cmake --build build-asan -j "$jobs" >/dev/null
  (cd build-asan && ctest --output-on-failure -j "$jobs" -L "unit|cli|runner")
  cmake --preset fuzz >/dev/null && cmake --build build-fuzz -j "$jobs" --target fuzz >/dev/null
  (cd build-fuzz && ctest --output-on-failure -j "$jobs" -L fuzz)
fi
