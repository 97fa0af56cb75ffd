#include "cl_ops.h"
#include "../cpu_fallback.h"

#include "../../log.h"

#include <algorithm>
#include <cstdio>
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

int run_groups64(Session& s, cl_kernel k, const char* name, int groups, const KernelArgs& args)
{
    if (args.error())
    {
        KITE_LOGE("OpenCL: setting the arguments of %s failed (%s)", name, error_string(args.error()));
        return -1;
    }
    size_t gws[1] = {(size_t)groups * 64}, lws[1] = {64};
    return s.dispatch(k, name, 1, gws, lws);
}

int cpu_forward(const Layer* l, std::vector<Mat>& in, std::vector<Mat>& out, int ntops, const Option& opt0)
{
    Option opt = opt0;
    opt.use_packing_layout = false;
    opt.use_fp16_storage = false;
    opt.use_opencl = false;
    opt.use_vulkan_compute = false;
    int ret;
    if (l->support_inplace)
    {
        for (Mat& m : in)
            m = m.clone();
        ret = l->one_blob_only ? l->forward_inplace(in[0], opt) : l->forward_inplace(in, opt);
        out = in;
    }
    else if (l->one_blob_only)
    {
        out.resize(1);
        ret = l->forward(in[0], out[0], opt);
    }
    else
    {
        out.resize((size_t)ntops);
        ret = l->forward(in, out, opt);
    }
    return ret;
}

static std::string shape_key(const std::vector<GpuBlobPtr>& bottoms)
{
    std::string k;
    char buf[96];
    for (const GpuBlobPtr& g : bottoms)
    {
        const Mat& m = g->shape;
        snprintf(buf, sizeof(buf), "%d:%d,%d,%d,%d;", m.dims, m.w, m.h, m.d, m.c);
        k += buf;
    }
    return k;
}

static Mat host_mat_like(const Mat& s)
{
    Mat m;
    if (s.dims == 1)
        m.create(s.w);
    else if (s.dims == 2)
        m.create(s.w, s.h);
    else if (s.dims == 3)
        m.create(s.w, s.h, s.c);
    else
        m.create(s.w, s.h, s.d, s.c);
    return m;
}

ShapeCache::~ShapeCache()
{
    for (auto& kv : cache_)
        if (kv.second.meta)
            api()->clReleaseMemObject(kv.second.meta);
    if (fill_mem_)
        api()->clReleaseMemObject(fill_mem_);
}

int ShapeCache::build(const Layer* l, const std::vector<GpuBlobPtr>& bottoms, int ntops, Session& s, const Option& opt, Entry& e)
{
    // the maps are kept with the layer, in images of their own: a replay
    // does not upload them again, and no recorded launch writes them
    struct NotRecorded
    {
        Session& s;
        bool was;
        ~NotRecorded()
        {
            s.swap_recording(was);
            s.own_images = false;
        }
    } not_recorded{s, s.swap_recording(false)};
    s.own_images = true;
    std::vector<Mat> in(bottoms.size()), out;
    std::vector<int> meta;
    long long offset = 0;
    for (size_t i = 0; i < bottoms.size(); i++)
    {
        const ClBlob* b = blob(bottoms[i]);
        in[i] = host_mat_like(b->shape);
        if (in[i].empty())
            return -100;
        in[i].fill(0.f);
        if (mode_ == GATHER)
        {
            // element (c, y, x) of the channel-major view holds its global index
            const long long n = (long long)b->C * b->H * b->W;
            if (offset + n >= (1 << 24))
                return 1; // indices not exact in fp32: caller runs it on the CPU
            float* p = in[i];
            const Mat& m = in[i];
            const size_t plane = (size_t)b->H * b->W;
            for (int c = 0; c < b->C; c++)
            {
                float* row = m.dims <= 2 ? p + (size_t)c * plane : p + (size_t)c * m.cstep;
                for (size_t j = 0; j < plane; j++)
                    row[j] = (float)(offset + (long long)c * plane + (long long)j);
            }
            meta.push_back((int)offset);
            meta.push_back(b->C);
            meta.push_back(b->H);
            meta.push_back(b->W);
            offset += n;
        }
    }
    int ret = cpu_forward(mode_ == GATHER && map_layer_ ? map_layer_ : l, in, out, ntops, opt);
    if (ret != 0)
        return ret;
    e.outs.resize(out.size());
    for (size_t i = 0; i < out.size(); i++)
    {
        ret = mode_ == GATHER ? s.upload_float(out[i], e.outs[i], opt) : 0;
        if (mode_ == CONSTANT)
        {
            GpuBlobPtr g;
            ret = s.upload(out[i], g, nullptr, opt);
            e.outs[i] = std::static_pointer_cast<ClBlob>(g);
        }
        if (ret != 0)
            return ret;
    }
    if (mode_ == GATHER)
    {
        cl_int err = 0;
        e.meta = api()->clCreateBuffer(s.ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, meta.size() * sizeof(int), meta.data(), &err);
        if (!e.meta)
            return -100;
        if (!fill_mem_)
        {
            std::vector<float> f(fill_);
            if (f.empty())
                f.push_back(0.f);
            fill_mem_ = api()->clCreateBuffer(s.ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, f.size() * sizeof(float), f.data(), &err);
            if (!fill_mem_)
                return -100;
        }
    }
    return 0;
}

