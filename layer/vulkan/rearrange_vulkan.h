#ifndef KITE_LAYER_VULKAN_REARRANGE_VULKAN_H
#define KITE_LAYER_VULKAN_REARRANGE_VULKAN_H

// Two driver templates that let the reference define the result, so the
// device gives exactly the reference's answer:
// - GatherVulkan<Base>: layers whose output only rearranges input 0 (Permute,
//   Crop, Reshape, nearest Interp), or also adds constants (Padding). Once per input shape the reference runs
//   on a host tensor holding element numbers; its output is the index map of
//   shaders/vulkan/gather.comp (kept on the device). An identity map gives a
//   view of the input (no copy).
// - ConstantVulkan<Base>: layers whose output depends only on input shapes and
//   parameters (PriorBox, MemoryData): computed once per input shape with the
//   reference and kept on the device.

#include "vulkan/vulkan_common.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

namespace kite {
namespace vkl {

// a host fp32 elempack-1 tensor of the device blob's shape (zero-filled)
inline Mat host_like(const Mat& shape)
{
    Mat m;
    if (shape.dims == 1)
        m.create(shape.w);
    else if (shape.dims == 2)
        m.create(shape.w, shape.h);
    else if (shape.dims == 3)
        m.create(shape.w, shape.h, shape.c);
    else
        m.create(shape.w, shape.h, shape.d, shape.c);
    if (!m.empty())
        m.fill(0.f);
    return m;
}

// the reference forward of `l` on host tensors (1 thread, fp32, elempack 1)
inline int reference_forward(const Layer& l, const std::vector<Mat>& in, std::vector<Mat>& out)
{
    Option o;
    o.num_threads = 1;
    o.use_packing_layout = false;
    o.use_fp16_storage = false;
    o.use_fp16_arithmetic = false;
    o.use_bf16_storage = false;
    if (l.one_blob_only && in.size() == 1 && out.size() == 1)
        return l.forward(in[0], out[0], o);
    return l.forward(in, out, o);
}

// (dims, w, h, d, c) of every blob, a cache key
inline std::vector<int> shape_key(const std::vector<GpuBlobPtr>& blobs)
{
    std::vector<int> k;
    for (const GpuBlobPtr& b : blobs)
        k.insert(k.end(), {b->shape.dims, b->shape.w, b->shape.h, b->shape.d, b->shape.c});
    return k;
}

// a host tensor's elements in the device order (channels packed without gaps)
inline std::vector<float> device_order(const Mat& m)
{
    const size_t plane = (size_t)m.w * m.h * m.d;
    std::vector<float> v(plane * m.c);
    for (int q = 0; q < m.c; q++)
    {
        const float* p = m.channel(q);
        std::copy(p, p + plane, v.begin() + q * plane);
    }
    return v;
}

struct GatherMap
{
    Mat shape; // output shape (no data)
    bool identity = false;
    vk::VkBlobPtr idx;
};

// build the index map of `l` for input shapes `bottoms` (nullptr, logged, on
// failure); with nfill > 0 the map may also hold -1 .. -nfill (constants)
inline std::shared_ptr<GatherMap> build_gather_map(const Layer& l, const std::vector<GpuBlobPtr>& bottoms, vk::VulkanDevice* dev,
                                                   int nfill = 0)
{
    const Mat& s0 = bottoms[0]->shape;
    const size_t n_in = (size_t)s0.w * s0.h * s0.d * s0.c;
    if (n_in >= (1u << 24))
    {
        KITE_LOGE("%s '%s': %zu input elements are too many for a float index map", l.type.c_str(), l.name.c_str(), n_in);
        return nullptr;
    }
    std::vector<Mat> in(bottoms.size());
    for (size_t i = 0; i < bottoms.size(); i++)
    {
        in[i] = host_like(bottoms[i]->shape);
        if (in[i].empty())
            return nullptr;
    }
    const size_t plane = (size_t)s0.w * s0.h * s0.d;
    for (int q = 0; q < in[0].c; q++)
    {
        float* p = in[0].channel(q);
        for (size_t i = 0; i < plane; i++)
            p[i] = (float)(q * plane + i);
    }
    std::vector<Mat> out(1);
    if (reference_forward(l, in, out) != 0 || out[0].empty() || out[0].elempack != 1 || out[0].elemsize != 4u)
    {
        KITE_LOGE("%s '%s': cannot build the index map for this input shape", l.type.c_str(), l.name.c_str());
        return nullptr;
    }
    std::vector<float> idx = device_order(out[0]);
    bool identity = idx.size() == n_in;
    for (size_t i = 0; i < idx.size(); i++)
    {
        const float v = idx[i];
        if (!(v >= (float)-nfill && v < (float)n_in) || v != (float)(int)v)
        {
            KITE_LOGE("%s '%s': output element %zu is not an input element (%g)", l.type.c_str(), l.name.c_str(), i, v);
            return nullptr;
        }
        identity = identity && (size_t)v == i;
    }
    std::shared_ptr<GatherMap> g = std::make_shared<GatherMap>();
    g->shape = gpu_shape_of(out[0]);
    g->identity = identity;
    if (!identity)
    {
        g->idx = dev->upload_constant(out[0], idx.data());
        if (!g->idx)
            return nullptr;
    }
    return g;
}

template <class Base>
class GatherVulkan : public Base
{
public:
    GatherVulkan()
    {
        this->support_vulkan = true;
    }
    int create_pipeline(const Option& opt) override
    {
        int ret = Base::create_pipeline(opt);
        if (ret != 0)
            return ret;
        pipe = pipeline_for(opt, "gather", 4, 64);
        std::vector<float> f = fill_values();
        Mat fm((int)std::max<size_t>(f.size(), 1));
        if (fm.empty())
            return -100;
        fm.fill(0.f);
        std::copy(f.begin(), f.end(), (float*)fm.data);
        nfill = (int)f.size();
        fill = upload_weights(opt, fm);
        return pipe && fill ? 0 : -1;
    }
    int destroy_pipeline(const Option& opt) override
    {
        {
            std::lock_guard<std::mutex> g(lock);
            maps.clear();
        }
        fill.reset();
        return Base::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = session_of(session);
        if (bottoms.empty() || tops.size() != 1)
        {
            KITE_LOGE("%s '%s': expects inputs and 1 output", this->Layer::type.c_str(), this->name.c_str());
            return -1;
        }
        const std::vector<int> key = shape_key(bottoms);
        std::shared_ptr<GatherMap> m;
        {
            std::lock_guard<std::mutex> g(lock);
            auto it = maps.find(key);
            if (it != maps.end())
                m = it->second;
        }
        if (!m)
        {
            m = build_gather_map(map_layer(), bottoms, s.device(), nfill);
            if (!m)
                return -1;
            std::lock_guard<std::mutex> g(lock);
            maps[key] = m;
        }
        const Mat& o = m->shape;
        if (m->identity)
        {
            tops[0] = alias_blob(bottoms[0], o.dims, o.w, o.h, o.d, o.c);
            return 0;
        }
        vk::VkBlobPtr top = s.create_blob(o.dims, o.w, o.h, o.d, o.c);
        if (!top)
            return -100;
        const int n = (int)top->total();
        // an fp32 input (VkBlob::f32) is read as such: the output is in the
        // session's storage type (no separate cast)
        struct
        {
            int n, row, in_f32;
        } pc = {n, std::min(n, 4096), blob_of(bottoms[0])->f32 ? 1 : 0};
        int ret = s.dispatch(pipe, {blob_of(bottoms[0]), m->idx.get(), top.get(), fill.get()}, &pc, sizeof(pc), pc.row, (n + pc.row - 1) / pc.row, 1);
        top->int8 = blob_of(bottoms[0])->int8; // int8 data moves as int8 (as on the CPU)
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

protected:
    // the layer whose reference builds the index map (the layer itself, or a
    // copy whose constants are -1 .. -n: Padding)
    virtual const Layer& map_layer() const { return *this; }
    // the constants a map index -k-1 stands for (create_pipeline time)
    virtual std::vector<float> fill_values() const { return std::vector<float>(); }

private:
    const vk::Pipeline* pipe = nullptr;
    vk::VkBlobPtr fill;
    int nfill = 0;
    mutable std::mutex lock;
    mutable std::map<std::vector<int>, std::shared_ptr<GatherMap> > maps;
};

template <class Base>
class ConstantVulkan : public Base
{
public:
    ConstantVulkan()
    {
        this->support_vulkan = true;
    }
    int destroy_pipeline(const Option& opt) override
    {
        {
            std::lock_guard<std::mutex> g(lock);
            outputs.clear();
        }
        return Base::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = session_of(session);
        std::vector<int> key = shape_key(bottoms);
        key.push_back((int)s.elemsize()); // the outputs are blobs of the session's storage type
        std::lock_guard<std::mutex> g(lock);
        auto it = outputs.find(key);
        if (it == outputs.end())
        {
            std::vector<Mat> in(bottoms.size());
            for (size_t i = 0; i < bottoms.size(); i++)
            {
                in[i] = host_like(bottoms[i]->shape);
                if (in[i].empty())
                    return -100;
            }
            std::vector<Mat> out(tops.size());
            if (reference_forward(*this, in, out) != 0)
                return -1;
            std::vector<vk::VkBlobPtr> dev_out(out.size());
            for (size_t i = 0; i < out.size(); i++)
            {
                if (out[i].empty() || out[i].elempack != 1 || out[i].elemsize != 4u)
                {
                    KITE_LOGE("%s '%s': output %d is not an fp32 tensor", this->Layer::type.c_str(), this->name.c_str(), (int)i);
                    return -1;
                }
                // uploaded (and converted to the storage type) by a session of
                // its own that waits, so other sessions find it complete
                vk::Session once(s.device(), s.elemsize());
                GpuBlobPtr up;
                if (!once.ok() || once.upload(out[i], up, nullptr, Option()) != 0 || once.finish() != 0)
                    return -100;
                dev_out[i] = std::static_pointer_cast<vk::VkBlob>(up);
            }
            it = outputs.emplace(key, dev_out).first;
        }
        for (size_t i = 0; i < tops.size(); i++)
            tops[i] = it->second[i];
        return 0;
    }

private:
    mutable std::mutex lock;
    mutable std::map<std::vector<int>, std::vector<vk::VkBlobPtr> > outputs;
};

} // namespace vkl
} // namespace kite

#endif // KITE_LAYER_VULKAN_REARRANGE_VULKAN_H
