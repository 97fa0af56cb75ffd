package org.kite;

import java.nio.ByteBuffer;

/**
 * A network: its structure (param) and weights (model). Load the param first,
 * then the model, then make {@link Extractor}s (cheap; several may run at once
 * on one Net from different threads). Close the Net after its Extractors.
 *
 * <pre>{@code
 * try (Net net = new Net(new Option().setNumThreads(2))) {
 *     net.loadParam("squeezenet.param");
 *     net.loadModel("squeezenet.bin");
 *     try (Extractor ex = net.createExtractor()) {
 *         ex.input("data", Mat.fromFloats(pixels, 227, 227, 3));
 *         float[] prob = ex.extract("output").toFloatArray();
 *     }
 * }
 * }</pre>
 *
 * Every failure throws a {@link KiteException} with kite's error text.
 */
public final class Net implements AutoCloseable {
    private long handle;
    private boolean closed = false;
    private int openExtractors = 0; // the native Net lives until the last one closes
    // a direct buffer whose weights the native Net uses in place
    private ByteBuffer modelBuffer;

    public Net() {
        this(new Option());
    }

    /** A Net with these settings (they apply to everything loaded later). */
    public Net(Option opt) {
        Kite.load();
        handle = nativeCreate();
        if (handle == 0) {
            throw new OutOfMemoryError("kite: cannot create a Net");
        }
        nativeSetOption(handle, opt.numThreads, opt.lightMode, opt.usePackingLayout, opt.useFp16Storage,
                opt.useFp16Arithmetic, opt.useVulkanCompute, opt.vulkanDevice, opt.useOpenCL, opt.openclDevice);
    }

    /** The param file: text .param or binary .param.bin (told apart by the magic number). */
    public void loadParam(String path) {
        nativeLoadParamPath(handle(), path);
    }

    /** The param file's bytes: text or binary. */
    public void loadParam(byte[] param) {
        nativeLoadParamBytes(handle(), param, 0, param.length);
    }

    /** The param from a buffer (direct or not), from its position to its limit. */
    public void loadParam(ByteBuffer param) {
        byte[] b = new byte[param.remaining()];
        param.duplicate().get(b);
        nativeLoadParamBytes(handle(), b, 0, b.length);
    }

    /** The weights (.bin) from a file. */
    public void loadModel(String path) {
        nativeLoadModelPath(handle(), path);
    }

    /** The weights (.bin) from bytes (copied: the array may be reused afterwards). */
    public void loadModel(byte[] model) {
        nativeLoadModelBytes(handle(), model);
    }

    /**
     * The weights from a direct ByteBuffer (e.g. a mapped asset or file),
     * used in place without a copy where it is 4-byte aligned: the Net keeps a
     * reference to the buffer until it is closed. A heap buffer is copied.
     */
    public void loadModel(ByteBuffer model) {
        if (!model.isDirect()) {
            byte[] b = new byte[model.remaining()];
            model.duplicate().get(b);
            loadModel(b);
            return;
        }
        nativeLoadModelBuffer(handle(), model, model.position(), model.remaining());
        modelBuffer = model;
    }

    /** Names of the input blobs (the Input layers' outputs), in param order. */
    public String[] inputNames() {
        return nativeBlobNames(handle(), true);
    }

    /** Names of the output blobs (those nobody consumes), in param order. */
    public String[] outputNames() {
        return nativeBlobNames(handle(), false);
    }

    /** A new inference session; close it when done. */
    public synchronized Extractor createExtractor() {
        Extractor ex = new Extractor(this, nativeCreateExtractor(handle()));
        openExtractors++;
        return ex;
    }

    /**
     * Closes the Net: later calls throw IllegalStateException. The native Net
     * is freed now, or when its last open Extractor is closed.
     */
    @Override
    public synchronized void close() {
        closed = true;
        release();
    }

    public synchronized boolean isClosed() {
        return closed;
    }

    synchronized void extractorClosed() {
        openExtractors--;
        release();
    }

    private void release() {
        if (closed && openExtractors == 0 && handle != 0) {
            nativeDestroy(handle);
            handle = 0;
            modelBuffer = null;
        }
    }

    synchronized long handle() {
        if (closed) {
            throw new IllegalStateException("kite: the Net is closed");
        }
        return handle;
    }

    private static native long nativeCreate();

    private static native void nativeDestroy(long net);

    private static native void nativeSetOption(long net, int numThreads, boolean lightMode, boolean packing,
            boolean fp16Storage, boolean fp16Arithmetic, boolean vulkan, int vulkanDevice, boolean opencl,
            int openclDevice);

    private static native void nativeLoadParamPath(long net, String path);

    private static native void nativeLoadParamBytes(long net, byte[] param, int offset, int length);

    private static native void nativeLoadModelPath(long net, String path);

    private static native void nativeLoadModelBytes(long net, byte[] model);

    private static native void nativeLoadModelBuffer(long net, ByteBuffer model, int offset, int length);

    private static native String[] nativeBlobNames(long net, boolean inputs);

    private static native long nativeCreateExtractor(long net);
}
