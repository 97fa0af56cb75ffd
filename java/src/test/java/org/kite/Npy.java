package org.kite;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Minimal float32 .npy reading and writing for the tests (C order, little endian). */
final class Npy {
    final int[] shape;
    final float[] data;

    Npy(int[] shape, float[] data) {
        this.shape = shape;
        this.data = data;
    }

    static void write(Path path, int[] shape, float[] data) throws IOException {
        StringBuilder sb = new StringBuilder("{'descr': '<f4', 'fortran_order': False, 'shape': (");
        for (int s : shape) {
            sb.append(s).append(", ");
        }
        sb.append("), }");
        int total = 10 + sb.length() + 1;
        while (total % 64 != 0) {
            sb.append(' ');
            total++;
        }
        sb.append('\n');
        byte[] header = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer b = ByteBuffer.allocate(10 + header.length + 4 * data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0x93).put("NUMPY".getBytes(StandardCharsets.ISO_8859_1)).put((byte) 1).put((byte) 0);
        b.putShort((short) header.length).put(header);
        for (float v : data) {
            b.putFloat(v);
        }
        Files.write(path, b.array());
    }

    static Npy read(Path path) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(path)).order(ByteOrder.LITTLE_ENDIAN);
        if ((b.get(0) & 0xff) != 0x93 || b.get(6) != 1) {
            throw new IOException(path + ": not a version 1 .npy file");
        }
        int headerLen = b.getShort(8) & 0xffff;
        String header = new String(b.array(), 10, headerLen, StandardCharsets.ISO_8859_1);
        if (!header.contains("'<f4'") || !header.contains("False")) {
            throw new IOException(path + ": not C-order float32: " + header);
        }
        String dims = header.substring(header.indexOf("'shape': (") + 10, header.indexOf(')'));
        String[] parts = dims.split(",");
        int n = 0;
        int[] shape = new int[parts.length];
        for (String p : parts) {
            if (!p.trim().isEmpty()) {
                shape[n++] = Integer.parseInt(p.trim());
            }
        }
        shape = java.util.Arrays.copyOf(shape, n);
        b.position(10 + headerLen);
        float[] data = new float[b.remaining() / 4];
        b.asFloatBuffer().get(data);
        return new Npy(shape, data);
    }
}
