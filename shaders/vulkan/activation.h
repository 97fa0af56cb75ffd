// Activations shared by the shaders; codes 0-6 are ncnn's fused activation
// types (layer/common/activation.h ActivationType), 7+ the standalone layers'
// extras (layer/gpu/gpu_activation.h; shaders/opencl/common.h.cl has the same).
#define ACT_NONE 0
#define ACT_RELU 1
#define ACT_LEAKYRELU 2
#define ACT_CLIP 3
#define ACT_SIGMOID 4
#define ACT_MISH 5
#define ACT_HARDSWISH 6
#define ACT_TANH 7
#define ACT_GELU_ERF 8
#define ACT_GELU_TANH 9
#define ACT_SWISH 10
#define ACT_HARDSIGMOID 11

float kite_sigmoid(float v)
{
    v = clamp(v, -88.376, 88.376);
    return 1.0 / (1.0 + exp(-v));
}

float kite_tanh(float v)
{
    // tanh() of GLSL overflows to NaN for large |v| on some drivers
    v = clamp(v, -15.0, 15.0);
    float e = exp(2.0 * v);
    return (e - 1.0) / (e + 1.0);
}

// erf with |error| < 1.5e-7 (Abramowitz-Stegun 7.1.26)
float kite_erf(float x)
{
    float s = sign(x);
    x = abs(x);
    float t = 1.0 / (1.0 + 0.3275911 * x);
    float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-x * x);
    return s * y;
}

float activate(float v, int type, float p0, float p1)
{
    if (type == ACT_RELU)
        return max(v, 0.0);
    if (type == ACT_LEAKYRELU)
        return v > 0.0 ? v : v * p0;
    if (type == ACT_CLIP)
        return clamp(v, p0, p1);
    if (type == ACT_SIGMOID)
        return kite_sigmoid(v);
    if (type == ACT_MISH)
    {
        float sp = v > 20.0 ? v : log(exp(v) + 1.0);
        return v * kite_tanh(sp);
    }
    if (type == ACT_HARDSWISH)
    {
        float lower = -p1 / p0;
        float upper = 1.0 / p0 + lower;
        return v < lower ? 0.0 : (v > upper ? v : v * (v * p0 + p1));
    }
    if (type == ACT_TANH)
        return kite_tanh(v);
    if (type == ACT_GELU_ERF)
        return 0.5 * v * (1.0 + kite_erf(v * 0.70710678118654752));
    if (type == ACT_GELU_TANH)
        return 0.5 * v * (1.0 + kite_tanh(0.79788456080286536 * (v + 0.044715 * v * v * v)));
    if (type == ACT_SWISH)
        return v * kite_sigmoid(v);
    if (type == ACT_HARDSIGMOID)
    {
        float lower = -p1 / p0;
        float upper = 1.0 / p0 + lower;
        return v < lower ? 0.0 : (v > upper ? 1.0 : v * p0 + p1);
    }
    return v;
}
