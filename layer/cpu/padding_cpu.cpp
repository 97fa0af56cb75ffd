// Padding, compiled once per CPU ISA level (x86 and ARM), fp32 or fp16
// storage, on blobs of any elempack; every type (constant with one value or
// per-channel values, replicate, reflect) and every axis ncnn pads (w, h, d,
// and c of a 3-D blob; w of a 1-D one and h of a 2-D one are their packing
// axes). Two passes, each skipped when it has no pads:
//   - the axes inside a channel (w, h, d) move whole packed elements: each
//     output row is its source row copied once plus the pad elements, a pad
//     element of a constant row holding each lane's own channel value;
//   - the packing axis (c, or h / w of 2-D / 1-D blobs) moves scalar
//     channels into an output packed by the widest elempack dividing the new
//     count, pad channels filled or copied from their replicate/reflect source.
#include "padding.h"
#include "cpu/packing_cpu.h"
#include "gpu/cpu_fallback.h"

#include <climits>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

class Padding_cpu : public Padding
{
public:
    Padding_cpu()
    {
        support_packing = true;
        support_fp16_storage = true;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        const int ep = bottom_blob.elempack;
        const int es = bottom_blob.empty() ? 0 : (int)(bottom_blob.elemsize / ep);
        if (bottom_blob.empty() || bottom_blob.dims < 1 || bottom_blob.dims > 4 || (es != 4 && es != 2)
            || bottom_blob.elembits() != es * 8)
        {
            if (bottom_blob.empty() || bottom_blob.dims < 1 || bottom_blob.dims > 4)
                return Padding::forward(bottom_blob, top_blob, opt); // the reference names the problem
            note_cpu_layer_on_reference();
            Mat b;
            int ret = to_fp32_pack1(bottom_blob, b, opt);
            return ret != 0 ? ret : Padding::forward(b, top_blob, opt);
        }
        const int dims = bottom_blob.dims;
        // logical axes outermost first (axis 0 the packing axis, in scalars)
        // and their pads
        int ext[4] = {1, 1, 1, 1}, bef[4] = {0, 0, 0, 0}, aft[4] = {0, 0, 0, 0};
        if (dims == 1)
        {
            ext[0] = bottom_blob.w * ep;
            bef[0] = left, aft[0] = right;
        }
        else if (dims == 2)
        {
            ext[0] = bottom_blob.h * ep, ext[1] = bottom_blob.w;
            bef[0] = top, aft[0] = bottom, bef[1] = left, aft[1] = right;
        }
        else if (dims == 3)
        {
            ext[0] = bottom_blob.c * ep, ext[1] = bottom_blob.h, ext[2] = bottom_blob.w;
            bef[0] = front, aft[0] = behind, bef[1] = top, aft[1] = bottom, bef[2] = left, aft[2] = right;
        }
        else
        {
            ext[0] = bottom_blob.c * ep, ext[1] = bottom_blob.d, ext[2] = bottom_blob.h, ext[3] = bottom_blob.w;
            bef[1] = front, aft[1] = behind, bef[2] = top, aft[2] = bottom, bef[3] = left, aft[3] = right;
        }
        for (int a = 0; a < dims; a++)
        {
            if ((long long)ext[a] + bef[a] + aft[a] > INT_MAX)
            {
                KITE_LOGE("Padding '%s': pads %d/%d make axis %d longer than %d", name.c_str(), bef[a], aft[a], a, INT_MAX);
                return -1;
            }
            if (type == PAD_REFLECT && (bef[a] >= ext[a] || aft[a] >= ext[a]))
            {
                KITE_LOGE("Padding '%s': reflect pads %d/%d must be smaller than the axis size %d", name.c_str(), bef[a], aft[a], ext[a]);
                return -1;
            }
        }
        // the pad value of each output channel (c of dims 3 and 4; one value otherwise)
        const int value_channels = dims >= 3 ? ext[0] + bef[0] + aft[0] : 1;
        const bool per_channel = per_channel_pad_data_size > 0 && type == PAD_CONSTANT;
        if (per_channel && per_channel_pad_data.w < value_channels)
        {
            KITE_LOGE("Padding '%s': %d per-channel pad values for %d output channels", name.c_str(), per_channel_pad_data.w, value_channels);
            return -1;
        }
        std::vector<unsigned int> values(value_channels); // the bits of each value in the blob's scalar type
        for (int k = 0; k < value_channels; k++)
        {
            const float v = per_channel ? ((const float*)per_channel_pad_data.data)[k] : value;
            if (es == 2)
                values[k] = float32_to_float16(v);
            else
                memcpy(&values[k], &v, 4);
        }

        bool inner_pads = false;
        for (int a = 1; a < dims; a++)
            inner_pads = inner_pads || bef[a] > 0 || aft[a] > 0;
        Mat mid = bottom_blob;
        if (inner_pads)
        {
            Mat& dst = bef[0] > 0 || aft[0] > 0 ? mid : top_blob;
            int ret = es == 4 ? pad_inner<unsigned int>(bottom_blob, dst, ext, bef, aft, values, dims >= 3 ? bef[0] : 0, opt)
                              : pad_inner<unsigned short>(bottom_blob, dst, ext, bef, aft, values, dims >= 3 ? bef[0] : 0, opt);
            if (ret != 0)
                return ret;
            if (&dst == &top_blob)
                return 0;
        }
        if (bef[0] == 0 && aft[0] == 0)
        {
            top_blob = mid; // no pads at all: the same data
            return 0;
        }
        return es == 4 ? pad_outer<unsigned int>(mid, top_blob, ext[0], bef[0], aft[0], values, opt)
                       : pad_outer<unsigned short>(mid, top_blob, ext[0], bef[0], aft[0], values, opt);
    }

private:
    // source index along one axis for each output position; -1 = constant
    void axis_map(int size, int before, int after, std::vector<int>& map) const
    {
        map.resize(size + before + after);
        for (int i = 0; i < (int)map.size(); i++)
        {
            int s = i - before;
            if (s < 0 || s >= size)
            {
                if (type == PAD_CONSTANT)
                    s = -1;
                else if (type == PAD_REPLICATE)
                    s = s < 0 ? 0 : size - 1;
                else
                    s = s < 0 ? -s : 2 * (size - 1) - s;
            }
            map[i] = s;
        }
    }

