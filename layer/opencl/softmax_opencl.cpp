// Softmax on OpenCL images along C (axis 0 of any dims), H or W (the image's
// other axes; w of a dims-4 blob too: its image W, every d*h row apart, as
// in Swin's window attention); a dims-4 blob along d or h runs on the CPU. The kernels
// address natural and folded images (cl_layout.h).
#include "softmax.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class Softmax_opencl : public Softmax
{
public:
    Softmax_opencl() { support_opencl = true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        const int dims = in->dims();
        const int a = axis < 0 ? axis + dims : axis;
        // which image axis: 0 C, 1 H, 2 W
        int which = -1;
        if (a == 0)
            which = 0;
        else if (dims == 2 && a == 1)
            which = 1;
        else if (dims == 3)
            which = a;
        else if (dims == 4 && a == 3)
            which = 2;
        if (which < 0)
            return cl::run_on_cpu(this, bottoms, tops, s, opt);
        cl::ClBlobPtr out;
        int ret = s.create_blob(in->shape, out, false, true); // folded like the input (shape.cl rd_fold)
        if (ret != 0)
            return ret;
        if (which == 0)
        {
            cl_kernel k = s.kernel("shape", "softmax_c");
            if (!k)
                return -1;
            cl::KernelArgs ar(k);
            ar.img(in->image).img(out->image).i(in->C).i(in->H).i(in->W);
            ret = cl::run2d(s, k, "softmax_c", in->W, in->H, ar);
        }
        else
        {
            cl_kernel k = s.kernel("shape", "softmax_hw");
            if (!k)
                return -1;
            const int CB = cl::div4(in->C);
            cl::KernelArgs ar(k);
            ar.img(in->image).img(out->image).i(CB).i(in->H).i(in->W).i(which == 1 ? 0 : 1);
            ret = which == 1 ? cl::run2d(s, k, "softmax_h", in->W * CB, 1, ar) : cl::run2d(s, k, "softmax_w", CB, in->H, ar);
        }
        if (ret != 0)
            return ret;
        tops[0] = out;
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Softmax_opencl)

} // namespace kite