int ShapeCache::forward(const Layer* l, const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, Session& s,
                        const Option& opt)
{
    if (mode_ == GATHER && (bottoms.empty() || bottoms.size() > 8))
        return run_on_cpu(l, bottoms, tops, s, opt);
    std::string key = shape_key(bottoms) + "@" + std::to_string(s.ctx->index) + (s.half_storage ? "h" : "f");
    Entry* e = nullptr;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = cache_.find(key);
        if (it == cache_.end())
        {
            Entry ne;
            int ret = build(l, bottoms, (int)tops.size(), s, opt, ne);
            if (ret > 0)
                return run_on_cpu(l, bottoms, tops, s, opt);
            if (ret != 0)
                return ret;
            it = cache_.insert(std::make_pair(key, ne)).first;
        }
        e = &it->second;
    }
    tops.resize(e->outs.size());
    if (mode_ == CONSTANT)
    {
        for (size_t i = 0; i < e->outs.size(); i++)
            tops[i] = e->outs[i];
        return 0;
    }
    cl_kernel k = s.kernel("shape", "gather");
    if (!k)
        return -1;
    // int8 blobs stay int8 through the layers that move int8 data on the CPU
    bool int8 = l->support_int8_storage;
    for (const GpuBlobPtr& b : bottoms)
        int8 = int8 && blob(b)->int8;
    for (size_t i = 0; i < e->outs.size(); i++)
    {
        const ClBlob* map = e->outs[i].get();
        ClBlobPtr out;
        int ret = s.create_blob(map->shape, out, false, true); // folded like its map where over the limit
        if (ret != 0)
            return ret;
        KernelArgs a(k);
        a.img(map->image);
        for (size_t j = 0; j < 8; j++)
            a.img(blob(bottoms[j < bottoms.size() ? j : 0])->image);
        a.img(out->image).i(out->image.width).i(out->image.height).i((int)bottoms.size()).mem(e->meta).mem(fill_mem_);
        ret = run2d(s, k, "gather", out->image.width, out->image.height, a);
        if (ret != 0)
            return ret;
        out->int8 = int8;
        tops[i] = out;
    }
    return 0;
}

int run_on_cpu(const Layer* l, const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, Session& s,
               const Option& opt)
{
    // the one GPU fallback rule (gpu/cpu_fallback.h): the Extractor runs the
    // layer's reference on the CPU and says so in the placement report
    (void)l;
    (void)bottoms;
    (void)tops;
    (void)s;
    (void)opt;
    return KITE_GPU_CANNOT_HOLD;
}

int run_activation(Session& s, const GpuBlobPtr& in, GpuBlobPtr& out, int act, float p0, float p1)
{
    const ClBlob* b = blob(in);
    ClBlobPtr o;
    // texel by texel over the whole image: a folded input (cl_layout.h) gives
    // a folded output of the same shape
    int ret = s.create_blob(b->shape, o, false, true);
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

int upload_linear_weights(Context* ctx, const float* w, int N, int K, Image& out, bool half)
{
    return upload_seed_layout(ctx, SEED_WIDTH_MAJOR, w, (size_t)N * K, 1, N, K, 1, half, out);
}

int run_linear(Session& s, const ClBlob* x, const Image& w, const Image& bias, int bias_mode, int K, int N, float alpha,
               float beta, ClBlobPtr& out, bool force_float)
{
    int ret = s.create_blob(shape2(N, x->C), out, force_float);
    if (ret != 0)
        return ret;
    cl_kernel k = s.kernel("transformer", "linear");
    if (!k)
        return -1;
    const int RB = div4(x->C);
    KernelArgs a(k);
    a.img(x->image).img(w).img(bias).img(out->image).i(RB).i(K).i(N).i(bias_mode).f(alpha).f(beta);
    return run2d(s, k, "linear", RB, N, a);
}

int prepare_programs(Context* ctx, const Option& opt, std::initializer_list<const char*> programs)
{
    const bool half = half_arithmetic(ctx, opt);
    for (const char* p : programs)
        if (ctx->prepare_program(p, half) != 0)
            return -1;
    return 0;
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

int upload_int8_arguments(Context* ctx, int n, const float* bias, const float* scale_in, const float* scale_out,
                          const float* bottom_scale, Image& out)
{
    // rows of n channels: the channel-major layout with N = 1, H = 4, W = 1
    const float* rows[4] = {bias, scale_in, scale_out, bottom_scale};
    std::vector<float> data((size_t)n * 4, 0.f);
    for (int r = 0; r < 4; r++)
        if (rows[r])
            std::copy(rows[r], rows[r] + n, data.begin() + (size_t)r * n);
    return upload_seed_layout(ctx, SEED_CHANNEL_MAJOR, data.data(), data.size(), 1, 4, 1, n, false, out);
}

} // namespace cl
} // namespace kite
