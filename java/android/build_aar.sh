#!/usr/bin/env bash
# kite's Java binding as an Android AAR without Gradle (docs/java.md):
#
#   ANDROID_NDK=/path/to/ndk bash java/android/build_aar.sh [out.aar]
#
# builds libkite_jni for each ABI with toolchains/android.toolchain.cmake
# (KITE_JAVA=ON), compiles org.kite with javac --release 8 (the classes use no
# Android API) and zips the AAR: AndroidManifest.xml, classes.jar,
# jni/<abi>/libkite_jni.so, proguard.txt (keep rules for apps that shrink), R.txt.
# Environment: KITE_AAR_ABIS (default "arm64-v8a armeabi-v7a"), KITE_AAR_BUILD
# (work folder, default build-aar), KITE_AAR_PREBUILT (a folder holding
# <abi>/libkite_jni.so: package those instead of building; no NDK needed).
# Not run in CI: there is no NDK there.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=${KITE_AAR_BUILD:-$ROOT/build-aar}
OUT=${1:-$WORK/kite-$(sed -n 's/^project(kite VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt").aar}
ABIS=${KITE_AAR_ABIS:-arm64-v8a armeabi-v7a}
STAGE=$WORK/stage
rm -rf "$STAGE" "$WORK/classes"
mkdir -p "$STAGE/jni" "$WORK/classes"

for abi in $ABIS; do
    mkdir -p "$STAGE/jni/$abi"
    if [ -n "${KITE_AAR_PREBUILT:-}" ]; then
        cp "$KITE_AAR_PREBUILT/$abi/libkite_jni.so" "$STAGE/jni/$abi/"
        continue
    fi
    : "${ANDROID_NDK:?set ANDROID_NDK to the NDK folder (or KITE_AAR_PREBUILT)}"
    cmake -S "$ROOT" -B "$WORK/$abi" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_TOOLCHAIN_FILE="$ROOT/toolchains/android.toolchain.cmake" -DANDROID_NDK="$ANDROID_NDK" \
        -DANDROID_ABI="$abi" -DKITE_JAVA=ON -DKITE_BUILD_BENCHMARK=OFF
    cmake --build "$WORK/$abi" --target kite_jni
    cp "$WORK/$abi/java/libkite_jni.so" "$STAGE/jni/$abi/"
    strip=$(ls "$ANDROID_NDK"/toolchains/llvm/prebuilt/*/bin/llvm-strip 2> /dev/null | head -n 1)
    if [ -n "$strip" ]; then "$strip" --strip-unneeded "$STAGE/jni/$abi/libkite_jni.so"; fi
done

javac -encoding UTF-8 --release 8 -Xlint:-options -d "$WORK/classes" "$ROOT"/java/src/main/java/org/kite/*.java
jar --create --file "$STAGE/classes.jar" -C "$WORK/classes" .
# an AAR's manifest names its package (Gradle's namespace)
cat > "$STAGE/AndroidManifest.xml" << 'MANIFEST'
<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="org.kite">
    <uses-sdk android:minSdkVersion="24" />
</manifest>
MANIFEST
cp "$ROOT/java/proguard-rules.pro" "$STAGE/proguard.txt"
: > "$STAGE/R.txt"
mkdir -p "$(dirname "$OUT")"
rm -f "$OUT"
jar --create --file "$OUT" --no-manifest -C "$STAGE" .
echo "wrote $OUT:"
jar --list --file "$OUT"
