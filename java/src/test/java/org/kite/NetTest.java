package org.kite;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * squeezenet from Java against kiterun: kiterun runs it with seeded random
 * weights (writebin= keeps them) on an input written here, and saves its
 * output; the Java run of the same files must give the same numbers.
 * System properties: kite.kiterun, kite.model (squeezenet.param), kite.work.
 */
public class NetTest {
    static final long SEED = 20261126L;
    static Path work;
    static Path param;
    static Path bin;
    static float[] input;
    static Npy expected;

    @BeforeClass
    public static void runKiterun() throws Exception {
        String kiterun = System.getProperty("kite.kiterun");
        param = Paths.get(System.getProperty("kite.model"));
        work = Paths.get(System.getProperty("kite.work"));
        Files.createDirectories(work);
        bin = work.resolve("squeezenet_random.bin");
        Random rng = new Random(SEED);
        input = new float[3 * 227 * 227];
        for (int i = 0; i < input.length; i++) {
            input[i] = rng.nextFloat() * 2.f - 1.f;
        }
        Path in = work.resolve("input.npy");
        Npy.write(in, new int[] {3, 227, 227}, input);
        Path out = work.resolve("out");
        Process p = new ProcessBuilder(kiterun, param.toString(), "random", "seed=7", "threads=1",
                "input=data:" + in, "writebin=" + bin, "save=" + out)
                .redirectErrorStream(true).redirectOutput(work.resolve("kiterun.log").toFile()).start();
        int rc = p.waitFor();
        assertEquals("kiterun failed (seed " + SEED + "): " + new String(Files.readAllBytes(work.resolve("kiterun.log"))),
                0, rc);
        expected = Npy.read(out.resolve("output.npy"));
        assertArrayEquals(new int[] {1000}, expected.shape);
        float min = Float.MAX_VALUE;
        float max = -Float.MAX_VALUE;
        for (float v : expected.data) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        assertTrue("kiterun's output is constant (" + min + "): the comparison would prove nothing", max > min);
    }

    static void assertSameNumbers(String what, float[] want, float[] got) {
        assertEquals(what + ": length", want.length, got.length);
        double maxDiff = 0;
        int worst = -1;
        for (int i = 0; i < want.length; i++) {
            double d = Math.abs((double) want[i] - got[i]);
            if (d > maxDiff || Float.isNaN(got[i])) {
                maxDiff = Float.isNaN(got[i]) ? Double.NaN : d;
                worst = i;
            }
        }
        assertTrue(what + ": max |java - kiterun| = " + maxDiff + " at " + worst + " (seed " + SEED + ")",
                maxDiff == 0);
    }

    static float[] run(Net net) {
        assertArrayEquals(new String[] {"data"}, net.inputNames());
        assertArrayEquals(new String[] {"output"}, net.outputNames());
        try (Extractor ex = net.createExtractor()) {
            ex.setNumThreads(1);
            ex.input("data", Mat.fromFloats(input, 227, 227, 3));
            Mat out = ex.extract("output");
            assertEquals(1, out.dims());
            assertEquals(1000, out.w());
            return out.toFloatArray();
        }
    }

    @Test
    public void squeezenetFromFilesMatchesKiterun() {
        try (Net net = new Net(new Option().setNumThreads(1))) {
            net.loadParam(param.toString());
            net.loadModel(bin.toString());
            assertSameNumbers("files", expected.data, run(net));
            try (Extractor ex = net.createExtractor()) { // by blob index: "data" is blob 0
                ex.setNumThreads(1).input(0, Mat.fromFloats(input, 227, 227, 3));
                assertSameNumbers("input by index", expected.data, ex.extract("output").toFloatArray());
            }
        }
    }

    @Test
    public void squeezenetFromBytesAndBuffersMatchesKiterun() throws IOException {
        byte[] paramBytes = Files.readAllBytes(param);
        byte[] binBytes = Files.readAllBytes(bin);
        try (Net net = new Net(new Option().setNumThreads(1))) {
            net.loadParam(paramBytes);
            net.loadModel(binBytes);
            java.util.Arrays.fill(binBytes, (byte) 0); // the Net keeps its own copy
            assertSameNumbers("byte[]", expected.data, run(net));
        }
        try (Net net = new Net(new Option().setNumThreads(1));
                FileChannel ch = FileChannel.open(bin, StandardOpenOption.READ)) {
            net.loadParam(ByteBuffer.wrap(paramBytes));
            ByteBuffer mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
            assertTrue(mapped.isDirect());
            net.loadModel(mapped); // used in place
            assertSameNumbers("mapped ByteBuffer", expected.data, run(net));
        }
        try (Net net = new Net(new Option().setNumThreads(1))) {
            net.loadParam(paramBytes);
            ByteBuffer direct = ByteBuffer.allocateDirect(binBytes.length + 1);
            direct.put((byte) 0).put(Files.readAllBytes(bin)).position(1); // unaligned: copied
            net.loadModel(direct);
            assertSameNumbers("unaligned direct ByteBuffer", expected.data, run(net));
        }
    }

    @Test
    public void errorsAreExceptionsWithKitesMessage() {
        try (Net net = new Net()) {
            String missing = work.resolve("no_such.param").toString();
            try {
                net.loadParam(missing);
                fail("loadParam of a missing file did not throw");
            } catch (KiteException e) {
                assertTrue(e.getMessage(), e.getMessage().contains("'" + missing + "'"));
                assertTrue(e.getMessage(), e.getMessage().contains("No such file or directory"));
            }
            try {
                net.loadParam("7767517\n1 1\nNoSuchLayer x 0 1 x\n".getBytes());
                fail("an unknown layer type did not throw");
            } catch (KiteException e) {
                assertTrue(e.getMessage(), e.getMessage().contains("NoSuchLayer"));
            }
        }
        try (Net net = new Net()) {
            net.loadParam(param.toString());
            try {
                net.loadModel(new byte[100]); // truncated weights
                fail("a truncated model did not throw");
            } catch (KiteException e) {
                assertTrue(e.getMessage(), e.getMessage().startsWith("loadModel (100 bytes): "));
            }
            net.loadModel(bin.toString());
            try (Extractor ex = net.createExtractor()) {
                try {
                    ex.input("nope", Mat.fromFloats(new float[3], 3));
                    fail("an unknown input blob did not throw");
                } catch (KiteException e) {
                    assertTrue(e.getMessage(), e.getMessage().contains("'nope'"));
                }
            }
        }
    }

    @Test
    public void closedObjectsRefuseCalls() {
        Net net = new Net();
        net.loadParam(param.toString());
        net.loadModel(bin.toString());
        Extractor ex = net.createExtractor();
        net.close(); // the native Net stays until the Extractor is closed
        try {
            ex.input("data", Mat.fromFloats(input, 227, 227, 3));
            fail("an Extractor of a closed Net worked");
        } catch (IllegalStateException expectedException) {
            // ok
        }
        ex.close();
        ex.close(); // twice is fine
        try {
            net.loadModel(bin.toString());
            fail("a closed Net worked");
        } catch (IllegalStateException expectedException) {
            // ok
        }
    }

    @Test
    public void versionIsTheProjects() {
        assertTrue(Kite.version(), Kite.version().matches("\\d+\\.\\d+\\.\\d+"));
        assertTrue(new File(System.getProperty("kite.kiterun")).canExecute());
    }
}
