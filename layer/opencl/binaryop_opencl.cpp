// BinaryOp on OpenCL images: two same-shaped inputs, one input and the
// scalar, or an input with one value per channel of the other ([W, H, C] and
// [1, 1, C] or [C], either side) in one launch. Other broadcasting shapes follow the reference exactly:
// each input is first gathered into the output shape (cl::ShapeCache with an
// index map from the reference: an ADD of that input's element numbers and
// zeros for the other), then the two run as same-shaped inputs. Folded
// inputs (cl_layout.h; a transformer's [E, 1, tokens] blob is E * tokens / 4
// texels wide) take the texel-by-texel and gather paths only.
#include "binaryop.h"

#include "gpu/opencl/cl_ops.h"

#include <memory>

namespace kite {

namespace {

// the reference ADD of input `side` (element numbers, as ShapeCache gives
// them) and zeros of the other input's shape: for every output element, the
// element of input `side` it reads
class BroadcastSide : public Layer
{
public:
    explicit BroadcastSide(int s) : side(s)
    {
        one_blob_only = false;
        support_inplace = false;
        ParamDict pd;
        pd.set(BinaryOp::PARAM_OP_TYPE, (int)BinaryOp::Operation_ADD);
        add.reset(create_layer("BinaryOp"));
        if (add && add->load_param(pd) != 0)
            add.reset();
    }
    int forward(const std::vector<Mat>& in, std::vector<Mat>& out, const Option& opt) const override
    {
        if (!add || in.size() != 2)
            return -1;
        std::vector<Mat> v(in);
        v[1 - side] = in[1 - side].clone();
        if (v[1 - side].empty())
            return -100;
        v[1 - side].fill(0.f);
        out.resize(1);
        return add->forward(v, out, opt);
    }

private:
    int side;
    std::unique_ptr<Layer> add;
};

} // namespace

class BinaryOp_opencl : public BinaryOp
{
public:
    BinaryOp_opencl() { support_opencl = true; }
    bool accept() const override { return op_type >= 0 && op_type < Operation_COUNT; }
    int create_pipeline(const Option& opt) override
    {
        int ret = BinaryOp::create_pipeline(opt);
        if (ret != 0)
            return ret;
        for (int i = 0; i < 2; i++)
            cache_[i].set_fill(&side_[i], std::vector<float>());
        return 0;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* a = cl::blob(bottoms[0]);
        const cl::ClBlob* b = bottoms.size() > 1 ? cl::blob(bottoms[1]) : nullptr;
        const bool scalar = with_scalar != 0 || !b;
        std::vector<GpuBlobPtr> in(bottoms);
        // same-shaped images run texel by texel, folded (cl_layout.h) or not
        const bool same = scalar || (b->dims() == a->dims() && b->C == a->C && b->H == a->H && b->W == a->W &&
                                     b->image.width == a->image.width && b->image.height == a->image.height);
        if (!same)
        {
            // one value per channel (per row of a 2-D blob) either way round: one launch
            const int small = per_channel(b, a) ? 1 : per_channel(a, b) ? 0 : -1;
            if (small >= 0)
                return run_per_channel(s, small == 1 ? bottoms[0] : bottoms[1], bottoms[0], bottoms[1], small, tops);
        }
        if (!same)
        {
            // broadcasting: both inputs gathered into the output shape
            const long long n = (long long)a->C * a->H * a->W + (long long)b->C * b->H * b->W;
            if (n >= (1 << 24))
                return cl::run_on_cpu(this, bottoms, tops, s, opt); // indices not exact in fp32
            for (int i = 0; i < 2; i++)
            {
                std::vector<GpuBlobPtr> t(1);
                int ret = cache_[i].forward(this, bottoms, t, s, opt);
                if (ret != 0)
                    return ret;
                in[i] = t[0];
            }
            a = cl::blob(in[0]);
            b = cl::blob(in[1]);
        }
        cl::ClBlobPtr out;
        int ret = s.create_blob(a->shape, out, false, true); // folded like a where over the limit
        if (ret != 0)
            return ret;
        // put off: an activation layer that follows runs in the same launch
        cl::Session* sp = &s;
        cl::ClBlobPtr pa = std::static_pointer_cast<cl::ClBlob>(in[0]);
        cl::ClBlobPtr pb = scalar ? pa : std::static_pointer_cast<cl::ClBlob>(in[1]);
        // a put-off channel Padding on either side: its input, zero-padded as read
        int ca = -1, cb = -1;
        if (same && cl::fusion_on("KITE_OPENCL_FUSE_PAD"))
        {
            auto unpad = [](cl::ClBlobPtr& p, int& cs) {
                const cl::ClBlob* q = p->pad_src.get();
                if (cl::pending(p.get()) && q && q->H == p->H && q->W == p->W && q->C < p->C && p->pad_value == 0.f &&
                    q->image.width == q->W * ((q->C + 3) / 4) && q->image.height == q->H)
                {
                    cs = q->C;
                    p->deferred->read_through = true;
                    p = p->pad_src;
                }
            };
            unpad(pa, ca);
            if (!scalar)
                unpad(pb, cb);
        }
        // a residual sum after a 1x1 convolution: in the convolution's launch
        if (!scalar && op_type == Operation_ADD && s.defer_residual_add(pa, pb, ca, cb, *out) == 0)
        {
            tops[0] = out;
            return 0;
        }
        const int op = op_type, sc = scalar ? 1 : 0, W = a->W, iw = a->image.width, ih = a->image.height;
        const float value = this->b;
        s.defer_elementwise(*out, [sp, pa, pb, op, sc, value, W, iw, ih, ca, cb](int act, float p0, float p1, const cl::Image& dst) {
            cl_kernel k = sp->kernel("transformer", "binaryop");
            if (!k)
                return -1;
            cl::KernelArgs ar(k);
            ar.img(pa->image).img(pb->image).img(dst).i(iw).i(ih);
            ar.i(op).i(sc).f(value).i(act).f(p0).f(p1).i(W).i(ca).i(cb);
            return cl::run2d(*sp, k, "binaryop", iw, ih, ar);
        });
        tops[0] = out;
        return ret;
    }

private:
    // whether the reference broadcasts `small` as one value per channel of
    // `full` (per row where full is 2-D: layer/binaryop.cpp expand), which in
    // the channel-major image is one pixel per channel block, at (block, 0)
    static bool per_channel(const cl::ClBlob* small, const cl::ClBlob* full)
    {
        const Mat& m = small->shape;
        const Mat& f = full->shape;
        bool ok;
        if (f.dims == 2)
            ok = (m.dims == 1 && m.w == f.h) || (m.dims == 2 && m.w == 1 && m.h == f.h);
        else if (f.dims == 3)
            ok = (m.dims == 1 && m.w == f.c) || (m.dims == 3 && m.w == 1 && m.h == 1 && m.c == f.c);
        else if (f.dims == 4)
            ok = (m.dims == 1 && m.w == f.c) || (m.dims == 4 && m.w == 1 && m.h == 1 && m.d == 1 && m.c == f.c);
        else
            ok = false;
        // and the images are laid out so (cl_layout.h)
        return ok && small->C == full->C && small->H == 1 && small->W == 1 && small->image.width == (full->C + 3) / 4 &&
               small->image.height == 1 && full->image.width == full->W * ((full->C + 3) / 4);
    }

