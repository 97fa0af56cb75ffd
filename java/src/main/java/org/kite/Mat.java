package org.kite;

/**
 * A blob's values as kite lays them out: fp32, channels first. Shapes are
 * [w], [w,h], [w,h,c] or [w,h,d,c]; the data is c planes of (d x) h rows of w
 * values (numpy's (c,h,w), NCHW without the batch). The values live in a Java
 * float array, so a Mat needs no closing; inputs and outputs are copied
 * to and from the native side.
 */
public final class Mat {
    /** Pixel formats of {@link #fromPixels} and {@link #fromArgb}, as kite numbers them. */
    public enum PixelFormat {
        RGB(1, 3),
        BGR(2, 3),
        GRAY(3, 1),
        RGBA(4, 4),
        BGRA(5, 4);

        final int kiteType;
        final int channels;

        PixelFormat(int kiteType, int channels) {
            this.kiteType = kiteType;
            this.channels = channels;
        }
    }

    private final float[] data;
    private final int dims;
    private final int w;
    private final int h;
    private final int d;
    private final int c;

    // data is taken as it is (no copy): the constructors below copy
    Mat(float[] data, int dims, int w, int h, int d, int c) {
        this.data = data;
        this.dims = dims;
        this.w = w;
        this.h = h;
        this.d = d;
        this.c = c;
    }

    private static int checkedSize(int dims, int w, int h, int d, int c) {
        if (w <= 0 || h <= 0 || d <= 0 || c <= 0) {
            throw new IllegalArgumentException("kite: Mat dimensions must be positive, got w=" + w + " h=" + h
                    + " d=" + d + " c=" + c);
        }
        long n = (long) w * h * d * c;
        if (n > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("kite: Mat of " + n + " values is too large");
        }
        return (int) n;
    }

    /** A zero-filled Mat of shape [w,h,c]. */
    public static Mat zeros(int w, int h, int c) {
        return new Mat(new float[checkedSize(3, w, h, 1, c)], 3, w, h, 1, c);
    }

    /** [w]: one row of values. */
    public static Mat fromFloats(float[] values, int w) {
        return fromFloats(values, 1, w, 1, 1, 1);
    }

    /** [w,h]: h rows of w values. */
    public static Mat fromFloats(float[] values, int w, int h) {
        return fromFloats(values, 2, w, h, 1, 1);
    }

    /** [w,h,c]: c planes of h rows of w values (numpy (c,h,w)); the array is copied. */
    public static Mat fromFloats(float[] values, int w, int h, int c) {
        return fromFloats(values, 3, w, h, 1, c);
    }

    /** [w,h,d,c]: c blocks of d planes of h rows of w values. */
    public static Mat fromFloats(float[] values, int w, int h, int d, int c) {
        return fromFloats(values, 4, w, h, d, c);
    }

    private static Mat fromFloats(float[] values, int dims, int w, int h, int d, int c) {
        int n = checkedSize(dims, w, h, d, c);
        if (values.length != n) {
            throw new IllegalArgumentException("kite: " + values.length + " values for a Mat of shape "
                    + shapeString(dims, w, h, d, c) + " (" + n + " values)");
        }
        return new Mat(values.clone(), dims, w, h, d, c);
    }

    /**
     * Pixels as {@code android.graphics.Bitmap.getPixels} (and java.awt's
     * {@code BufferedImage.getRGB}) give them: one int per pixel, 0xAARRGGBB,
     * row after row ({@code stride} ints apart). The result is [targetWidth,
     * targetHeight, channels of {@code to}] with values 0..255, resized
     * bilinearly when the target size differs.
     */
    public static Mat fromArgb(int[] argb, int width, int height, int stride, PixelFormat to, int targetWidth,
            int targetHeight) {
        checkImage(argb.length, width, height, stride, targetWidth, targetHeight);
        Kite.load();
        return nativeFromArgb(argb, width, height, stride, to.kiteType, targetWidth, targetHeight);
    }