    // the axes inside a channel; packed elements of P lanes of E move whole
    template<class E>
    int pad_inner(const Mat& in, Mat& out, const int* ext, const int* bef, const int* aft,
                  const std::vector<unsigned int>& values, int channel0, const Option& opt) const
    {
        const int dims = in.dims;
        const int P = in.elempack;
        // (d, h, w) of the input and their pads
        int sz[3] = {1, 1, 1}, b[3] = {0, 0, 0}, a[3] = {0, 0, 0};
        for (int i = 1; i < dims; i++)
        {
            sz[3 - dims + i] = ext[i];
            b[3 - dims + i] = bef[i];
            a[3 - dims + i] = aft[i];
        }
        std::vector<int> maps[3];
        int osz[3];
        for (int i = 0; i < 3; i++)
        {
            axis_map(sz[i], b[i], a[i], maps[i]);
            osz[i] = (int)maps[i].size();
        }
        if (dims == 2)
            out.create(osz[2], in.h, in.elemsize, P, opt.blob_allocator);
        else if (dims == 3)
            out.create(osz[2], osz[1], in.c, in.elemsize, P, opt.blob_allocator);
        else
            out.create(osz[2], osz[1], osz[0], in.c, in.elemsize, P, opt.blob_allocator);
        if (out.empty())
            return -100;
        const int groups = dims == 2 ? in.h : in.c;
        const size_t in_group = dims == 2 ? (size_t)in.w * P : in.cstep * P;
        const size_t out_group = dims == 2 ? (size_t)out.w * P : out.cstep * P;
        const int W = sz[2], OW = osz[2], L = b[2];
        const std::vector<int>& mw = maps[2];
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int g = 0; g < groups; g++)
        {
            // one pad element: each lane its channel's value
            E pad[16];
            for (int l = 0; l < P; l++)
                pad[l] = (E)values[dims >= 3 ? channel0 + g * P + l : 0];
            const E* src = (const E*)in.data + in_group * g;
            E* dst = (E*)out.data + out_group * g;
            for (int z = 0; z < osz[0]; z++)
            {
                const int sz_ = maps[0][z];
                for (int y = 0; y < osz[1]; y++, dst += (size_t)OW * P)
                {
                    const int sy = maps[1][y];
                    if (sz_ < 0 || sy < 0)
                    {
                        fill(dst, pad, P, OW);
                        continue;
                    }
                    const E* row = src + ((size_t)sz_ * sz[1] + sy) * W * P;
                    for (int x = 0; x < L; x++)
                        put(dst + (size_t)x * P, mw[x] < 0 ? pad : row + (size_t)mw[x] * P, P);
                    memcpy(dst + (size_t)L * P, row, (size_t)W * P * sizeof(E));
                    for (int x = L + W; x < OW; x++)
                        put(dst + (size_t)x * P, mw[x] < 0 ? pad : row + (size_t)mw[x] * P, P);
                }
            }
        }
        return 0;
    }

    // the packing axis: count scalar channels become before + count + after
    template<class E>
    int pad_outer(const Mat& in, Mat& out, int count, int before, int after, const std::vector<unsigned int>& values,
                  const Option& opt) const
    {
        const int total = before + count + after;
        const int Q = best_elempack(total);
        create_like_axis(out, in, total, Q, opt.blob_allocator);
        if (out.empty())
            return -100;
        const PackAxis src = pack_axis(in);
        const PackAxis dst = pack_axis(out);
        copy_channels(src, 0, dst, before, count, opt.num_threads);
        std::vector<int> map;
        axis_map(count, before, after, map);
        const bool per_value = in.dims >= 3;
        for (int k = 0; k < total; k++)
        {
            if (k == before)
                k += count;
            if (k >= total)
                break;
            if (map[k] >= 0)
            {
                copy_channels(src, map[k], dst, k, 1, 1);
                continue;
            }
            const E v = (E)values[per_value ? k : 0];
            E* p = (E*)(dst.data + (size_t)(k / Q) * dst.unit_bytes) + k % Q;
            for (size_t i = 0; i < dst.plane; i++)
                p[i * Q] = v;
        }
        return 0;
    }

    template<class E>
    static inline void put(E* dst, const E* src, int P)
    {
        for (int l = 0; l < P; l++)
            dst[l] = src[l];
    }

    template<class E>
    static inline void fill(E* dst, const E* pad, int P, int n)
    {
        for (int x = 0; x < n; x++)
            put(dst + (size_t)x * P, pad, P);
    }
};

DEFINE_LAYER_CREATOR(Padding_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
