// The CPU's int8 arithmetic (layer/common/int8.h, conv_kernel.h
// conv_int8_finish) for the int8 shaders. int8 activations live in the
// blob buffers as exact integers (int8quant.comp packs them 4 per uint for
// the packed kernels); `precise` keeps every product and sum
// rounded as on the CPU (no contraction into an FMA).

// a * b + c with one rounding, as the CPU's std::fma. GLSL's fma() need not
// be fused (lavapipe may split it), so the product is made exact by Dekker's
// split (p + e == a * b), added to c by Knuth's two-sum (s + t == p + c) and
// the three parts summed smallest first: the correctly rounded result except
// in double-rounding corner cases far rarer than the ties of the products
float kite_fma(float a, float b, float c)
{
    precise float ca = 4097.0 * a;
    precise float ahi = ca - (ca - a);
    precise float alo = a - ahi;
    precise float cb = 4097.0 * b;
    precise float bhi = cb - (cb - b);
    precise float blo = b - bhi;
    precise float p = a * b;
    precise float e = ((ahi * bhi - p) + ahi * blo + alo * bhi) + alo * blo;
    precise float s = p + c;
    precise float bb = s - p;
    precise float t = (p - (s - bb)) + (c - bb);
    precise float r = s + (t + e);
    return r;
}

// float2int8(v * s): round half away from zero (GLSL's round() may pick
// either way at .5), clamp to [-127, 127], NaN gives 0
int kite_quantize(float v, float s)
{
    precise float x = v * s;
    if (isnan(x))
        return 0;
    if (x >= 127.0)
        return 127;
    if (x <= -127.0)
        return -127;
    float t = trunc(x);
    precise float frac = abs(x - t); // exact
    if (frac >= 0.5)
        t += sign(x);
    return int(t);
}

// float2int8_addhalf(x): add +-0.5 by the sign, truncate, clamp; what the
// truncation cannot convert (NaN, |a| >= 2^31) gives -127
int kite_requantize_addhalf(float x)
{
    precise float a = x + (x < 0.0 ? -0.5 : 0.5); // -0 + 0.5 truncates to 0 as well
    if (isnan(a) || a >= 2147483648.0 || a < -2147483648.0)
        return -127;
    return clamp(int(a), -127, 127);
}

// the 4 int8 values of a packed word (byte l = lane l, two's complement),
// sign-extended
ivec4 kite_unpack_i8x4(uint u)
{
    int s = int(u);
    return ivec4(bitfieldExtract(s, 0, 8), bitfieldExtract(s, 8, 8), bitfieldExtract(s, 16, 8), bitfieldExtract(s, 24, 8));
}

// acc + the dot product of the 4 int8 lanes of a and b (bytes as in
// kite_unpack_i8x4), wrapping as int32 arithmetic does. A marker: in the
// "<shader>_dot4" variants of the shaders that call it (compiled with
// -DKITE_INT8_DOT) cmake/kite_spirv_dot.cmake replaces this body with
// SPV_KHR_integer_dot_product's OpSDotKHR (4x8-bit packed) + OpIAdd; the
// portable body here is what every other compile runs
int kite_sdot4(int a, int b, int acc)
{
    ivec4 t = kite_unpack_i8x4(uint(a)) * kite_unpack_i8x4(uint(b));
    return acc + t.x + t.y + t.z + t.w;
}

// the same 4 values as exact floats without int-to-float conversions (a
// quarter-rate instruction on some GPUs): byte b ^ 0x80 (b + 128 as an
// unsigned byte) in the low mantissa bits of 2^23 gives 2^23 + b + 128
vec4 kite_unpack_i8x4_f(uint u)
{
    uint x = u ^ 0x80808080u;
    uvec4 m = uvec4(x & 255u, (x >> 8) & 255u, (x >> 16) & 255u, x >> 24) | 0x4B000000u;
    return uintBitsToFloat(m) - 8388736.0;
}

#define INT8_NUMERICS_FMA_BIAS 1
#define INT8_NUMERICS_ROUND_ADDHALF 2

// dequantize (+ bias), activate, requantize when asked
float kite_int8_finish(int sum, float bias, float scale_in, float scale_out, int numerics, int requant, int act, float p0,
                       float p1)
{
    precise float v;
    if ((numerics & INT8_NUMERICS_FMA_BIAS) != 0)
    {
        v = kite_fma(float(sum), scale_in, bias);
    }
    else
    {
        v = float(sum) * scale_in;
        v = v + bias;
    }
    v = activate(v, act, p0, p1);
    if (requant == 0)
        return v;
    if ((numerics & INT8_NUMERICS_ROUND_ADDHALF) != 0)
    {
        precise float q = v * scale_out;
        return float(kite_requantize_addhalf(q));
    }
    return float(kite_quantize(v, scale_out));
}
