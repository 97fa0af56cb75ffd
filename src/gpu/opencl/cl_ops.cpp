#include "cl_ops.h"

#include "../../log.h"

#include <mutex>
#include <set>
#include <string>

namespace kite {
namespace cl {

Mat shape1(int w)
{
    Mat m;
    m.dims = 1;
    m.w = w;
    m.h = m.d = m.c = 1;
    return m;
}

Mat shape2(int w, int h)
{
    Mat m = shape1(w);
    m.dims = 2;
    m.h = h;
    return m;
}

Mat shape3(int w, int h, int c)
{
    Mat m = shape2(w, h);
    m.dims = 3;
    m.c = c;
    return m;
}

int run2d(Session& s, cl_kernel k, const char* name, int gx, int gy, const KernelArgs& args)
{
    if (args.error())
    {
        KITE_LOGE("OpenCL: setting the arguments of %s failed (%s)", name, error_string(args.error()));
        return -1;
    }
    size_t gws[2] = {(size_t)gx, (size_t)gy};
    return s.dispatch(k, name, gy > 1 ? 2 : 1, gws);
}

int run_on_cpu(const Layer* l, const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, Session& s,
               const Option& opt)
{
    {
        static std::mutex m;
        static std::set<std::string> told;
        std::lock_guard<std::mutex> lock(m);
        if (told.insert(l->name).second)
            KITE_LOGW("OpenCL: %s '%s' has no kernel for this shape; it runs on the CPU", l->type.c_str(), l->name.c_str());
    }
    Option copt = opt;
    copt.use_packing_layout = false;
    copt.use_fp16_storage = false;
    std::vector<Mat> in(bottoms.size()), out;
    for (size_t i = 0; i < bottoms.size(); i++)
    {
        int ret = s.download(bottoms[i], in[i], copt);
        if (ret != 0)
            return ret;
    }
    int ret;
    if (l->support_inplace)
    {
        for (Mat& m : in)
            m = m.clone();
        ret = l->one_blob_only ? l->forward_inplace(in[0], copt) : l->forward_inplace(in, copt);
        out = in;
    }
    else if (l->one_blob_only)
    {
        out.resize(1);
        ret = l->forward(in[0], out[0], copt);
    }
    else
    {
        out.resize(tops.size());
        ret = l->forward(in, out, copt);
    }
    if (ret != 0)
        return ret;
    tops.resize(out.size());
    for (size_t i = 0; i < out.size(); i++)
    {
        ret = s.upload(out[i], tops[i], nullptr, opt);
        if (ret != 0)
            return ret;
    }
    return 0;
}

int run_activation(Session& s, const GpuBlobPtr& in, GpuBlobPtr& out, int act, float p0, float p1)
{
    const ClBlob* b = blob(in);
    ClBlobPtr o;
    int ret = s.create_blob(b->shape, o);
    if (ret != 0)
        return ret;
    cl_kernel k = s.kernel("eltwise", "activation");
    if (!k)
        return -1;
    KernelArgs a(k);
    a.img(b->image).img(o->image).i(b->image.width).i(b->image.height).i(act).f(p0).f(p1);
    ret = run2d(s, k, "activation", b->image.width, b->image.height, a);
    if (ret == 0)
        out = o;
    return ret;
}

int upload_argument(Context* ctx, const float* data, int n, Image& out)
{
    std::vector<float> zeros;
    if (!data)
    {
        zeros.assign((size_t)std::max(n, 1), 0.f);
        data = zeros.data();
    }
    return upload_seed_layout(ctx, SEED_ARGUMENT, data, (size_t)n, std::max(n, 1), 1, 1, 1, false, out);
}

} // namespace cl
} // namespace kite
