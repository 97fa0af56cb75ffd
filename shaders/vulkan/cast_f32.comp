#version 450
// An fp32 blob (VkBlob::f32: an int8 layer's dequantized output in a session
// with fp16 storage) to the session's storage type, for layers that read only
// that: n scalars, any layout (Session::cast_to_storage)
#extension GL_GOOGLE_include_directive : require
#include "types.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { float a[]; };
layout(std430, binding = 1) writeonly buffer Out { sfp b[]; };
layout(push_constant) uniform P { int n; } p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    if (i < p.n)
        store1(b, i, a[i]);
}
