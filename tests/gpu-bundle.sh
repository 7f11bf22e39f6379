#!/bin/sh
# Packs what tests/gpu-check.sh needs on a GPU machine that has the CUDA
# toolkit and NCCL but neither this project's Debian packages nor a network
# to fetch them (the device machines lent to some sessions): this tree built
# with its GPU code (build-gpu/, object files left out), and the runtime
# files of the Debian packages that the binaries and mpirun load (GLib,
# json-glib, Open MPI with PMIx and its transports, OpenBLAS), not the CUDA
# libraries, which such a machine has.  Both go to .gpu-bundle/ (ignored by
# git; about 20 MB):
#
#   .gpu-bundle/deps.tar.gz    the packages' files under usr/ and etc/, and
#                              /usr/bin/mpirun (what Debian's alternatives make)
#   .gpu-bundle/build.tar.gz   build-gpu/ as configured in this tree
#   .gpu-bundle/source-dir     this tree's path (the build's paths name it)
#
# Run here, as root, after `sh tests/setup.sh demo` or `test` (it downloads
# the packages with apt-get); then carry .gpu-bundle to the GPU machine and
# run `sh tests/gpu-check.sh` there: it unpacks both when the machine lacks
# them.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
out=.gpu-bundle
build=build-gpu
# the runtime closure of the binaries, mpirun, orted and every Open MPI and
# PMIx component (ldd of each, owners by dpkg -S), less libc, libgcc and
# libstdc++, which every Linux has
pkgs="libglib2.0-0 libjson-glib-1.0-0 libopenblas0-pthread libgfortran5 libquadmath0 libopenmpi3 openmpi-bin
  openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libudev1 libpcre2-8-0 libffi8
  libmount1 libblkid1 libselinux1 libuuid1 zlib1g libnuma1 libatomic1 libfabric1 libucx0 libibverbs1
  ibverbs-providers librdmacm1 libnl-3-200 libnl-route-3-200 libpsm2-2 libpsm-infinipath1 libmunge2"

[ -x /usr/local/cuda/bin/nvcc ] || { echo "gpu-bundle: no CUDA toolkit in /usr/local/cuda: the GPU code would not be built" >&2; exit 1; }
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
[ -x "$build/dpscale-train-gpu" ] || { echo "gpu-bundle: $build has no dpscale-train-gpu (NCCL not found?)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/debs" "$tmp/root"
chmod 755 "$tmp"
chown _apt "$tmp/debs" 2>/dev/null || true   # apt-get downloads as _apt where it can
(cd "$tmp/debs" && apt-get download -qq $pkgs)
for d in "$tmp"/debs/*.deb; do dpkg-deb -x "$d" "$tmp/root"; done
root=$tmp/root
# merged /usr, as Debian 12 and Ubuntu 24.04 are: /lib is /usr/lib there,
# and tar would not write through the machine's link
for d in lib bin sbin; do
  if [ -d "$root/$d" ] && [ ! -L "$root/$d" ]; then
    mkdir -p "$root/usr/$d"
    cp -a "$root/$d/." "$root/usr/$d/"
    rm -rf "${root:?}/$d"
  fi
done
rm -rf "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/lintian" "$root/usr/share/locale" \
  "$root"/usr/lib/x86_64-linux-gnu/openblas-pthread/liblapack* "$root"/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas*
# what Debian's alternatives would link
ln -sf mpirun.openmpi "$root/usr/bin/mpirun"
ln -sf mpiexec.openmpi "$root/usr/bin/mpiexec"
# the CUDA runtime is small; cuBLAS and NCCL are the machine's
cp -a /usr/local/cuda/lib64/libcudart.so.13* "$root/usr/lib/x86_64-linux-gnu/"

rm -rf "$out"
mkdir -p "$out"
# top folders by name (never ".", whose mode tar would give to /), each
# folder world-readable
chmod -R a+rX,go-w "$root"
tar -C "$root" -czf "$out/deps.tar.gz" $(cd "$root" && ls)
tar --exclude='*.o' --exclude='*.a' --exclude="$build/Testing" -czf "$out/build.tar.gz" "$build"
echo "$top" >"$out/source-dir"
du -sh "$out"/* | sed 's/^/gpu-bundle: /'
echo "gpu-bundle: carry .gpu-bundle and run 'sh tests/gpu-check.sh' on the GPU machine" >&2
