#ifndef KITE_LAYER_VULKAN_COMMON_H
#define KITE_LAYER_VULKAN_COMMON_H

// Helpers shared by the Vulkan layer drivers (layer/vulkan/*_vulkan.cpp).
// Device blobs are elempack 1, 4 or 8, channel-contiguous, fp32 or fp16 (see
// src/gpu/vulkan/vk_runtime.h); weights are fp32, or fp16 in sessions with
// fp16 storage where a shader reads them as wfp (upload_weights /
// upload_units with storage_type).

#include "gpu/vulkan/vk_runtime.h"
#include "gpu/vulkan/vk_shaders.h"
#include "layer.h"
#include "common/shape_util.h"
#include "log.h"
#include "mat_cast.h"

#include <string>
#include <vector>

namespace kite {
namespace vkl {

inline vk::Session& session_of(GpuSession& s)
{
    return static_cast<vk::Session&>(s); // the Net hands Vulkan layers a Vulkan session
}

inline const vk::VkBlob* blob_of(const GpuBlobPtr& g)
{
    return static_cast<const vk::VkBlob*>(g.get());
}

// the pipeline of `shader` on the layer's device (create_pipeline time), in
// the precision variant `opt` gives (fp16 storage/arithmetic where asked for
// and supported, see shaders/vulkan/types.h)
inline const vk::Pipeline* pipeline_for(const Option& opt, const char* shader, int bindings, uint32_t lx, uint32_t ly = 1, uint32_t lz = 1)
{
    vk::VulkanDevice* d = vk::VulkanDevice::get(opt.vulkan_device);
    return d ? d->pipeline(shader, bindings, lx, ly, lz, d->variant(opt)) : nullptr;
}

// whether an int8 layer runs the "<shader>_dot4" variant of `shader` (the
// packed int8 dot product, shaders/vulkan/int8.h kite_sdot4): the device
// takes it (vk::VulkanDevice::use_int8_dot) and this build embeds it (built
// where spirv-tools were found, cmake/kite_vulkan.cmake)
inline bool use_int8_dot(const Option& opt, const char* shader)
{
    vk::VulkanDevice* d = vk::VulkanDevice::get(opt.vulkan_device);
    if (!d || !d->use_int8_dot())
        return false;
    size_t bytes = 0;
    return vk::embedded_spirv((std::string(shader) + "_dot4").c_str(), d->variant(opt), &bytes) != nullptr;
}

// weights to the device once (create_pipeline); the values are copied when
// the net's constants are flushed (after the last create_pipeline, in
// parallel over layers); an empty Mat gives a small zero buffer so that every
// binding is valid. fp32, or with `storage_type` the session's storage type
// (fp16 with fp16 storage: half the bytes), for shaders that read them as
// wfp (shaders/vulkan/types.h)
inline vk::VkBlobPtr upload_weights(const Option& opt, const Mat& m, bool storage_type = false)
{
    vk::VulkanDevice* d = vk::VulkanDevice::get(opt.vulkan_device);
    if (!d)
        return nullptr;
    if (m.empty())
    {
        Mat zero(4);
        if (zero.empty())
            return nullptr;
        zero.fill(0.f);
        return d->upload_constant(zero, zero);
    }
    if (m.elemsize != 4u || m.elempack != 1)
    {
        KITE_LOGE("Vulkan: weights must be fp32 (got elemsize %zu)", m.elemsize);
        return nullptr;
    }
    Mat flat = m.reshape(m.w * m.h * m.d * m.c);
    if (flat.empty())
        return nullptr;
    return d->upload_constant(flat, flat, storage_type && d->variant(opt) != 0);
}

// `src` (kept by reference until the flush; copied when it is external
// memory) in a layout of n fp32 values that fill(src, dst, u0, u1) writes for
// the units [u0, u1) of `units` (output channels, quads, values: disjoint
// outputs, any order and thread), straight into the mapped memory when the
// constants are flushed at the end of Net::load_model: no intermediate Mat,
// every layer's parts (about 1 MB each, at most one per unit) in parallel.
// S: the source's scalar type.
template <class S = float, class Fill>
inline vk::VkBlobPtr upload_layout(const Option& opt, const Mat& src, size_t n, size_t units, Fill fill)
{
    vk::VulkanDevice* d = vk::VulkanDevice::get(opt.vulkan_device);
    Mat keep = src.refcount ? src : src.clone();
    if (!d || keep.empty() || n == 0 || units == 0)
        return nullptr;
    const size_t p = (size_t)vk::VulkanDevice::fill_parts(n * 4);
    const int parts = (int)(p < units ? p : units);
    return d->upload_constant(Mat((int)n, (void*)nullptr), false, [keep, fill, units](void* dst, int part, int nparts) {
        fill((const S*)keep.data, (float*)dst, units * part / nparts, units * (part + 1) / nparts);
    }, parts);
}

// `src` in a layout of `units` units of `per_unit` fp32 values each (unit u:
// values [u * per_unit, (u + 1) * per_unit)), which fill(src, out, u0, u1)
// writes for the units [u0, u1) from out[0] on (out: the first value of
// unit u0), at the flush as upload_layout; with `storage_type` in the
// session's storage type (fp16 with fp16 storage: each part is built in a
// temporary and converted), for shaders that read them as wfp / wfpvec4
template <class S = float, class Fill>
inline vk::VkBlobPtr upload_units(const Option& opt, const Mat& src, size_t per_unit, size_t units, bool storage_type, Fill fill)
{
    vk::VulkanDevice* d = vk::VulkanDevice::get(opt.vulkan_device);
    Mat keep = src.refcount ? src : src.clone();
    const size_t n = per_unit * units;
    if (!d || keep.empty() || n == 0)
        return nullptr;
    const bool half = storage_type && d->variant(opt) != 0;
    const size_t p = (size_t)vk::VulkanDevice::fill_parts(n * (half ? 2 : 4));
    const int parts = (int)(p < units ? p : units);
    return d->upload_constant(Mat((int)n, (void*)nullptr), half, [keep, fill, units, per_unit, half](void* dst, int part, int nparts) {
        const size_t u0 = units * part / nparts, u1 = units * (part + 1) / nparts;
        if (!half)
        {
            fill((const S*)keep.data, (float*)dst + u0 * per_unit, u0, u1);
            return;
        }
        std::vector<float> tmp((u1 - u0) * per_unit);
        fill((const S*)keep.data, tmp.data(), u0, u1);
        float32_to_float16_n(tmp.data(), (unsigned short*)dst + u0 * per_unit, tmp.size());
    }, parts);
}

// int8 weights (elemsize 1) as integer-valued floats (int8conv.comp,
// int8gemv.comp), converted straight into the staging memory
inline vk::VkBlobPtr upload_int8_weights(const Option& opt, const Mat& m)
{
    const size_t n = (size_t)m.w * m.h * m.d * m.c;
    if (m.empty() || m.elemsize != 1u || (m.dims >= 3 && m.cstep != (size_t)m.w * m.h * m.d))
    {
        if (vk::VulkanDevice::get(opt.vulkan_device))
            KITE_LOGE("Vulkan: int8 weights must be contiguous int8 values (got elemsize %zu)", m.elemsize);
        return nullptr;
    }
    return upload_layout<signed char>(opt, m, n, n, [](const signed char* q, float* f, size_t i0, size_t i1) {
        for (size_t i = i0; i < i1; i++)
            f[i] = (float)q[i];
    });
}

// the per-output-channel arguments of the int8 shaders (shaders/vulkan/int8.h):
// rows of n values: bias (0 without), scale_in, scale_out, bottom scale
inline vk::VkBlobPtr upload_int8_args(const Option& opt, int n, const float* bias, const std::vector<float>& scale_in,
                                      const std::vector<float>& scale_out, const std::vector<float>& bottom_scale)
{
    Mat m(4 * n);
    if (m.empty())
        return nullptr;
    float* a = m;
    for (int i = 0; i < n; i++)
    {
        a[i] = bias ? bias[i] : 0.f;
        a[n + i] = scale_in[i];
        a[2 * n + i] = scale_out[i];
        a[3 * n + i] = bottom_scale[i];
    }
    return upload_weights(opt, m);
}

// a blob sharing `src`'s buffer with another shape of the same element count
// (Flatten, Reshape)
inline GpuBlobPtr alias_blob(const GpuBlobPtr& src, int dims, int w, int h, int d, int c)
{
    std::shared_ptr<vk::VkBlob> b = std::make_shared<vk::VkBlob>();
    b->backend = BACKEND_VULKAN;
    b->buf = blob_of(src)->buf;
    b->alias_of = src;
    b->int8 = blob_of(src)->int8;
    b->f32 = blob_of(src)->f32;
    b->shape = src->shape;
    b->shape.dims = dims;
    b->shape.w = w;
    b->shape.h = h;
    b->shape.d = d;
    b->shape.c = c;
    b->shape.cstep = (size_t)w * h * d;
    return b;
}

// a packed blob (elempack 4 or 8) viewed as an elempack-1 one with
// elempack-times wider rows (the lanes of each packed element side by side):
// box copies on such views move packed data along any axis (Concat, Slice)
inline GpuBlobPtr wide_view(const GpuBlobPtr& b)
{
    const Mat& m = b->shape;
    return alias_blob(b, m.dims, m.w * m.elempack, m.h, m.d, m.c);
}

// (w, h, d, c) of a blob as 4 ints
inline void whdc(const Mat& s, int* v)
{
    v[0] = s.w;
    v[1] = s.h;
    v[2] = s.d;
    v[3] = s.c;
}

// record a box copy (shaders/vulkan/copy_box.comp)
struct CopyBox
{
    int sw, sh, sd, dw, dh, dd;
    int bw, bh, bd, bc;
    int sx, sy, sz, sq;
    int dx, dy, dz, dq;
    int in_f32;
};
// box, src_off, dst_off: (w, h, d, c) extents / offsets; src may be an fp32
// blob (VkBlob::f32) when dst is not: read as fp32, stored in p's type
inline int copy_box(vk::Session& s, const vk::Pipeline* p, const vk::VkBlob* src, const vk::VkBlob* dst, const int* box,
                    const int* src_off, const int* dst_off)
{
    CopyBox c = {src->shape.w, src->shape.h, src->shape.d, dst->shape.w, dst->shape.h, dst->shape.d,
                 box[0], box[1], box[2], box[3],
                 src_off[0], src_off[1], src_off[2], src_off[3],
                 dst_off[0], dst_off[1], dst_off[2], dst_off[3], src->f32 && !dst->f32 ? 1 : 0};
    return s.dispatch(p, {src, dst}, &c, sizeof(c), box[0], box[1], box[2] * box[3]);
}

// a new blob of the logical shape `d` (common/shape_util.h)
inline vk::VkBlobPtr create_blob_dims(vk::Session& s, const shape::Dims& d)
{
    int cdhw[4];
    shape::to_cdhw(d, cdhw);
    return s.create_blob(d.n, cdhw[3], cdhw[2], cdhw[1], cdhw[0]);
}

// logical axis of a dims-n blob -> index into (w, h, d, c)
inline int whdc_axis(int dims, int axis)
{
    return 3 - shape::cdhw_axis(dims, axis);
}

} // namespace vkl
} // namespace kite

#endif // KITE_LAYER_VULKAN_COMMON_H
