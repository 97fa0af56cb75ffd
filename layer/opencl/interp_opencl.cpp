// Interp on OpenCL: nearest resizing only moves data: the element map is
// worked out once per input shape and applied by the gather kernel
// (cl::ShapeCache); bilinear and bicubic run shape.cl's interp kernel with
// the reference's taps (layer/gpu/interp_plan.h), kept on the device per
// input shape.
#include "interp.h"

#include "gpu/interp_plan.h"
#include "gpu/opencl/cl_ops.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace kite {

class Interp_opencl : public Interp
{
public:
    Interp_opencl() { support_opencl = true; }
    ~Interp_opencl() override
    {
        for (auto& kv : taps_)
            if (kv.second.buf)
                cl::api()->clReleaseMemObject(kv.second.buf);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        if (resize_type == RESIZE_NEAREST)
            return cache_.forward(this, bottoms, tops, s, opt);
        if (bottoms.empty() || tops.size() != 1 || (dynamic_target_size && bottoms.size() < 2))
        {
            KITE_LOGE("Interp '%s': expects %d inputs and 1 output", name.c_str(), dynamic_target_size ? 2 : 1);
            return -1;
        }
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        const Mat& is = in->shape;
        char key[128];
        snprintf(key, sizeof(key), "%d:%d,%d,%d/%d,%d@%d", is.dims, is.w, is.h, is.c, dynamic_target_size ? bottoms[1]->shape.w : 0,
                 dynamic_target_size ? bottoms[1]->shape.h : 0, s.ctx->index);
        const Entry* e = nullptr;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            auto it = taps_.find(key);
            if (it == taps_.end())
            {
                Entry ne;
                if (interp_plan(*this, is, dynamic_target_size ? &bottoms[1]->shape : nullptr, ne.plan) != 0)
                    return -1;
                cl_int err = 0;
                ne.buf = cl::api()->clCreateBuffer(s.ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                                   ne.plan.taps.size() * sizeof(float), ne.plan.taps.data(), &err);
                if (!ne.buf)
                    return -100;
                it = taps_.insert(std::make_pair(std::string(key), ne)).first;
            }
            e = &it->second;
        }
        const InterpPlan& p = e->plan;
        cl::ClBlobPtr out;
        int ret = s.create_blob(p.out, out);
        if (ret != 0)
            return ret;
        cl_kernel k = s.kernel("shape", "interp");
        if (!k)
            return -1;
        cl::KernelArgs a(k);
        a.img(in->image).mem(e->buf).img(out->image).i(in->H).i(in->W).i(out->C).i(out->H).i(out->W);
        a.i(p.H).i(p.W).i(p.OH).i(p.OW).i(p.ntx).i(p.nty);
        ret = cl::run2d(s, k, "interp", out->image.width, out->image.height, a);
        if (ret == 0)
            tops[0] = out;
        return ret;
    }

private:
    struct Entry
    {
        InterpPlan plan;
        cl_mem buf = nullptr;
    };
    mutable cl::ShapeCache cache_{cl::ShapeCache::GATHER};
    mutable std::mutex mutex_;
    mutable std::map<std::string, Entry> taps_;
};

DEFINE_LAYER_CREATOR(Interp_opencl)

} // namespace kite
