package org.kite;

/**
 * Loads the native library (libkite_jni) and tells the kite version.
 *
 * <p>The library is found by {@link System#loadLibrary} (java.library.path;
 * on Android: the AAR's jniLibs), or at the path of the system property
 * {@code kite.jni.library} when that is set.
 */
public final class Kite {
    private static boolean loaded = false;

    private Kite() {}

    /** Loads libkite_jni once; every class of this package calls it first. */
    public static synchronized void load() {
        if (loaded) {
            return;
        }
        String path = System.getProperty("kite.jni.library");
        if (path != null && !path.isEmpty()) {
            System.load(path);
        } else {
            System.loadLibrary("kite_jni");
        }
        loaded = true;
    }

    /** The kite version the native library was built from, e.g. "0.1.0". */
    public static String version() {
        load();
        return nativeVersion();
    }

    private static native String nativeVersion();
}
