#version 450
// Reduction (layer/gpu/reduction_plan.h): invocation i makes output element i
// from the p.rcount input elements that differ from it on the reduced axes.
// The input is an elempack-1 blob seen as 4 axes (c, d, h, w outermost
// first); accumulation is float in every variant, in the reference's order.
#extension GL_GOOGLE_include_directive : require
#include "types.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer Src { sfp s[]; };
layout(std430, binding = 1) writeonly buffer Dst { sfp o[]; };
layout(push_constant) uniform P
{
    ivec4 ext;
    ivec4 red;
    int n;
    int rcount;
    int op;
    float coeff;
} p;

// Reduction::Operation
#define OP_SUM 0
#define OP_ASUM 1
#define OP_SUMSQ 2
#define OP_MEAN 3
#define OP_MAX 4
#define OP_MIN 5
#define OP_PROD 6
#define OP_L1 7
#define OP_L2 8
#define OP_LOGSUM 9
#define OP_LOGSUMEXP 10

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    if (i >= p.n)
        return;
    ivec4 base = ivec4(0);
    int t = i;
    for (int a = 3; a >= 0; a--)
    {
        if (p.red[a] == 0)
        {
            base[a] = t % p.ext[a];
            t /= p.ext[a];
        }
    }
    float acc = p.op == OP_MAX ? -3.402823466e+38 : (p.op == OP_MIN ? 3.402823466e+38 : (p.op == OP_PROD ? 1.0 : 0.0));
    for (int r = 0; r < p.rcount; r++)
    {
        ivec4 c = base;
        int u = r;
        for (int a = 3; a >= 0; a--)
        {
            if (p.red[a] != 0)
            {
                c[a] = u % p.ext[a];
                u /= p.ext[a];
            }
        }
        float x = loadf(s, ((c.x * p.ext.y + c.y) * p.ext.z + c.z) * p.ext.w + c.w);
        if (p.op == OP_ASUM || p.op == OP_L1)
            acc += abs(x);
        else if (p.op == OP_SUMSQ || p.op == OP_L2)
            acc += x * x;
        else if (p.op == OP_MAX)
            acc = max(acc, x);
        else if (p.op == OP_MIN)
            acc = min(acc, x);
        else if (p.op == OP_PROD)
            acc *= x;
        else if (p.op == OP_LOGSUMEXP)
            acc += exp(x);
        else
            acc += x;
    }
    if (p.op == OP_MEAN)
        acc = acc / float(p.rcount);
    else if (p.op == OP_L2)
        acc = sqrt(acc);
    else if (p.op == OP_LOGSUM || p.op == OP_LOGSUMEXP)
        acc = log(acc);
    store1(o, i, acc * p.coeff);
}
