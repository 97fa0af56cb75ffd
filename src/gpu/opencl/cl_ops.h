#ifndef KITE_GPU_OPENCL_CL_OPS_H
#define KITE_GPU_OPENCL_CL_OPS_H

// Helpers shared by the OpenCL layer drivers (layer/opencl/*_opencl.cpp).

#include "../../layer.h"
#include "cl_layout.h"
#include "cl_runtime.h"

#include <initializer_list>
#include <vector>

namespace kite {
namespace cl {

inline ClBlob* blob(const GpuBlobPtr& p)
{
    return static_cast<ClBlob*>(p.get());
}

inline Session& session(GpuSession& s)
{
    return static_cast<Session&>(s);
}

// Mat shape headers (no data) for create_blob
Mat shape1(int w);
Mat shape2(int w, int h);
Mat shape3(int w, int h, int c);

// enqueue `name` of `program` over (gx, gy) with `args` set by the caller's
// lambda-free style: kernel() first, then KernelArgs, then run2d
int run2d(Session& s, cl_kernel k, const char* name, int gx, int gy, const KernelArgs& args);
// `groups` work groups of 64 items in one dimension (kernels that reduce in local memory)
int run_groups64(Session& s, cl_kernel k, const char* name, int groups, const KernelArgs& args);

// For shapes a driver has no kernel for: returns KITE_GPU_CANNOT_HOLD, on
// which the Extractor runs the layer's reference class on the CPU (logged
// once per layer name, cpu:reference in the placement report): the one
// fallback rule of both GPU backends (gpu/cpu_fallback.h).
int run_on_cpu(const Layer* l, const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, Session& s,
               const Option& opt);

// weights owned by a layer (released in destroy_pipeline)
struct Weights
{
    Context* ctx = nullptr;
    std::vector<Image> images;
    Image& add()
    {
        images.push_back(Image());
        return images.back();
    }
    void release()
    {
        for (Image& i : images)
            if (ctx)
                ctx->release_image(i);
        images.clear();
    }
};

// out = activation(in) over the whole image (eltwise.cl), act as in common.h.cl
int run_activation(Session& s, const GpuBlobPtr& in, GpuBlobPtr& out, int act, float p0, float p1);

// Layers whose outputs depend on the input shapes only, worked out once per
// input shapes on the host and kept on the device:
//  - GATHER: layers that only move data (Flatten, Reshape, Permute, Crop,
//    Slice, ShuffleChannel, Concat on any axis, nearest Interp): the
//    reference layer runs once on tensors holding their own element indices,
//    which gives every output element's source; a gather kernel then moves
//    the data on the device at every run
//  - CONSTANT: layers whose outputs do not depend on input values (PriorBox,
//    MemoryData): the reference output is uploaded once and reused
class ShapeCache
{
public:
    enum Mode
    {
        GATHER = 0,
        CONSTANT = 1,
    };
    explicit ShapeCache(int mode) : mode_(mode) {}
    ~ShapeCache();
    int forward(const Layer* l, const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, Session& s,
                const Option& opt);
    // GATHER with constants (Padding): the index maps come from `map_layer`
    // (a copy of the layer whose constants are -1 .. -n), and a map index
    // -k-1 writes fill[k]. Call once, before the first forward.
    void set_fill(const Layer* map_layer, const std::vector<float>& fill)
    {
        map_layer_ = map_layer;
        fill_ = fill;
    }

private:
    struct Entry
    {
        std::vector<ClBlobPtr> outs; // index maps (GATHER) or outputs (CONSTANT)
        cl_mem meta = nullptr;       // GATHER: per input (offset, C, H, W)
    };
    int build(const Layer* l, const std::vector<GpuBlobPtr>& bottoms, int ntops, Session& s, const Option& opt, Entry& e);
    int mode_;
    const Layer* map_layer_ = nullptr;
    std::vector<float> fill_;
    cl_mem fill_mem_ = nullptr; // fill_ on the device (one float at least)
    std::mutex mutex_;
    std::map<std::string, Entry> cache_;
};

// the reference forward of `l` on CPU Mats (one_blob_only / in-place aware)
int cpu_forward(const Layer* l, std::vector<Mat>& in, std::vector<Mat>& out, int ntops, const Option& opt);

// y = alpha * (x w^T + beta * bias) over the rows of a dims-2 blob x (w = K,
// h = rows); w [N][K] is uploaded in the seeds' width-major layout
// (NHWC 1, N, K, 1: pixel (kb, n) = w[n][kb*4..+3]); bias_mode 0 none,
// 1 per output column, 2 one scalar. Output dims 2 (w = N, h = rows), a float
// image with force_float (a layer's intermediate) whatever the storage.
int upload_linear_weights(Context* ctx, const float* w, int N, int K, Image& out, bool half = false);
int run_linear(Session& s, const ClBlob* x, const Image& w, const Image& bias, int bias_mode, int K, int N, float alpha,
               float beta, ClBlobPtr& out, bool force_float = false);

// Build (or load from the binary cache) the programs a layer runs, in the
// variant `opt` selects (half arithmetic or not), from its create_pipeline:
// a net's load builds the programs of its own layers and no others. Programs
// of layers without weights are built at their first use (Session::kernel).
int prepare_programs(Context* ctx, const Option& opt, std::initializer_list<const char*> programs);

// a 1-D argument image of n floats (zeros where data is null)
int upload_argument(Context* ctx, const float* data, int n, Image& out);

// The int8 layers (shaders/opencl/int8.cl; their weights are int8 images,
// upload_seed_layout_int8): the per-channel arguments as one image
// [(n+3)/4, 4], rows bias, scale_in (dequantize), scale_out (requantize),
// bottom scale (input quantize); a null row is zeros
int upload_int8_arguments(Context* ctx, int n, const float* bias, const float* scale_in, const float* scale_out,
                          const float* bottom_scale, Image& out);

} // namespace cl
} // namespace kite

#endif // KITE_GPU_OPENCL_CL_OPS_H
