package org.kite;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import org.junit.Test;

/** Mat: shapes, float round trips, ARGB ints (Bitmap.getPixels) and bytes to planes, mean/norm. */
public class MatTest {
    @Test
    public void floatsRoundTripWithShape() {
        float[] v = new float[2 * 3 * 4];
        for (int i = 0; i < v.length; i++) {
            v[i] = i * 0.5f - 3;
        }
        Mat m = Mat.fromFloats(v, 4, 3, 2);
        assertEquals(3, m.dims());
        assertEquals(4, m.w());
        assertEquals(3, m.h());
        assertEquals(2, m.c());
        assertEquals(v[(1 * 3 + 2) * 4 + 3], m.get(1, 2, 3), 0.f);
        v[0] = 100; // copied
        assertEquals(-3.f, m.toFloatArray()[0], 0.f);
        assertEquals("Mat[4,3,2]", m.toString());
        try {
            Mat.fromFloats(new float[5], 2, 3);
            fail("5 values for [2,3] accepted");
        } catch (IllegalArgumentException expected) {
            // ok
        }
    }

    @Test
    public void argbIntsToPlanes() {
        // 0xAARRGGBB as Bitmap.getPixels gives them; 3x1 pixels
        int[] px = {0xff102030, 0x80405060, 0x00a0b0c0};
        Mat rgb = Mat.fromArgb(px, 3, 1, Mat.PixelFormat.RGB);
        assertEquals("Mat[3,1,3]", rgb.toString());
        assertArrayEquals(new float[] {0x10, 0x40, 0xa0, 0x20, 0x50, 0xb0, 0x30, 0x60, 0xc0}, rgb.toFloatArray(), 0.f);
        Mat bgr = Mat.fromArgb(px, 3, 1, Mat.PixelFormat.BGR);
        assertArrayEquals(new float[] {0x30, 0x60, 0xc0, 0x20, 0x50, 0xb0, 0x10, 0x40, 0xa0}, bgr.toFloatArray(), 0.f);
        Mat rgba = Mat.fromArgb(px, 3, 1, Mat.PixelFormat.RGBA);
        assertArrayEquals(new float[] {0xff, 0x80, 0x00}, java.util.Arrays.copyOfRange(rgba.toFloatArray(), 9, 12), 0.f);
        Mat gray = Mat.fromArgb(new int[] {0xff808080, 0xff000000}, 2, 1, Mat.PixelFormat.GRAY);
        assertEquals("Mat[2,1,1]", gray.toString());
        assertEquals(128.f, gray.toFloatArray()[0], 1.f);
        assertEquals(0.f, gray.toFloatArray()[1], 0.f);
    }

    @Test
    public void argbWithStrideAndResize() {
        // a 4x2 image in rows of stride 5 (the 5th int is padding); one colour
        int[] px = new int[10];
        java.util.Arrays.fill(px, 0xff0a141e);
        px[4] = px[9] = 0xffffffff; // padding, never read
        Mat m = Mat.fromArgb(px, 4, 2, 5, Mat.PixelFormat.RGB, 2, 3);
        assertEquals("Mat[2,3,3]", m.toString());
        float[] v = m.toFloatArray();
        for (int i = 0; i < 6; i++) {
            assertEquals(10.f, v[i], 0.5f);
            assertEquals(20.f, v[6 + i], 0.5f);
            assertEquals(30.f, v[12 + i], 0.5f);
        }
        try {
            Mat.fromArgb(new int[7], 4, 2, Mat.PixelFormat.RGB);
            fail("7 ints for 4x2 pixels accepted");
        } catch (IllegalArgumentException expected) {
            // ok
        }
    }

    @Test
    public void rgbaBytesToBgr() {
        byte[] px = {1, 2, 3, 4, 5, 6, 7, 8};
        Mat m = Mat.fromPixels(px, Mat.PixelFormat.RGBA, 2, 1, 8, Mat.PixelFormat.BGR, 2, 1);
        assertArrayEquals(new float[] {3, 7, 2, 6, 1, 5}, m.toFloatArray(), 0.f);
    }

    @Test
    public void meanAndNorm() {
        Mat m = Mat.fromFloats(new float[] {1, 2, 3, 4}, 2, 1, 2);
        m.subtractMeanNormalize(new float[] {1, 2}, new float[] {2, 0.5f});
        assertArrayEquals(new float[] {0, 2, 0.5f, 1}, m.toFloatArray(), 0.f);
        m.subtractMeanNormalize(null, new float[] {10, 10});
        assertArrayEquals(new float[] {0, 20, 5, 10}, m.toFloatArray(), 0.f);
        try {
            m.subtractMeanNormalize(new float[] {1, 2, 3}, null);
            fail("3 means for 2 channels accepted");
        } catch (IllegalArgumentException expected) {
            // ok
        }
    }
}
