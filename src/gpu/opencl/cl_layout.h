#ifndef KITE_GPU_OPENCL_CL_LAYOUT_H
#define KITE_GPU_OPENCL_CL_LAYOUT_H

// Tensor <-> RGBA image layouts (seeds 000/001, MACE's image storage).
//
//   channel-major  NHWC        [W * (C+3)/4, N * H]   activations (default)
//   height-major   NHWC        [W * C, N * (H+3)/4]   Winograd
//   width-major    NHWC        [(W+3)/4 * C, N * H]   Winograd
//   conv filter    OIHW        [I, (O+3)/4 * H * W]
//   dw filter      MIHW, M=1   [H * W * M, (I+3)/4]
//   1-D argument   W           [(W+3)/4, 1]
//
// The seeds' pixel formulas are implemented in shaders/opencl/layout.cl
// (layout_index) and checked pixel by pixel in tests/opencl. Two typos of the
// seeds' tables are read the only way that covers the image: height-major
// h = j/N*4 + k (the table writes j/H), width-major w = i%Wb*4 + k and
// c = i/Wb with Wb = (W+3)/4 (the table writes W).
//
// A kite Mat maps to the channel-major image with N = 1 and
//   dims 1 (w)         C = w, H = 1,     W = 1
//   dims 2 (w, h)      C = h, H = w,     W = 1   (packing axis h = channels)
//   dims 3 (w, h, c)   C = c, H = h,     W = w
//   dims 4 (w,h,d,c)   C = c, H = d * h, W = w
//
// Folded activations. The natural image of a blob, [W * (C+3)/4, H] above,
// can be wider or taller than the device allows (CL_DEVICE_IMAGE2D_MAX_*:
// 16384 on NVIDIA), e.g. an SSD head's 1 x 172494 confidences (43124 texels
// in one row) or its 2 x 32120 priors (one texel column 32120 rows tall). Such
// a blob is kept folded: the T = W*(C+3)/4 * H texels in raster order
// (natural texel (x, y) is t = y * NIW + x, NIW = W*(C+3)/4) wrap over rows of
// F texels, F = the width limit: texel t is stored at (t % F, t / F) of an
// image [F, ceil(T / F)]. A blob is folded exactly when its image width is
// not NIW (a folded image is never NIW wide), so kernels tell it from
// get_image_width() and the shapes they already take; shape.cl's rd_fold /
// wr_fold address both forms. Only drivers that address folded images ask
// for them (Session::create_blob's allow_fold): uploads and downloads,
// the gather of cl::ShapeCache (Flatten, Reshape, Permute, Crop, Slice,
// ShuffleChannel, Padding, Concat on any axis), the constants of PriorBox
// and MemoryData, Concat, Softmax, Split, Noop, and the activation kernel
// that runs texel by texel (ReLU, Sigmoid, TanH, Clip, ...), BinaryOp's
// same-shaped, scalar and gathered forms (folded_ok). Any other layer
// that meets a folded input runs on the CPU (Session::convert_for_layer
// returns KITE_GPU_CANNOT_HOLD; the placement report shows it), and so does
// a blob even the folded image cannot hold (T over F x the height limit).

#include "cl_runtime.h"

namespace kite {
class Layer;
}

namespace kite {
namespace cl {

enum SeedLayout
{
    SEED_CHANNEL_MAJOR = 0,
    SEED_HEIGHT_MAJOR = 1,
    SEED_WIDTH_MAJOR = 2,
    SEED_CONV_FILTER = 3,
    SEED_DW_FILTER = 4,
    SEED_ARGUMENT = 5,
};

inline int div4(int x) { return (x + 3) / 4; }

// The image of an activation of channel-major (C, H, W): the natural size,
// or the folded one where the natural one is over the limit and allow_fold;
// returns 0, or KITE_GPU_CANNOT_HOLD (nothing fits). The limit is the
// device's, or smaller where set_image_limit_for_tests (or the environment's
// KITE_OPENCL_IMAGE_LIMIT=N) says so.
int activation_image_size(const Context* ctx, int C, int H, int W, bool allow_fold, int& iw, int& ih);
// whether a blob's image is folded (see above)
inline bool is_folded(const ClBlob* b)
{
    return b->image.width != b->W * div4(b->C);
}
// whether the OpenCL driver of `consumer` addresses folded inputs
bool folded_ok(const Layer* consumer);
// tests: treat the device's 2D image limit as n x n for activations (0: the device's own)
void set_image_limit_for_tests(int n);

// C, H, W of the channel-major image of a Mat shape
void mat_chw(const Mat& shape, int& C, int& H, int& W);

// image size of a seed layout for dims (a, b, c, d) as in layout.cl:
// activations (N, H, W, C), conv filter (O, I, H, W), dw filter (I, H, W, -),
// argument (W, -, -, -)
void seed_image_size(int layout, int a, int b, int c, int d, int& iw, int& ih);

// host fp32 buffer -> new image of `layout` (owned by the caller)
int upload_seed_layout(Context* ctx, int layout, const float* data, size_t count, int a, int b, int c, int d,
                       bool half, Image& out);
// host int8 buffer -> new read-only image of `layout` with signed 8-bit
// RGBA channels (one char4 texel where the float image has one float4: a
// quarter of the bytes; kernels read it with read_imagei), texels built on
// the host with layout.cl's layout_index
int upload_seed_layout_int8(Context* ctx, int layout, const signed char* data, size_t count, int a, int b, int c, int d,
                            Image& out);
// image -> host fp32 buffer (count elements) through image_to_buffer
int download_seed_layout(Context* ctx, int layout, const Image& img, float* data, size_t count, int a, int b, int c,
                         int d);

} // namespace cl
} // namespace kite

#endif // KITE_GPU_OPENCL_CL_LAYOUT_H
