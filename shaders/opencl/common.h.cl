// Included at the top of every kite OpenCL program (cmake prepends it).
// Storage is an RGBA image of float or half channels; read_imagef and
// write_imagef convert, so RD/WR arithmetic is float (MACE's fp16_fp32 mode)
// for both.
//
// Half arithmetic: the programs listed in half_arithmetic_programs
// (cl_runtime.cpp) are built with -DKITE_HALF when the session computes in
// half (Option::use_fp16_arithmetic on a device with cl_khr_fp16). Their
// products and short sums use FLOAT/FLOAT4 and RDH (read_imageh); long
// accumulations (a convolution over all input channels, a global pooling
// sum, everything of softmax/layernorm) add FLOAT4 partials of at most one
// channel block into a float4 (ACC), so they cannot overflow half. Without
// KITE_HALF, FLOAT is float and the same source is the float program.
#ifdef KITE_HALF
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define FLOAT half
#define FLOAT4 half4
#define RDH(img, x, y) read_imageh(img, SAMPLER, (int2)((x), (y)))
#define WRH(img, x, y, v) write_imageh(img, (int2)((x), (y)), v)
#define TO_FLOAT4(v) convert_float4(v)
#define FLOAT_LOWEST (-HALF_MAX)
#else
#define FLOAT float
#define FLOAT4 float4
#define RDH(img, x, y) read_imagef(img, SAMPLER, (int2)((x), (y)))
#define WRH(img, x, y, v) write_imagef(img, (int2)((x), (y)), v)
#define TO_FLOAT4(v) (v)
#define FLOAT_LOWEST (-FLT_MAX)
#endif

__constant sampler_t SAMPLER = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

#define DIV4(x) (((x) + 3) / 4)
#define RD(img, x, y) read_imagef(img, SAMPLER, (int2)((x), (y)))
#define WR(img, x, y, v) write_imagef(img, (int2)((x), (y)), v)

// activation codes of layer/gpu/gpu_activation.h (the Vulkan shaders use the
// same): fused (ncnn activation_type) 0 none, 1 relu, 2 leaky relu (p0 slope),
// 3 clip (p0, p1), 4 sigmoid, 5 mish, 6 hardswish (p0 alpha, p1 beta); the
// standalone layers' 7 tanh, 10 swish, 11 hardsigmoid (p0 alpha, p1 beta)
inline float4 activate(float4 v, int act, float p0, float p1)
{
    switch (act)
    {
    case 1: return fmax(v, (float4)(0.f));
    case 2: return select(v * p0, v, v > (float4)(0.f));
    case 3: return clamp(v, (float4)(p0), (float4)(p1));
    case 4:
        v = clamp(v, (float4)(-88.3762626647949f), (float4)(88.3762626647949f));
        return (float4)(1.f) / ((float4)(1.f) + exp(-v));
    case 5: return v * tanh(log(exp(v) + (float4)(1.f)));
    case 6:
    {
        float lower = -p1 / p0;
        float upper = 1.f / p0 + lower;
        float4 r = v * (v * p0 + p1);
        r = select(r, (float4)(0.f), v < (float4)(lower));
        r = select(r, v, v > (float4)(upper));
        return r;
    }
    case 7: return tanh(v);
    case 10:
        v = clamp(v, (float4)(-88.3762626647949f), (float4)(88.3762626647949f));
        return v / ((float4)(1.f) + exp(-v));
    case 11:
    {
        float lower = -p1 / p0;
        float upper = 1.f / p0 + lower;
        float4 r = v * p0 + (float4)(p1);
        r = select(r, (float4)(0.f), v < (float4)(lower));
        r = select(r, (float4)(1.f), v > (float4)(upper));
        return r;
    }
    default: return v;
    }
}

// element L (in the Mat's c, d, h, w order) of a channel-major image of C, H, W
inline float read_linear(__read_only image2d_t img, int L, int H, int W)
{
    int x = L % W;
    int r = L / W;
    int y = r % H, c = r / H;
    float4 v = RD(img, (c >> 2) * W + x, y);
    int k = c & 3;
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

// Reductions over the 64 items of a work group launched with that local size
// (cl::run_groups64): every item gets the result; `part` is the kernel's
// __local float4[64], free again when these return.
// one body for every element type (int8.cl: group_isum64 on exact int32 sums)
#define KITE_GROUP_SUM64(NAME, T)                                \
    inline T NAME(__local T* part, int lane, T v)                \
    {                                                            \
        part[lane] = v;                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                            \
        for (int step = 32; step > 0; step >>= 1)                \
        {                                                        \
            if (lane < step)                                     \
                part[lane] += part[lane + step];                 \
            barrier(CLK_LOCAL_MEM_FENCE);                        \
        }                                                        \
        T r = part[0];                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                            \
        return r;                                                \
    }
KITE_GROUP_SUM64(group_sum64, float4)

inline float4 group_max64(__local float4* part, int lane, float4 v)
{
    part[lane] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = 32; step > 0; step >>= 1)
    {
        if (lane < step)
            part[lane] = fmax(part[lane], part[lane + step]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float4 r = part[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}