    int run_per_channel(cl::Session& s, const GpuBlobPtr& full, const GpuBlobPtr& a, const GpuBlobPtr& b, int small,
                        std::vector<GpuBlobPtr>& tops) const
    {
        cl::ClBlobPtr out;
        int ret = s.create_blob(full->shape, out);
        if (ret != 0)
            return ret;
        cl::Session* sp = &s;
        const cl::ClBlobPtr pf = std::static_pointer_cast<cl::ClBlob>(full);
        cl::ClBlobPtr pa = std::static_pointer_cast<cl::ClBlob>(a), pb = std::static_pointer_cast<cl::ClBlob>(b);
        // a put-off activation on the small side (mobilenet_v3's HardSigmoid
        // scales): read its input and apply it here
        cl::ClBlobPtr& ps = small == 1 ? pb : pa;
        int sact = 0;
        float sp0 = 0.f, sp1 = 0.f;
        if (ps->deferred && !ps->deferred->settled && ps->act_src && ps->act_src->C == ps->C && ps->act_src->H == ps->H &&
            ps->act_src->W == ps->W && ps->act_src->image.width == ps->image.width && ps->act_src->image.height == ps->image.height)
        {
            sact = ps->act_type;
            sp0 = ps->act_p0;
            sp1 = ps->act_p1;
            ps = ps->act_src;
        }
        const int op = op_type;
        s.defer_elementwise(*out, [sp, pf, pa, pb, op, small, sact, sp0, sp1](int act, float p0, float p1, const cl::Image& dst) {
            cl_kernel k = sp->kernel("transformer", "binaryop_c");
            if (!k)
                return -1;
            cl::KernelArgs ar(k);
            ar.img(pa->image).img(pb->image).img(dst).i(pf->image.width).i(pf->image.height).i(pf->W);
            ar.i(op).i(small).i(act).f(p0).f(p1).i(sact).f(sp0).f(sp1);
            return cl::run2d(*sp, k, "binaryop_c", pf->image.width, pf->image.height, ar);
        });
        tops[0] = out;
        return 0;
    }

    BroadcastSide side_[2] = {BroadcastSide(0), BroadcastSide(1)};
    mutable cl::ShapeCache cache_[2] = {cl::ShapeCache(cl::ShapeCache::GATHER), cl::ShapeCache(cl::ShapeCache::GATHER)};
};

DEFINE_LAYER_CREATOR(BinaryOp_opencl)

} // namespace kite
