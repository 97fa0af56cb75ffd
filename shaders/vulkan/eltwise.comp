#version 450
// out = a op b elementwise: op 0 prod, 1 sum (ca * a + cb * b), 2 max
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float bb[]; };
layout(std430, binding = 2) writeonly buffer Out { float o[]; };
layout(push_constant) uniform P { int n, op; float ca, cb; } p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    if (i >= p.n)
        return;
    float x = a[i];
    float y = bb[i];
    o[i] = p.op == 0 ? x * y : (p.op == 1 ? p.ca * x + p.cb * y : max(x, y));
}
