// Put-off launches: a layer's launch kept until a later launch reads its
// output (or the forward ends), so that an activation right after it can
// run in the same launch.
#include "cl_runtime.h"

#include "cl_layout.h"
#include "cl_runtime_internal.h"
#include "../layer_note.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace kite {
namespace cl {

void Session::defer(ClBlob& out, std::function<int()> run)
{
    std::shared_ptr<Deferred> d = std::make_shared<Deferred>();
    d->image = out.image.mem;
    d->run = std::move(run);
    d->owner = gpu_layer_type();
    out.deferred = d;
    deferred_.push_back(d);
}

int Session::settle(const ClBlob* b)
{
    if (!b || !b->deferred || b->deferred->settled)
        return 0;
    b->deferred->settled = true;
    return run_deferred(*b->deferred);
}

int Session::activation_of_deferred(const GpuBlobPtr& in, GpuBlobPtr& out, int act, float p0, float p1)
{
    const ClBlob* b = static_cast<const ClBlob*>(in.get());
    if (!b || !b->deferred || b->deferred->settled || !b->with_activation)
        return 1;
    ClBlobPtr o;
    int ret = create_blob(b->shape, o);
    if (ret != 0)
        return ret;
    ret = b->with_activation(act, p0, p1, o->image);
    if (ret == 0)
        out = o;
    return ret;
}

void Session::defer_elementwise(ClBlob& out, std::function<int(int, float, float, const Image&)> run)
{
    out.with_activation = run;
    const Image dst = out.image;
    defer(out, [run, dst]() { return run(0, 0.f, 0.f, dst); });
}

int Session::defer_residual_add(const ClBlobPtr& a, const ClBlobPtr& b, int ca, int cb, ClBlob& out)
{
    if (!a || !b || a == b)
        return 1;
    const bool on_a = cl::pending(a.get()) && a->with_residual, on_b = cl::pending(b.get()) && b->with_residual;
    if (!on_a && !on_b)
        return 1;
    const ClBlobPtr conv = on_a ? a : b, res = on_a ? b : a;
    const int rc = on_a ? (cb >= 0 ? cb : b->C) : (ca >= 0 ? ca : a->C);
    auto natural = [](const ClBlob* p) { return p->image.width == p->W * div4(p->C) && p->image.height == p->H; };
    if (conv->C != out.C || conv->H != out.H || conv->W != out.W || res->H != out.H || res->W != out.W || rc > out.C ||
        !natural(conv.get()) || !natural(res.get()) || !natural(&out) || res->int8 || conv->int8)
        return 1;
    // the convolution's launch (not its blob: nobody else may read that)
    const std::function<int(const Image&, int, int, float, float, const Image&)> run = conv->with_residual;
    conv->deferred->read_through = true;
    defer_elementwise(out, [run, res, rc](int act, float p0, float p1, const Image& dst) {
        return run(res->image, rc, act, p0, p1, dst);
    });
    return 0;
}

int Session::defer_activation(const GpuBlobPtr& in, GpuBlobPtr& out, int act, float p0, float p1)
{
    ClBlobPtr b = std::static_pointer_cast<ClBlob>(in);
    if (!b || b->int8 || b->image.width != b->W * div4(b->C) || b->image.height != b->H)
        return 1;
    ClBlobPtr o;
    int ret = create_blob(b->shape, o);
    if (ret != 0)
        return ret;
    o->act_src = b;
    o->act_type = act;
    o->act_p0 = p0;
    o->act_p1 = p1;
    Session* sp = this;
    const Image dst = o->image;
    defer(*o, [sp, b, dst, act, p0, p1]() {
        cl_kernel k = sp->kernel("eltwise", "activation");
        if (!k)
            return -1;
        KernelArgs a(k);
        a.img(b->image).img(dst).i(dst.width).i(dst.height).i(act).f(p0).f(p1);
        if (a.error())
            return -1;
        size_t gws[2] = {(size_t)dst.width, (size_t)dst.height};
        return sp->dispatch(k, "activation", dst.height > 1 ? 2 : 1, gws);
    });
    out = o;
    return 0;
}

const char* Session::owner() const
{
    const char* t = running_owner_ ? running_owner_ : gpu_layer_type();
    return t ? t : "(transfer)";
}

int Session::run_deferred(Deferred& d)
{
    const char* was = running_owner_;
    running_owner_ = d.owner;
    const int ret = d.run();
    running_owner_ = was;
    return ret;
}

bool fusion_on(const char* name)
{
    const char* e = getenv(name);
    return !(e && e[0] == '0' && e[1] == 0);
}

bool fusion_opted_in(const char* name)
{
    const char* e = getenv(name);
    return e && e[0] == '1' && e[1] == 0;
}

int Session::settle_all()
{
    // drop what is settled first: a put-off launch dropped now lets go of
    // the blobs it reads, and those its readers read through (a Concat read
    // by a ShuffleChannel that nobody read) are then never run
    deferred_.erase(std::remove_if(deferred_.begin(), deferred_.end(),
                                   [](const std::shared_ptr<Deferred>& d) { return d->settled; }),
                    deferred_.end());
    const std::vector<std::shared_ptr<Deferred> > pending = deferred_; // a run changes deferred_
    for (const std::shared_ptr<Deferred>& d : pending)
    {
        if (d->settled || d->read_through)
            continue;
        d->settled = true;
        int ret = run_deferred(*d);
        if (ret != 0)
            return ret;
    }
    // what was read through stays pending: a launch that reads it runs it
    deferred_.erase(std::remove_if(deferred_.begin(), deferred_.end(),
                                   [](const std::shared_ptr<Deferred>& d) { return d->settled; }),
                    deferred_.end());
    return 0;
}

int Session::settle_for(cl_kernel k)
{
    deferred_.erase(std::remove_if(deferred_.begin(), deferred_.end(),
                                   [](const std::shared_ptr<Deferred>& d) { return d->settled; }),
                    deferred_.end());
    if (deferred_.empty())
        return 0;
    const std::vector<std::vector<unsigned char> > args = shadowed_args(k);
    bool ran = false;
    const std::vector<std::shared_ptr<Deferred> > pending = deferred_; // a run changes deferred_
    for (const std::shared_ptr<Deferred>& d : pending)
    {
        if (d->settled)
            continue;
        for (const std::vector<unsigned char>& arg : args)
            if (arg.size() == sizeof(cl_mem) && memcmp(arg.data(), &d->image, sizeof(cl_mem)) == 0)
            {
                d->settled = true;
                ran = true;
                int ret = run_deferred(*d);
                if (ret != 0)
                    return ret;
                break;
            }
    }
    if (ran)
    {
        // the put-off launch may have used k itself: its arguments again
        for (size_t i = 0; i < args.size(); i++)
        {
            shadow_arg(k, (cl_uint)i, args[i].size(), args[i].data());
            if (api()->clSetKernelArg(k, (cl_uint)i, args[i].size(), args[i].data()) != CL_SUCCESS)
                return -1;
        }
    }
    return 0;
}

} // namespace cl
} // namespace kite
