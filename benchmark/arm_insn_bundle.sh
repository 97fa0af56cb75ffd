#!/usr/bin/env bash
# Packs everything benchmark/arm_insn_counts.sh needs into one folder that
# runs on another x86-64 Linux host (any distro, nothing installed there):
#
#   bash benchmark/arm_insn_bundle.sh <aarch64 build dir> <out dir>
#   bash <out dir>/run.sh [arm_insn_counts.sh options: -i ISAS, -j JOBS, graphs...]
#
# The folder holds this host's qemu-aarch64 with its shared libraries and
# ELF interpreter (run through that interpreter, so the other host's own
# libraries do not matter), the counting plugin, the aarch64 runtime
# libraries kiterun needs (qemu's -L sysroot), kiterun with only the marked
# symbols kept, the shared graphs' .param files and shapes.txt (and the
# reduced shapes_emulated.txt: run.sh -s <out dir>/shapes_emulated.txt), and
# the two scripts. run.sh defaults to -j $(nproc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1 out=$2
shared=${KITE_SHARED_DIR:-$here/../../shared}
qemu=$(command -v "${QEMU:-qemu-aarch64}")
sysroot=${QEMU_SYSROOT:-/usr/aarch64-linux-gnu}
rm -rf "$out"
mkdir -p "$out/host" "$out/sysroot/lib" "$out/shared/models/ncnn"
# host: qemu, the libraries ldd resolves for it, the interpreter
cp "$qemu" "$out/host/qemu-aarch64"
ldd "$qemu" | awk '/=> \// { print $3 } /^\t\// { print $1 }' | while read -r lib; do cp -L "$lib" "$out/host/"; done
interp=$(ldd "$qemu" | awk '/^\t\// { print $1 }' | xargs -n1 basename)
${CC:-cc} -O2 -shared -fPIC -fvisibility=hidden -o "$out/qemu_insn_plugin.so" "$here/qemu_insn_plugin.c"
cat > "$out/host/qemu-aarch64.sh" <<EOS
#!/usr/bin/env bash
d=\$(cd "\$(dirname "\$0")" && pwd)
exec "\$d/$interp" --library-path "\$d" "\$d/qemu-aarch64" "\$@"
EOS
chmod +x "$out/host/qemu-aarch64.sh"
# guest: the interpreter and the libraries kiterun needs, from the sysroot
kiterun=${KITERUN:-$build/tools/kiterun}
ginterp=$(aarch64-linux-gnu-readelf -l "$kiterun" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
mkdir -p "$out/sysroot$(dirname "$ginterp")"
cp -L "$sysroot/$ginterp" "$out/sysroot$ginterp"
for lib in $(aarch64-linux-gnu-readelf -d "$kiterun" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
    cp -L "$sysroot/lib/$lib" "$out/sysroot/lib/"
done
aarch64-linux-gnu-strip --strip-all -K _ZN4kite9ExtractorC1EPKNS_3NetE -K _ZN4kite9ExtractorC2EPKNS_3NetE \
    -K _ZN4kite9ExtractorD1Ev -K _ZN4kite9ExtractorD2Ev -o "$out/kiterun" "$kiterun"
cp "$shared"/models/ncnn/*.param "$shared/models/ncnn/shapes.txt" "$out/shared/models/ncnn/"
cp "$here/arm_insn_counts.sh" "$here/qemu_insn_count.sh" "$here/../tests/cross/shapes_emulated.txt" "$out/"
cat > "$out/run.sh" <<'EOS'
#!/usr/bin/env bash
d=$(cd "$(dirname "$0")" && pwd)
[ "${1:-}" = "-j" ] || set -- -j "$(nproc)" "$@"
KITERUN=$d/kiterun KITE_SHARED_DIR=$d/shared QEMU=$d/host/qemu-aarch64.sh QEMU_SYSROOT=$d/sysroot \
    QEMU_INSN_PLUGIN=$d/qemu_insn_plugin.so exec bash "$d/arm_insn_counts.sh" "$d" "$@"
EOS
chmod +x "$out/run.sh"
du -sh "$out"
