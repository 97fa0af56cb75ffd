#include "crop.h"

#include "common/shape_util.h"
#include "log.h"

#include <algorithm>

namespace kite {

Crop::Crop()
{
    one_blob_only = true;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int Crop::load_param(const ParamDict& pd)
{
    woffset = pd.get(PARAM_WOFFSET, 0);
    hoffset = pd.get(PARAM_HOFFSET, 0);
    doffset = pd.get(PARAM_DOFFSET, 0);
    coffset = pd.get(PARAM_COFFSET, 0);
    outw = pd.get(PARAM_OUTW, 0);
    outh = pd.get(PARAM_OUTH, 0);
    outd = pd.get(PARAM_OUTD, 0);
    outc = pd.get(PARAM_OUTC, 0);
    woffset2 = pd.get(PARAM_WOFFSET2, 0);
    hoffset2 = pd.get(PARAM_HOFFSET2, 0);
    doffset2 = pd.get(PARAM_DOFFSET2, 0);
    coffset2 = pd.get(PARAM_COFFSET2, 0);
    starts = pd.get(PARAM_STARTS, Mat());
    ends = pd.get(PARAM_ENDS, Mat());
    axes = pd.get(PARAM_AXES, Mat());

    if (woffset < 0 || hoffset < 0 || doffset < 0 || coffset < 0 || woffset2 < 0 || hoffset2 < 0 || doffset2 < 0 || coffset2 < 0)
    {
        KITE_LOGE("Crop '%s': negative offset", name.c_str());
        return -1;
    }
    const bool numpy_style = !starts.empty() && !ends.empty();
    if (numpy_style)
    {
        if (starts.w != ends.w || (!axes.empty() && axes.w != starts.w) || starts.w > 4)
        {
            KITE_LOGE("Crop '%s': starts (%d), ends (%d) and axes (%d) must have the same length <= 4", name.c_str(), starts.w, ends.w, axes.w);
            return -1;
        }
    }
    // with no sizes at all the box comes from a second (reference) input
    one_blob_only = numpy_style || outw != 0 || outh != 0 || outd != 0 || outc != 0 || woffset2 != 0 || hoffset2 != 0 || doffset2 != 0 || coffset2 != 0;
    return 0;
}

int Crop::resolve_box(const Mat& bottom_blob, const Mat* reference_blob, int* start, int* extent) const
{
    const shape::Dims in = shape::dims_of(bottom_blob);
    const int dims = in.n;
    for (int i = 0; i < dims; i++)
    {
        start[i] = 0;
        extent[i] = in.s[i];
    }

    if (!starts.empty() && !ends.empty())
    {
        const int* sp = starts;
        const int* ep = ends;
        const int* ap = axes;
        const int n = starts.w;
        if (axes.empty() && n > dims)
        {
            KITE_LOGE("Crop '%s': %d starts for a %d-dims input", name.c_str(), n, dims);
            return -1;
        }
        for (int i = 0; i < n; i++)
        {
            int axis = axes.empty() ? i : shape::normalize_axis(ap[i], dims);
            if (axis < 0)
            {
                KITE_LOGE("Crop '%s': axis %d out of range for a %d-dims input", name.c_str(), ap[i], dims);
                return -1;
            }
            const int size = in.s[axis];
            int s = sp[i];
            int e = ep[i];
            if (s == -233)
                s = 0;
            if (e == -233)
                e = size;
            if (s < 0)
                s += size;
            if (e < 0)
                e += size;
            s = std::max(0, std::min(s, size));
            e = std::max(0, std::min(e, size));
            if (e <= s)
            {
                KITE_LOGE("Crop '%s': empty range [%d, %d) on axis %d of size %d", name.c_str(), sp[i], ep[i], axis, size);
                return -1;
            }
            start[axis] = s;
            extent[axis] = e - s;
        }
        return 0;
    }

    // per logical axis (outermost first) the offsets and requested sizes
    int off[4], off2[4], req[4];
    if (dims == 1)
    {
        off[0] = woffset; off2[0] = woffset2; req[0] = outw;
    }
    if (dims == 2)
    {
        off[0] = hoffset; off2[0] = hoffset2; req[0] = outh;
        off[1] = woffset; off2[1] = woffset2; req[1] = outw;
    }
    if (dims == 3)
    {
        off[0] = coffset; off2[0] = coffset2; req[0] = outc;
        off[1] = hoffset; off2[1] = hoffset2; req[1] = outh;
        off[2] = woffset; off2[2] = woffset2; req[2] = outw;
    }
    if (dims == 4)
    {
        off[0] = coffset; off2[0] = coffset2; req[0] = outc;
        off[1] = doffset; off2[1] = doffset2; req[1] = outd;
        off[2] = hoffset; off2[2] = hoffset2; req[2] = outh;
        off[3] = woffset; off2[3] = woffset2; req[3] = outw;
    }

    if (reference_blob)
    {
        // sizes from the reference: w/h always, d and c when it has the input's dims
        const Mat& r = *reference_blob;
        const shape::Dims rd = shape::dims_of(r);
        for (int i = 0; i < dims; i++)
        {
            off2[i] = 0;
            req[i] = in.s[i];
        }
        req[dims - 1] = r.w;
        if (dims >= 2)
            req[dims - 2] = r.dims >= 2 ? r.h : 1;
        if (dims >= 3 && r.dims == dims)
        {
            for (int i = 0; i < dims - 2; i++)
                req[i] = rd.s[i];
        }
        for (int i = 0; i < dims; i++)
        {
            if (off[i] + req[i] > in.s[i] || req[i] <= 0)
            {
                char b0[64], b1[64];
                KITE_LOGE("Crop '%s': reference %s at offset %d leaves the input %s on axis %d", name.c_str(),
                          shape::dims_string(r, b0, sizeof(b0)), off[i], shape::dims_string(bottom_blob, b1, sizeof(b1)), i);
                return -1;
            }
            start[i] = off[i];
            extent[i] = req[i];
        }
        return 0;
    }

    for (int i = 0; i < dims; i++)
    {
        int e = in.s[i] - off[i] - off2[i];
        if (req[i] != -233)
            e = std::min(req[i], e);
        if (e <= 0)
        {
            char b0[64];
            KITE_LOGE("Crop '%s': empty or negative crop on axis %d of input %s (offset %d, offset2 %d, size %d)", name.c_str(), i,
                      shape::dims_string(bottom_blob, b0, sizeof(b0)), off[i], off2[i], req[i]);
            return -1;
        }
        start[i] = off[i];
        extent[i] = e;
    }
    return 0;
}

int Crop::crop_box(const Mat& bottom_blob, const int* start, const int* extent, Mat& top_blob, const Option& opt) const
{
    shape::Dims outd;
    outd.n = bottom_blob.dims;
    for (int i = 0; i < outd.n; i++)
        outd.s[i] = extent[i];
    shape::create_dims(top_blob, outd, bottom_blob.elemsize, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    int ext[4], sstart[4];
    shape::to_cdhw(outd, ext);
    shape::Dims sd = outd;
    for (int i = 0; i < outd.n; i++)
        sd.s[i] = start[i];
    shape::to_cdhw(sd, sstart, 0);
    int dstart[4] = {0, 0, 0, 0};
    shape::copy_box(bottom_blob, sstart, top_blob, dstart, ext, opt.num_threads);
    return 0;
}

int Crop::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (!shape::plain_blob(bottom_blob))
    {
        KITE_LOGE("Crop '%s': input must be a non-empty elempack 1 blob of dims 1..4", name.c_str());
        return -1;
    }
    int start[4], extent[4];
    if (resolve_box(bottom_blob, nullptr, start, extent) != 0)
        return -1;
    return crop_box(bottom_blob, start, extent, top_blob, opt);
}

int Crop::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.empty() || top_blobs.size() != 1)
    {
        KITE_LOGE("Crop '%s': expects 1 or 2 inputs and 1 output", name.c_str());
        return -1;
    }
    if (one_blob_only || bottom_blobs.size() < 2)
    {
        if (!one_blob_only)
        {
            KITE_LOGE("Crop '%s': no crop sizes given, so a second (reference) input is needed", name.c_str());
            return -1;
        }
        return forward(bottom_blobs[0], top_blobs[0], opt);
    }
    const Mat& bottom_blob = bottom_blobs[0];
    const Mat& reference_blob = bottom_blobs[1];
    if (!shape::plain_blob(bottom_blob) || reference_blob.dims < 1 || reference_blob.dims > 4)
    {
        KITE_LOGE("Crop '%s': input must be a non-empty elempack 1 blob of dims 1..4 and the reference have dims 1..4", name.c_str());
        return -1;
    }
    int start[4], extent[4];
    if (resolve_box(bottom_blob, &reference_blob, start, extent) != 0)
        return -1;
    return crop_box(bottom_blob, start, extent, top_blobs[0], opt);
}

DEFINE_LAYER_CREATOR(Crop)

} // namespace kite
