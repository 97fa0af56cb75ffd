// Crop on OpenCL: a box that cuts channels only (axis 0 of any dims, every
// other axis whole: the channel halves after a ShuffleNet channel shuffle)
// in one launch, reading through a put-off ShuffleChannel
// (channel_slice_opencl.h), put off with the other channel Crops of the same
// blob: up to 4 run in one launch (KITE_OPENCL_FUSE_CROP=0: off); other
// boxes: the element map is worked out once per input shape and applied by
// the gather kernel (cl::ShapeCache)
#include "crop.h"

#include "channel_slice_opencl.h"
#include "common/shape_util.h"

namespace kite {

class Crop_opencl : public Crop
{
public:
    Crop_opencl() { support_opencl = true; }
    bool accept() const override { return true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        if (bottoms.size() == 1 && tops.size() == 1)
        {
            const cl::ClBlob* in = cl::blob(bottoms[0]);
            const int dims = in->dims();
            int start[4] = {0, 0, 0, 0}, extent[4] = {0, 0, 0, 0};
            const shape::Dims size = shape::dims_of(in->shape); // outermost first, as resolve_box
            bool channels_only = dims >= 1 && dims <= 4 && size.n == dims && cl::natural_image(in) &&
                                 resolve_box(in->shape, nullptr, start, extent) == 0 && extent[0] > 0;
            for (int a = 1; a < dims && channels_only; a++)
                channels_only = start[a] == 0 && extent[a] == size.s[a];
            if (channels_only)
                return cl::run_channel_crop(s, std::static_pointer_cast<cl::ClBlob>(bottoms[0]), start[0], extent[0],
                                            support_int8_storage && in->int8, tops);
        }
        return cache_.forward(this, bottoms, tops, s, opt);
    }

private:
    mutable cl::ShapeCache cache_{cl::ShapeCache::GATHER};
};

DEFINE_LAYER_CREATOR(Crop_opencl)

} // namespace kite
