#version 450
// o[i] = s[idx[i]]: every layer whose output only rearranges its input
// (Permute, Crop, Reshape, nearest Interp, Padding) with an index map that the
// driver builds once per input shape by running the reference on element
// numbers. Indices are stored as floats (exact below 2^24); a negative index
// -k-1 takes the constant fill[k] (Padding's value, or its per-channel
// values). Invocation (x, y) is element y * p.row + x.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer Src { sfp s[]; };
// p.in_f32: the source holds fp32 scalars (VkBlob::f32) in any variant; the
// output is the session's storage type (the cast in the same pass)
layout(std430, binding = 0) readonly buffer SrcF { float sf[]; };
layout(std430, binding = 1) readonly buffer Idx { float idx[]; };
layout(std430, binding = 2) writeonly buffer Dst { sfp o[]; };
layout(std430, binding = 3) readonly buffer Fill { float fill[]; };
layout(push_constant) uniform P
{
    int n;
    int row;
    int in_f32;
} p;

void main()
{
    int i = int(gl_GlobalInvocationID.y) * p.row + int(gl_GlobalInvocationID.x);
    if (int(gl_GlobalInvocationID.x) >= p.row || i >= p.n)
        return;
    int k = int(idx[i]);
    if (k >= 0)
        o[i] = p.in_f32 != 0 ? sfp(sf[k]) : s[k];
    else
        o[i] = sfp(fill[-k - 1]);
}
