package org.kite;

/**
 * One inference session on a {@link Net}: set the inputs, extract outputs.
 * It runs only what the requested output needs and remembers what it has
 * computed, so extracting several outputs runs the shared part once. Use a
 * new Extractor for new inputs. Not for use from two threads at once.
 */
public final class Extractor implements AutoCloseable {
    private final Net net;
    private long handle;

    Extractor(Net net, long handle) {
        this.net = net;
        this.handle = handle;
        if (handle == 0) {
            throw new OutOfMemoryError("kite: cannot create an Extractor");
        }
    }

    /** Threads for this session (default: the Net's Option). */
    public Extractor setNumThreads(int numThreads) {
        nativeSetNumThreads(handle(), numThreads);
        return this;
    }

    /** Release intermediate blobs as soon as they are consumed (default: the Net's Option). */
    public Extractor setLightMode(boolean on) {
        nativeSetLightMode(handle(), on);
        return this;
    }

    /** Sets the input blob {@code name}. */
    public Extractor input(String name, Mat m) {
        nativeInput(handle(), name, m.data(), m.dims(), m.w(), m.h(), m.d(), m.c());
        return this;
    }

    /** Sets the input blob {@code index} (a blob index as in the param file). */
    public Extractor input(int index, Mat m) {
        nativeInputIndex(handle(), index, m.data(), m.dims(), m.w(), m.h(), m.d(), m.c());
        return this;
    }

    /** Runs what blob {@code name} needs and returns it (fp32; empty when the layer produced nothing). */
    public Mat extract(String name) {
        return nativeExtract(handle(), name);
    }

    /** Runs what blob {@code index} needs and returns it. */
    public Mat extract(int index) {
        return nativeExtractIndex(handle(), index);
    }

    @Override
    public synchronized void close() {
        if (handle != 0) {
            nativeDestroy(handle);
            handle = 0;
            net.extractorClosed();
        }
    }

    private long handle() {
        if (handle == 0) {
            throw new IllegalStateException("kite: the Extractor is closed");
        }
        if (net.isClosed()) {
            throw new IllegalStateException("kite: the Net of this Extractor is closed");
        }
        return handle;
    }

    private static native void nativeDestroy(long ex);

    private static native void nativeSetNumThreads(long ex, int numThreads);

    private static native void nativeSetLightMode(long ex, boolean on);

    private static native void nativeInput(long ex, String name, float[] data, int dims, int w, int h, int d, int c);

    private static native void nativeInputIndex(long ex, int index, float[] data, int dims, int w, int h, int d, int c);

    private static native Mat nativeExtract(long ex, String name);

    private static native Mat nativeExtractIndex(long ex, int index);
}
