#ifndef KITE_GPU_OPENCL_CL_OPS_H
#define KITE_GPU_OPENCL_CL_OPS_H

// Helpers shared by the OpenCL layer drivers (layer/opencl/*_opencl.cpp).

#include "../../layer.h"
#include "cl_layout.h"
#include "cl_runtime.h"

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

// The layer's CPU forward on this blob (download, Layer::forward of the
// reference class, upload): for shapes a driver has no kernel for. Logged
// once per layer name.
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

// a 1-D argument image of n floats (zeros where data is null)
int upload_argument(Context* ctx, const float* data, int n, Image& out);

} // namespace cl
} // namespace kite

#endif // KITE_GPU_OPENCL_CL_OPS_H