    /** {@link #fromArgb(int[], int, int, int, PixelFormat, int, int)} without resizing, rows packed. */
    public static Mat fromArgb(int[] argb, int width, int height, PixelFormat to) {
        return fromArgb(argb, width, height, width, to, width, height);
    }

    /**
     * Interleaved 8-bit pixels of format {@code from} (e.g. RGBA bytes as
     * {@code Bitmap.copyPixelsToBuffer} writes them), {@code stride} bytes per
     * row, converted to {@code to} and resized to the target size.
     */
    public static Mat fromPixels(byte[] pixels, PixelFormat from, int width, int height, int stride, PixelFormat to,
            int targetWidth, int targetHeight) {
        if (stride < width * from.channels) {
            throw new IllegalArgumentException("kite: stride " + stride + " < width x " + from.channels + " bytes");
        }
        checkImage(pixels.length, width * from.channels, height, stride, targetWidth, targetHeight);
        Kite.load();
        int type = from == to ? from.kiteType : from.kiteType | (to.kiteType << 16);
        return nativeFromPixels(pixels, type, width, height, stride, targetWidth, targetHeight);
    }

    private static void checkImage(int length, int rowValues, int height, int stride, int tw, int th) {
        if (rowValues <= 0 || height <= 0 || tw <= 0 || th <= 0 || stride < rowValues) {
            throw new IllegalArgumentException("kite: bad image size (row " + rowValues + ", height " + height
                    + ", stride " + stride + ", target " + tw + "x" + th + ")");
        }
        if ((long) stride * (height - 1) + rowValues > length) {
            throw new IllegalArgumentException("kite: pixel array of " + length + " is too short for " + height
                    + " rows of stride " + stride);
        }
    }

    /**
     * Per channel q: v = (v - mean[q]) * norm[q], in place (as kite's
     * substract_mean_normalize). Either array may be null; each has c values.
     */
    public Mat subtractMeanNormalize(float[] mean, float[] norm) {
        if ((mean != null && mean.length != c) || (norm != null && norm.length != c)) {
            throw new IllegalArgumentException("kite: mean/norm need " + c + " values (one per channel)");
        }
        int plane = w * h * d;
        for (int q = 0; q < c; q++) {
            float m = mean != null ? mean[q] : 0.f;
            float s = norm != null ? norm[q] : 1.f;
            for (int i = q * plane, e = i + plane; i < e; i++) {
                data[i] = (data[i] - m) * s;
            }
        }
        return this;
    }

    /** A copy of the values, c planes of (d x) h rows of w. */
    public float[] toFloatArray() {
        return data.clone();
    }

    /** The value at channel q, row y, column x (dims 3). */
    public float get(int q, int y, int x) {
        return data[(q * h + y) * w + x];
    }

    // the array itself, for the native side
    float[] data() {
        return data;
    }

    public int dims() {
        return dims;
    }

    public int w() {
        return w;
    }

    public int h() {
        return h;
    }

    public int d() {
        return d;
    }

    public int c() {
        return c;
    }

    /** Number of values. */
    public int total() {
        return data.length;
    }

    public boolean isEmpty() {
        return dims == 0;
    }

    private static String shapeString(int dims, int w, int h, int d, int c) {
        switch (dims) {
            case 0:
                return "[]";
            case 1:
                return "[" + w + "]";
            case 2:
                return "[" + w + "," + h + "]";
            case 3:
                return "[" + w + "," + h + "," + c + "]";
            default:
                return "[" + w + "," + h + "," + d + "," + c + "]";
        }
    }

    /** The shape as kite writes it: [w,h,c]. */
    @Override
    public String toString() {
        return "Mat" + shapeString(dims, w, h, d, c);
    }

    private static native Mat nativeFromArgb(int[] argb, int width, int height, int stride, int to, int targetWidth,
            int targetHeight);

    private static native Mat nativeFromPixels(byte[] pixels, int type, int width, int height, int stride,
            int targetWidth, int targetHeight);
}
