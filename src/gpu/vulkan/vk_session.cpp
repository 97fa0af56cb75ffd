// Session: command recording, uploads/downloads and the GpuBackend entry.
#include "../gpu_int8.h"
#include "vk_runtime.h"
#include "vk_shaders.h"

#include "../../layer.h"
#include "../../log.h"
#include "../../mat.h"
#include "../../mat_cast.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kite {
namespace vk {

enum
{
    SETS_PER_POOL = 256,
    BINDINGS_PER_SET = 8
};

Session::Session(VulkanDevice* d, size_t elemsize, bool is_loader)
    : dev(d), storage(elemsize == 2 ? 2 : 4), loader(is_loader)
{
    // elempack 4 in fp32 and fp16 sessions alike: every packed shader
    // computes 4 channels an invocation, so an elempack-8 element is read as
    // two vec4 at twice the stride (an f16vec4 every 16 bytes: a warp touches
    // as many bytes as in fp32, half of them unused), and blobs by 8 meeting
    // ones by 4 (Concat, Slice, channel counts of 4k) add packing dispatches
    // (nanodet_m 83 -> 91 a forward); by 4, an fp16 element is 8 contiguous
    // bytes: half fp32's traffic on the same dispatches.
    // KITE_VULKAN_ELEMPACK=8 (or limit_elempack) still packs by 8
    max_pack = 4;
    if (const char* e = getenv("KITE_VULKAN_ELEMPACK"))
        limit_elempack(atoi(e));
    blobs = std::make_shared<BufferPool>(dev, false, dev->blob_pool);
    staging = std::make_shared<BufferPool>(dev, true, dev->staging_pool);
    VkCommandPoolCreateInfo pi = {};
    pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = dev->queue_family;
    if (vkCreateCommandPool(dev->device, &pi, nullptr, &cmd_pool) != VK_SUCCESS)
    {
        KITE_LOGE("Vulkan: vkCreateCommandPool failed");
        return;
    }
    VkFenceCreateInfo fi = {};
    fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    if (vkCreateFence(dev->device, &fi, nullptr, &fence) != VK_SUCCESS)
    {
        KITE_LOGE("Vulkan: vkCreateFence failed");
        return;
    }
    if (allocate_cmd() != 0)
        return;
    good = true;
}

// one primary command buffer from the session's pool into cmd
int Session::allocate_cmd()
{
    VkCommandBufferAllocateInfo ai = {};
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = cmd_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    if (vkAllocateCommandBuffers(dev->device, &ai, &cmd) != VK_SUCCESS)
    {
        KITE_LOGE("Vulkan: vkAllocateCommandBuffers failed");
        cmd = VK_NULL_HANDLE;
        return -1;
    }
    return 0;
}

// KITE_VULKAN_DISPATCHES=1: a session lists its dispatches by shader when
// it ends (a recorded forward's session: one forward's)
static void print_dispatches(const std::map<std::string, int>& d, int copies, int barriers, size_t storage, int max_pack)
{
    const char* e = getenv("KITE_VULKAN_DISPATCHES");
    if (!e || atoi(e) == 0 || (d.empty() && copies == 0))
        return;
    int total = 0;
    for (const auto& kv : d)
        total += kv.second;
    std::string line;
    for (const auto& kv : d)
        line += " " + kv.first + "=" + std::to_string(kv.second);
    fprintf(stderr, "kite: vulkan session (%s, elempack <= %d): %d dispatches, %d copies, %d barriers:%s\n",
            storage == 2 ? "fp16 storage" : "fp32", max_pack, total, copies, barriers, line.c_str());
}

Session::~Session()
{
    if (recording)
        finish();
    if (!loader)
        print_dispatches(dispatches, copies, barriers, storage, max_pack);
    for (VkDescriptorPool p : desc_pools)
        vkDestroyDescriptorPool(dev->device, p, nullptr);
    if (cmd)
        vkFreeCommandBuffers(dev->device, cmd_pool, 1, &cmd);
    if (!segs.empty())
        vkFreeCommandBuffers(dev->device, cmd_pool, (uint32_t)segs.size(), segs.data());
    for (UploadSlot& u : ups)
        staging->release(u.st);
    for (DownloadSlot& d : downs)
        staging->release(d.st);
    if (fence)
        vkDestroyFence(dev->device, fence, nullptr);
    if (cmd_pool)
        vkDestroyCommandPool(dev->device, cmd_pool, nullptr);
    for (Buffer& b : staging_used)
        staging->release(b);
    dev->save_pipeline_cache();
}

int Session::begin()
{
    if (recording)
        return 0;
    if (!good)
        return -1;
    if (!cmd)
    {
        // recording mode: the last segment keeps its command buffer
        if (allocate_cmd() != 0)
            return -1;
    }
    // weights recorded by create_pipeline must be on the device before this
    // session's commands read them
    if (!loader && dev->flush_constants() != 0)
        return -1;
    VkCommandBufferBeginInfo bi = {};
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = rec ? 0 : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (vkBeginCommandBuffer(cmd, &bi) != VK_SUCCESS)
    {
        KITE_LOGE("Vulkan: vkBeginCommandBuffer failed");
        return -1;
    }
    recording = true;
    dirty = false;
    touched.clear();
    // make the previous submissions' writes visible to this one
    barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    return 0;
}

// A global memory barrier goes before a command that touches a buffer an
// earlier command touched since the last barrier: later commands see earlier
// writes (read-after-write) and do not overwrite what earlier ones still read
// (write-after-read), which is what lets buffers be reused within one command
// buffer. Commands on disjoint buffers (the branches of a graph) run without
// one between them. Which binding a shader writes is not known here, so two
// readers of one buffer are also separated (a barrier too many, never one too
// few). Constants (weights, index maps) are only read.
void Session::barrier_for(const VkBuffer* bufs, size_t n)
{
    bool hazard = false;
    for (size_t i = 0; i < n && !hazard; i++)
        for (VkBuffer t : touched)
            if (t == bufs[i])
            {
                hazard = true;
                break;
            }
    if (hazard)
    {
        barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
        touched.clear();
    }
    touched.insert(touched.end(), bufs, bufs + n);
}

void Session::barrier(VkPipelineStageFlags dst_stage, VkAccessFlags dst_access)
{
    barriers++;
    VkMemoryBarrier mb = {};
    mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = dst_access;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, dst_stage, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

int Session::finish()
{
    // nothing recorded: still put pending constants on the device (what
    // Net::load_model asks after the last create_pipeline)
    if (!recording)
        return loader ? 0 : dev->flush_constants();
    recording = false;
    // constants uploaded while this session recorded (index maps made at
    // forward time) must be on the device before its commands run
    if (!loader && dev->flush_constants() != 0)
    {
        vkEndCommandBuffer(cmd);
        vkResetCommandBuffer(cmd, 0);
        return -1;
    }
    if (vkEndCommandBuffer(cmd) != VK_SUCCESS)
    {
        KITE_LOGE("Vulkan: vkEndCommandBuffer failed");
        return -1;
    }
    syncs++;
    touched.clear();
    if (rec)
    {
        // the segment keeps its command buffer, descriptor sets and staging
        segs.push_back(cmd);
        cmd = VK_NULL_HANDLE;
        return submit_wait(segs.back());
    }
    const int r = submit_wait(cmd);
    vkResetCommandBuffer(cmd, 0);
    // keep one descriptor pool for the next submission, drop the extra ones
    for (size_t i = 1; i < desc_pools.size(); i++)
        vkDestroyDescriptorPool(dev->device, desc_pools[i], nullptr);
    if (!desc_pools.empty())
    {
        desc_pools.resize(1);
        vkResetDescriptorPool(dev->device, desc_pools[0], 0);
    }
    sets_in_pool = 0;
    for (Buffer& b : staging_used)
        staging->release(b);
    staging_used.clear();
    return r;
}

int Session::submit_wait(VkCommandBuffer c)
{
    VkSubmitInfo si = {};
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &c;
    VkResult r;
    {
        std::lock_guard<std::mutex> g(dev->queue_lock);
        r = vkQueueSubmit(dev->queue, 1, &si, fence);
    }
    if (r == VK_SUCCESS)
        r = vkWaitForFences(dev->device, 1, &fence, VK_TRUE, UINT64_MAX);
    vkResetFences(dev->device, 1, &fence);
    if (r != VK_SUCCESS)
    {
        KITE_LOGE("Vulkan: submit/wait failed (%d)%s", (int)r, r == VK_ERROR_DEVICE_LOST ? ": device lost" : "");
        return -1;
    }
    return 0;
}

bool Session::start_recording()
{
    if (!good || recording || loader)
        return false;
    rec = true;
    // the one-time command buffer goes; each segment gets its own
    if (cmd)
        vkFreeCommandBuffers(dev->device, cmd_pool, 1, &cmd);
    cmd = VK_NULL_HANDLE;
    return true;
}

int Session::replay_upload(int slot, const Mat& m0, const Option& opt)
{
    if (slot < 0 || slot >= (int)ups.size())
        return -1;
    Mat m = m0;
    if (m.elembits() == 8)
    {
        // as upload: int8 values go up as floats
        Mat f;
        cast_int8_to_float32(m, f, opt);
        if (f.empty())
            return -100;
        m = f;
    }
    UploadSlot& u = ups[slot];
    const Mat& s = u.shape;
    if (m.empty() || m.dims != s.dims || m.w != s.w || m.h != s.h || m.d != s.d || m.c != s.c || m.elempack != s.elempack || m.elemsize != s.elemsize)
        return KITE_GPU_REPLAY_MISMATCH;
    Mat src;
    int ret = stage_host(m, u.pack, opt, src);
    if (ret != 0)
        return ret;
    write_staging(src, u.st.mapped);
    return 0;
}

int Session::replay_segment(int segment)
{
    if (segment < 0 || segment >= (int)segs.size())
        return -1;
    return submit_wait(segs[segment]);
}

int Session::replay_download(int slot, Mat& m, const Option& opt)
{
    if (slot < 0 || slot >= (int)downs.size())
        return -1;
    const DownloadSlot& d = downs[slot];
    if (replay_segment(d.segment) != 0)
        return -1;
    return read_staging(d.st, d.shape, d.int8, m, opt);
}

VkBlobPtr Session::create_blob(int dims, int w, int h, int d, int c, int elempack, bool fp32)
{
    size_t n = (size_t)w * h * d * c * elempack;
    const size_t es = fp32 ? 4 : storage;
    VkBlobPtr b = std::make_shared<VkBlob>();
    b->f32 = fp32 && storage != 4;
    b->backend = BACKEND_VULKAN;
    b->shape.dims = dims;
    b->shape.w = w;
    b->shape.h = h;
    b->shape.d = d;
    b->shape.c = c;
    b->shape.elemsize = es * elempack;
    b->shape.elempack = elempack;
    b->shape.cstep = (size_t)w * h * d;
    if (!blobs->acquire(n * es < 16 ? 16 : n * es, b->buf))
        return nullptr;
    b->pool = blobs;
    return b;
}

int Session::dispatch(const Pipeline* p, const std::vector<const VkBlob*>& bufs, const void* push, size_t push_size,
                      uint32_t gx, uint32_t gy, uint32_t gz)
{
    if (!p || (int)bufs.size() != p->bindings || push_size > MAX_PUSH_BYTES || bufs.size() > BINDINGS_PER_SET)
    {
        KITE_LOGE("Vulkan: bad dispatch (pipeline %p, %d buffers, %d push bytes)", (const void*)p, (int)bufs.size(), (int)push_size);
        return -1;
    }
    const uint32_t groups[3] = {(gx + p->local[0] - 1) / p->local[0], (gy + p->local[1] - 1) / p->local[1], (gz + p->local[2] - 1) / p->local[2]};
    for (int i = 0; i < 3; i++)
    {
        if (groups[i] > dev->props.limits.maxComputeWorkGroupCount[i])
        {
            KITE_LOGE("Vulkan: dispatch of %u x %u x %u invocations needs %u groups on axis %d, the device allows %u",
                      gx, gy, gz, groups[i], i, dev->props.limits.maxComputeWorkGroupCount[i]);
            return -1;
        }
    }
    if (gx == 0 || gy == 0 || gz == 0)
        return 0;
    if (begin() != 0)
        return -1;
    if (desc_pools.empty() || sets_in_pool == SETS_PER_POOL)
    {
        // descriptor sets of this submission; reused after the next finish()
        VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, SETS_PER_POOL * BINDINGS_PER_SET};
        VkDescriptorPoolCreateInfo dpi = {};
        dpi.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
        dpi.maxSets = SETS_PER_POOL;
        dpi.poolSizeCount = 1;
        dpi.pPoolSizes = &ps;
        VkDescriptorPool pool;
        if (vkCreateDescriptorPool(dev->device, &dpi, nullptr, &pool) != VK_SUCCESS)
        {
            KITE_LOGE("Vulkan: vkCreateDescriptorPool failed");
            return -1;
        }
        desc_pools.push_back(pool);
        sets_in_pool = 0;
    }
    VkDescriptorSetAllocateInfo ai = {};
    ai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    ai.descriptorPool = desc_pools.back();
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &p->set_layout;
    VkDescriptorSet set;
    if (vkAllocateDescriptorSets(dev->device, &ai, &set) != VK_SUCCESS)
    {
        KITE_LOGE("Vulkan: vkAllocateDescriptorSets failed");
        return -1;
    }
    sets_in_pool++;
    VkDescriptorBufferInfo info[BINDINGS_PER_SET];
    VkWriteDescriptorSet wr[BINDINGS_PER_SET];
    for (size_t i = 0; i < bufs.size(); i++)
    {
        info[i] = {bufs[i]->buf.buffer, 0, bufs[i]->buf.size};
        wr[i] = {};
        wr[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        wr[i].dstSet = set;
        wr[i].dstBinding = (uint32_t)i;
        wr[i].descriptorCount = 1;
        wr[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        wr[i].pBufferInfo = &info[i];
    }
    vkUpdateDescriptorSets(dev->device, (uint32_t)bufs.size(), wr, 0, nullptr);
    VkBuffer act[BINDINGS_PER_SET];
    size_t nact = 0;
    for (size_t i = 0; i < bufs.size(); i++)
        if (!bufs[i]->chunk)
            act[nact++] = bufs[i]->buf.buffer;
    barrier_for(act, nact);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &set, 0, nullptr);
    unsigned char pc[MAX_PUSH_BYTES] = {0};
    if (push_size)
        memcpy(pc, push, push_size);
    vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, MAX_PUSH_BYTES, pc);
    vkCmdDispatch(cmd, groups[0], groups[1], groups[2]);
    dispatches[p->shader]++;
    dirty = true;
    return 0;
}

int Session::copy(const VkBlob* src, size_t src_offset, const VkBlob* dst, size_t dst_offset, size_t n)
{
    return copy_regions(src, dst, {VkBufferCopy{src_offset, dst_offset, n}});
}

int Session::copy_regions(const VkBlob* src, const VkBlob* dst, const std::vector<VkBufferCopy>& regions)
{
    for (const VkBufferCopy& r : regions)
    {
        if (r.size == 0 || r.srcOffset + r.size > src->buf.size || r.dstOffset + r.size > dst->buf.size)
        {
            KITE_LOGE("Vulkan: copy region empty or out of bounds");
            return -1;
        }
    }
    if (regions.empty())
        return 0;
    if (begin() != 0)
        return -1;
    const VkBuffer both[2] = {src->buf.buffer, dst->buf.buffer};
    barrier_for(both, 2);
    vkCmdCopyBuffer(cmd, src->buf.buffer, dst->buf.buffer, (uint32_t)regions.size(), regions.data());
    copies++;
    dirty = true;
    return 0;
}

// CPU Mat (any elempack, fp16/fp32) -> elempack-1 device blob in the
// session's storage type (converted on the host while staging)
int Session::upload(const Mat& m, GpuBlobPtr& out, const Layer* consumer, const Option& opt)
{
    (void)consumer;
    if (m.empty())
    {
        KITE_LOGE("Vulkan: upload of an empty Mat");
        return -1;
    }
    if (m.elembits() == 8)
    {
        // int8 values (a CPU int8 layer's requantized output): as floats, flagged
        Mat f;
        cast_int8_to_float32(m, f, opt);
        if (f.empty())
            return -100;
        int ret = upload(f, out, consumer, opt);
        if (ret == 0)
            static_cast<VkBlob*>(out.get())->int8 = true;
        return ret;
    }
    if (m.elembits() != 32 && m.elembits() != 16)
    {
        KITE_LOGE("Vulkan: upload of a Mat with %d-bit elements (fp32, fp16 and int8 only)", m.elembits());
        return -1;
    }
    const int channels = m.dims >= 3 ? m.c * m.elempack : 0;
    const int pack = elempack_for(consumer, opt, m.dims, channels);
    Mat src;
    int ret = stage_host(m, pack, opt, src);
    if (ret != 0)
        return ret;
    VkBlobPtr b = create_blob(src.dims, src.w, src.h, src.d, src.c, pack);
    if (!b)
        return -100;
    const size_t plane = (size_t)src.w * src.h * src.d * storage * pack;
    const size_t bytes = plane * src.c;
    Buffer st;
    if (!staging->acquire(bytes, st))
        return -100;
    if (rec)
        ups.push_back(UploadSlot{st, gpu_shape_of(m), pack});
    else
        staging_used.push_back(st);
    write_staging(src, st.mapped);
    if (begin() != 0)
        return -1;
    barrier_for(&b->buf.buffer, 1);
    VkBufferCopy r = {0, 0, bytes};
    vkCmdCopyBuffer(cmd, st.buffer, b->buf.buffer, 1, &r);
    dirty = true;
    out = b;
    return 0;
}

int Session::stage_host(const Mat& m, int pack, const Option& opt, Mat& src) const
{
    src = m;
    if (src.elempack != pack)
    {
        Mat u;
        kite::convert_packing(src, u, pack, opt);
        src = u;
    }
    if (src.elembits() == 16 && storage == 4)
    {
        Mat f;
        cast_float16_to_float32(src, f, opt);
        src = f;
    }
    // fp32 into an fp16 session stays fp32 here: write_staging converts
    // while it copies (no fp16 Mat in between)
    return src.empty() ? -100 : 0;
}

void Session::write_staging(const Mat& src, void* mapped) const
{
    const size_t n = (size_t)src.w * src.h * src.d * src.elempack; // scalars per channel group
    for (int q = 0; q < src.c; q++)
    {
        unsigned char* dst = (unsigned char*)mapped + n * storage * q;
        if (src.elembits() == 32 && storage == 2)
            float32_to_float16_n((const float*)src.channel(q).data, (unsigned short*)dst, n);
        else
            memcpy(dst, src.channel(q).data, n * storage);
    }
}

int Session::download(const GpuBlobPtr& g, Mat& m, const Option& opt)
{
    if (!g || g->backend != BACKEND_VULKAN)
    {
        KITE_LOGE("Vulkan: download of a blob that is not on Vulkan");
        return -1;
    }
    const VkBlob* b = static_cast<const VkBlob*>(g.get());
    const Mat& s = b->shape;
    const size_t es = s.elemsize / s.elempack == 2 ? 2 : 4;
    const size_t plane = (size_t)s.w * s.h * s.d * s.elempack; // scalars per channel group
    const size_t bytes = plane * s.c * es;
    Buffer st;
    if (!staging->acquire(bytes, st))
        return -100;
    if (begin() != 0)
    {
        staging->release(st);
        return -1;
    }
    const bool slot = rec;
    if (slot)
        downs.push_back(DownloadSlot{st, s, b->int8, -1});
    else
        staging_used.push_back(st);
    barrier_for(&b->buf.buffer, 1);
    VkBufferCopy r = {0, 0, bytes};
    vkCmdCopyBuffer(cmd, b->buf.buffer, st.buffer, 1, &r);
    barrier(VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    if (finish() != 0)
        return -1;
    if (slot)
        downs.back().segment = (int)segs.size() - 1;
    // finish() gave the staging buffer back to the pool, but nothing else can
    // take it before this copy (the pool is this session's)
    return read_staging(st, s, b->int8, m, opt);
}

int Session::read_staging(const Buffer& st, const Mat& s, bool int8, Mat& m, const Option& opt) const
{
    const size_t es = s.elemsize / s.elempack == 2 ? 2 : 4;
    const size_t plane = (size_t)s.w * s.h * s.d * s.elempack; // scalars per channel group
    // as the device holds it (fp32), then unpacked
    Mat packed;
    Allocator* alloc = s.elempack == 1 ? opt.blob_allocator : nullptr;
    const size_t pes = 4u * s.elempack;
    if (s.dims == 1)
        packed.create(s.w, pes, s.elempack, alloc);
    else if (s.dims == 2)
        packed.create(s.w, s.h, pes, s.elempack, alloc);
    else if (s.dims == 3)
        packed.create(s.w, s.h, s.c, pes, s.elempack, alloc);
    else
        packed.create(s.w, s.h, s.d, s.c, pes, s.elempack, alloc);
    if (packed.empty())
        return -100;
    Mat& dst_m = packed;
    for (int q = 0; q < s.c; q++)
    {
        float* dst = dst_m.channel(q);
        if (es == 4)
            memcpy(dst, (const float*)st.mapped + plane * q, plane * 4);
        else // F16C where the CPU has it (a detection head's inputs are 10^5 scalars)
            float16_to_float32_n((const unsigned short*)st.mapped + plane * q, dst, plane);
    }
    if (s.elempack == 1)
        m = packed;
    else
        kite::convert_packing(packed, m, 1, opt);
    if (m.empty())
        return -100;
    if (int8)
        return float_integers_to_int8(m, opt);
    return 0;
}

int Session::elempack_for(const Layer* consumer, const Option& opt, int dims, int channels) const
{
    if (!consumer || !consumer->support_packing || !opt.use_packing_layout || dims < 3)
        return 1;
    if (max_pack >= 8 && channels % 8 == 0)
        return 8;
    return max_pack >= 4 && channels % 4 == 0 ? 4 : 1;
}

// the layers whose Vulkan drivers read fp32 blobs (VkBlob::f32) in a
// session with fp16 storage: int8 Convolution / ConvolutionDepthWise quantize
// them (the float kernels cast them: ConvGpu::forward), Concat and Pooling
// keep fp32 in, fp32 out, Split passes them on, the gathers (Permute, Crop,
// Reshape, Padding: rearrange_vulkan.h) and BatchNorm read them into the
// storage type, Flatten views them, PriorBox reads only the shape
// (layer/vulkan/)
static bool reads_fp32_blobs(const Layer* consumer)
{
    if (!consumer)
        return false;
    const std::string& t = consumer->type;
    return t == "Convolution" || t == "ConvolutionDepthWise" || t == "Concat" || t == "Pooling" || t == "Split" ||
           t == "Permute" || t == "Crop" || t == "Reshape" || t == "Padding" || t == "BatchNorm" || t == "PriorBox" ||
           t == "Flatten";
}

int Session::convert_for_layer(GpuBlobPtr& g, const Layer* consumer, const Option& opt)
{
    if (static_cast<const VkBlob*>(g.get())->f32 && !reads_fp32_blobs(consumer))
    {
        GpuBlobPtr h;
        int ret = cast_to_storage(g, h);
        if (ret != 0)
            return ret;
        g = h;
    }
    const Mat& s = g->shape;
    const int pack = elempack_for(consumer, opt, s.dims, s.c * s.elempack);
    if (pack == s.elempack)
        return 0;
    GpuBlobPtr out;
    int ret = convert_packing(g, out, pack);
    if (ret == 0)
        g = out;
    return ret;
}

int Session::convert_packing(const GpuBlobPtr& in, GpuBlobPtr& out, int pack)
{
    const Mat& s = in->shape;
    const int channels = s.c * s.elempack;
    if (pack == s.elempack)
    {
        out = in;
        return 0;
    }
    if ((pack != 1 && pack != 4 && pack != 8) || (pack != 1 && (s.dims < 3 || channels % pack != 0)))
    {
        KITE_LOGE("Vulkan: cannot convert a dims-%d blob of %d channels to elempack %d", s.dims, channels, pack);
        return -1;
    }
    const bool f32 = static_cast<const VkBlob*>(in.get())->f32;
    const Pipeline* p = dev->pipeline("packing", 2, 64, 1, 1, storage == 2 && !f32 ? VARIANT_FP16S : VARIANT_FP32);
    VkBlobPtr o = create_blob(s.dims, s.w, s.h, s.d, channels / pack, pack, f32);
    if (!p || !o)
        return -100;
    struct
    {
        int plane, c, sp, dp, g, cpg;
    } pc = {s.w * s.h * s.d, channels, s.elempack, pack, 1, channels};
    int ret = dispatch(p, {static_cast<const VkBlob*>(in.get()), o.get()}, &pc, sizeof(pc), pc.plane, pc.c, 1);
    o->int8 = static_cast<const VkBlob*>(in.get())->int8;
    if (ret == 0)
        out = o;
    return ret;
}

// ---------------------------------------------------------------- backend

class VulkanBackend : public GpuBackend
{
public:
    int backend() const override { return BACKEND_VULKAN; }
    const char* name() const override { return "Vulkan"; }
    bool available(const Option& opt) override { return VulkanDevice::get(opt.vulkan_device) != nullptr; }
    std::string device_description(const Option& opt) override
    {
        VulkanDevice* d = VulkanDevice::get(opt.vulkan_device);
        if (!d)
            return "none";
        char s[400];
        snprintf(s, sizeof(s), "%s | vendor %04x device %04x driver %08x api %u.%u.%u", d->props.deviceName, d->props.vendorID, d->props.deviceID,
                 d->props.driverVersion, VK_VERSION_MAJOR(d->props.apiVersion), VK_VERSION_MINOR(d->props.apiVersion), VK_VERSION_PATCH(d->props.apiVersion));
        return s;
    }
    GpuSession* create_session(const Option& opt) override
    {
        VulkanDevice* d = VulkanDevice::get(opt.vulkan_device);
        if (!d)
            return nullptr;
        Session* s = new Session(d, d->storage_elemsize(opt));
        if (!s->ok())
        {
            delete s;
            return nullptr;
        }
        return s;
    }
    bool fp16_arithmetic(const Option& opt) override
    {
        VulkanDevice* d = VulkanDevice::get(opt.vulkan_device);
        return d && d->variant(opt) == VARIANT_FP16A;
    }
};

int Session::cast_to_storage(const GpuBlobPtr& in, GpuBlobPtr& out)
{
    const VkBlob* b = static_cast<const VkBlob*>(in.get());
    if (!b->f32)
    {
        out = in;
        return 0;
    }
    const Mat& s = b->shape;
    const Pipeline* p = dev->pipeline("cast_f32", 2, 64, 1, 1, VARIANT_FP16S);
    VkBlobPtr o = create_blob(s.dims, s.w, s.h, s.d, s.c, s.elempack);
    if (!p || !o)
        return -100;
    const int n = (int)b->total();
    int ret = dispatch(p, {b, o.get()}, &n, sizeof(n), (uint32_t)n, 1, 1);
    if (ret == 0)
    {
        o->int8 = b->int8;
        out = o;
    }
    return ret;
}

} // namespace vk

GpuBackend* vulkan_gpu_backend()
{
    static vk::VulkanBackend b;
    return &b;
}

} // namespace kite
