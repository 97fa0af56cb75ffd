// Slice on OpenCL. Along axis 0 (the channel-major image's C: c, h of dims 2,
// w of dims 1) every output in one launch, 4 outputs per launch, reading
// through a ShuffleChannel whose launch was put off (channel_slice_opencl.h).
// Other axes and folded images: the element map worked out once per input
// shape and applied by the gather kernel (cl::ShapeCache).
#include "slice.h"

#include "channel_slice_opencl.h"

namespace kite {

class Slice_opencl : public Slice
{
public:
    Slice_opencl() { support_opencl = true; }
    bool accept() const override { return true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        const int dims = in->dims();
        const int n = (int)tops.size();
        if (bottoms.size() != 1 || n < 1 || dims < 1 || dims > 4 || !(axis == 0 || axis == -dims) || !cl::natural_image(in))
            return cache_.forward(this, bottoms, tops, s, opt);
        std::vector<int> starts, lens;
        if (resolve_slices(in->C, n, starts, lens) != 0)
            return -1;
        return cl::run_channel_slices(s, std::static_pointer_cast<cl::ClBlob>(bottoms[0]), starts, lens,
                                      support_int8_storage && in->int8, tops);
    }

private:
    mutable cl::ShapeCache cache_{cl::ShapeCache::GATHER};
};

DEFINE_LAYER_CREATOR(Slice_opencl)

} // namespace kite
