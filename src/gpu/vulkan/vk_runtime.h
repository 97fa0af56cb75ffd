#ifndef KITE_GPU_VULKAN_VK_RUNTIME_H
#define KITE_GPU_VULKAN_VK_RUNTIME_H

// kite's Vulkan runtime: instance and device selection, buffer pools with
// reuse, compute pipelines from the embedded SPIR-V (with an on-disk
// VkPipelineCache), and the per-Extractor Session that records dispatches.
//
// Device blobs are storage buffers, channel-contiguous (cstep = w*h*d):
// element index = ((q*d + z)*h + y)*w + x, of fp32 scalars, or fp16 ones in a
// session with fp16 storage (Option::use_fp16_storage on a device with
// storageBuffer16BitAccess). 3-D/4-D blobs whose channel count is a multiple
// of 4 (8) may be elempack 4 (8) (as a CPU Mat: c counts groups of 4 (8)
// channels, one element holds channels 4q..4q+3 as one vec4, or 8q..8q+7 as
// two consecutive vec4: 16 bytes in fp16) when the consuming layer takes
// that (Layer::support_packing) and Option::use_packing_layout is on;
// Session::convert_for_layer converts on the device between layers. Uploads
// and downloads convert any CPU Mat (elempack 1/4/8/16, fp16 or fp32) to and
// from these layouts on the host. Weights and index maps are fp32 buffers in
// every session (fp16 where a layer asks upload_constant for it).
//
// Constants (weights, index maps) are sub-allocated from a few large
// device-local allocations (ConstantChunk) and filled at flush_constants():
// straight into the device memory where it is host-visible (lavapipe,
// integrated GPUs), else into one staging buffer copied in one submit.

#include "vk_api.h"

#include "../gpu.h"
#include "../../option.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kite {
namespace vk {

struct Buffer
{
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    void* mapped = nullptr; // host-visible pools only
};

class VulkanDevice;
class Session;
struct ConstantChunk;

// Buffers of one memory kind, handed out and taken back for reuse. A pool with
// a parent gives its idle buffers to the parent when it dies (a Session's
// pools feed the device's); the root pool frees them.
class BufferPool
{
public:
    BufferPool(VulkanDevice* dev, bool host_visible, std::shared_ptr<BufferPool> parent);
    ~BufferPool();
    // a buffer of at least `size` bytes; false (logged) on failure
    bool acquire(VkDeviceSize size, Buffer& out);
    void release(const Buffer& b);

private:
    VulkanDevice* dev;
    bool host_visible;
    std::shared_ptr<BufferPool> parent;
    std::mutex lock;
    std::multimap<VkDeviceSize, Buffer> idle;
};

// A tensor on the device (see the layout above).
class VkBlob : public GpuBlob
{
public:
    ~VkBlob() override;
    Buffer buf;
    std::shared_ptr<BufferPool> pool; // where buf goes back; null for an alias
    GpuBlobPtr alias_of;              // the blob whose buffer this one views
    // the values are int8 (integers in [-127, 127] stored as floats), as a
    // requantizing int8 layer writes them: downloaded as an int8 Mat, and an
    // int8 consumer does not quantize them again
    bool int8 = false;
    // fp32 scalars in a session with fp16 storage (elemsize 4 * elempack):
    // the dequantized output of an int8 layer, kept in fp32 so that the next
    // int8 layer quantizes fp32 values as the CPU does (rounded to fp16
    // first, a value may move by one int8 step). Only Convolution,
    // ConvolutionDepthWise, Concat, Pooling, Split, BatchNorm, PriorBox,
    // Flatten and the gathers (Permute, Crop, Reshape, Padding) read one;
    // Session::convert_for_layer casts it to fp16 for every other layer
    bool f32 = false;
    // a constant: buf.buffer is bound into this shared allocation (no pool)
    std::shared_ptr<ConstantChunk> chunk;
    // number of scalars
    size_t total() const { return (size_t)shape.w * shape.h * shape.d * shape.c * shape.elempack; }
};
typedef std::shared_ptr<VkBlob> VkBlobPtr;

struct Pipeline
{
    VkShaderModule module = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    int bindings = 0;
    uint32_t local[3] = {1, 1, 1};
    int variant = 0; // ShaderVariant (vk_shaders.h)
    std::string shader; // shaders/vulkan/<shader>.comp (dispatch listings)
};

// Push constants are at most this many bytes (the Vulkan minimum guarantee).
enum
{
    MAX_PUSH_BYTES = 128
};

class VulkanDevice
{
public:
    // the device with this index (created on first use), or nullptr (logged)
    static VulkanDevice* get(int index);
    ~VulkanDevice();

    VkDevice device = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    uint32_t queue_family = 0;
    VkPhysicalDeviceProperties props;
    int index = 0;
    uint32_t mem_device_local = ~0u;
    uint32_t mem_host_visible = ~0u; // host-visible + coherent (+ cached when there is one)
    std::mutex queue_lock;           // vkQueueSubmit is externally synchronised
    bool fp16_storage = false;       // storageBuffer16BitAccess enabled
    bool fp16_arithmetic = false;    // shaderFloat16 enabled
    // VK_KHR_shader_integer_dot_product's shaderIntegerDotProduct enabled, and
    // whether the device says its packed signed 4 x int8 dot product is
    // accelerated (integerDotProduct4x8BitPackedSignedAccelerated)
    bool int8_dot = false;
    bool int8_dot_accelerated = false;

    std::shared_ptr<BufferPool> blob_pool;
    std::shared_ptr<BufferPool> staging_pool;

    // the shader variant (ShaderVariant) for `opt`: fp16 storage where opt
    // asks for it and the device has it, fp16 arithmetic on top where both
    // are asked for and present
    int variant(const Option& opt) const;
    // bytes per blob element in a session with `opt`: 2 with fp16 storage
    size_t storage_elemsize(const Option& opt) const { return variant(opt) == 0 ? 4u : 2u; }
    // whether int8 layers take their shaders' "<name>_dot4" variants (packed
    // integer dot product): where the device has it and calls it
    // accelerated, or is a CPU (lavapipe: faster than the portable shaders);
    // KITE_VULKAN_INT8_DOT=1 wherever it has it, =0 never (the portable
    // shaders). Read at create_pipeline.
    bool use_int8_dot() const;
    // the compute pipeline of variant `variant` of shaders/vulkan/<shader>.comp
    // with `bindings` storage buffers and the local size (x, y, z); cached,
    // never nullptr unless creation failed (logged)
    const Pipeline* pipeline(const char* shader, int bindings, uint32_t lx, uint32_t ly, uint32_t lz, int variant = 0);
    // number of pipelines created so far in this process (for start-up measurements)
    int pipeline_count();
    // write the VkPipelineCache to disk (also done at exit)
    void save_pipeline_cache();

    // writes part `part` of `parts` of one constant into dst (mapped memory:
    // the start of the whole constant; the parts of a constant write disjoint
    // bytes and run in any order, on any thread)
    typedef std::function<void(void* dst, int part, int parts)> ConstantFill;
    // a new device blob of shape `shape` (elempack 1, fp32 or, with half,
    // fp16 scalars) whose values `fill` writes at the next flush_constants()
    // in `parts` parts; for weights at create_pipeline time (a layer's weight
    // layouts are built there, straight into the mapped memory) and index maps
    // at forward time. The device memory is taken at once (the blob can be
    // bound right away); Net::load_model flushes after the last
    // create_pipeline (inside its upload time), a session before it records
    // or submits. The parts of every pending constant run in parallel on
    // load_threads() threads.
    VkBlobPtr upload_constant(const Mat& shape, bool half, ConstantFill fill, int parts = 1);
    // the values of `src` (fp32, any shape with the same number of scalars;
    // kept by reference until the flush), stored as fp32 or converted to fp16
    VkBlobPtr upload_constant(const Mat& shape, const Mat& src, bool half = false);
    // a copy of `data` (taken now: the caller's buffer may go)
    VkBlobPtr upload_constant(const Mat& shape, const float* data);
    // parts for a fill of `bytes` (about 1 MB each: enough to spread one large
    // tensor over every load thread; KITE_VULKAN_FILL_PART_BYTES=N for tests)
    static int fill_parts(size_t bytes);
    // threads that fill constants at a flush: every physical (big) core, at
    // least 1, whatever Option::num_threads says (load time only: a one-off
    // cost the caller waits for; inference keeps num_threads);
    // KITE_VULKAN_LOAD_THREADS=N overrides
    static int load_threads();
    // fill the pending constants and copy them to the device; waits
    int flush_constants();
    // whether constants are written straight into host-visible device memory
    // (no staging copy); stage_constants() turns that off (tests use both paths)
    bool constants_in_place() const { return constants_direct; }
    void stage_constants() { constants_direct = false; }
    // staged flushes copy at most this many bytes per submit (64 MB; tests
    // lower it to run several batches through the one staging buffer)
    void limit_staging_batch(size_t bytes) { staging_batch = bytes; }

    bool create_buffer(VkDeviceSize size, bool host_visible, Buffer& out);
    void destroy_buffer(Buffer& b);

private:
    VulkanDevice() {}
    bool init(VkPhysicalDevice pd, int index);
    std::string cache_path() const;

    std::mutex pipeline_lock;
    std::map<std::string, Pipeline*> pipelines;
    VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
    bool cache_dirty = false;
    size_t cache_saved_bytes = 0; // size of the cache data on disk (loaded or written)

    struct PendingConstant
    {
        std::weak_ptr<VkBlob> blob; // skipped when it went before the flush
        ConstantFill fill;
        size_t bytes;
        int parts;
    };
    // a buffer of `bytes` bound into a constant chunk (a new one when the
    // current one is full)
    bool bind_constant(size_t bytes, VkBlob& b);
    int flush_batch(std::vector<PendingConstant>& items, size_t first, size_t last, Buffer* staging);

    std::mutex constants_lock;
    std::vector<PendingConstant> constants;
    std::weak_ptr<ConstantChunk> chunk_current;
    VkDeviceSize chunk_next = 0;
    // device-local memory is host-visible + coherent: no staging
    // (KITE_VULKAN_CONSTANTS=staged stages anyway, as on a discrete GPU)
    bool constants_direct = false;
    size_t staging_batch = (size_t)64 << 20;
    VkCommandPool upload_pool = VK_NULL_HANDLE;
    VkCommandBuffer upload_cmd = VK_NULL_HANDLE;
    VkFence upload_fence = VK_NULL_HANDLE;
    // KITE_VULKAN_TIMING
    struct
    {
        int count, chunks, batches, threads;
        size_t bytes;
        double record_ms, alloc_ms, staging_ms, fill_ms, submit_ms;
    } ct = {};
    double pipelines_ms = 0;
    int pipelines_made = 0;
    double cache_save_ms = 0;
    double init_ms = 0;
};

// One Extractor's command stream: dispatches are recorded into one command
// buffer, with a compute/transfer barrier before a command only where it
// touches a buffer an earlier command since the last barrier touched, and
// submitted when something is downloaded or finish() is called.
class Session : public GpuSession
{
public:
    // blobs of `elemsize` bytes per element: 4 (fp32) or 2 (fp16 storage);
    // loader: the device's constant-upload session (does not flush itself)
    explicit Session(VulkanDevice* dev, size_t elemsize = 4, bool loader = false);
    ~Session() override;
    bool ok() const { return good; }

    int upload(const Mat& m, GpuBlobPtr& out, const Layer* consumer, const Option& opt) override;
    int download(const GpuBlobPtr& g, Mat& m, const Option& opt) override;
    // the elempack (1, 4 or 8) `consumer` takes a blob of this shape in
    int convert_for_layer(GpuBlobPtr& g, const Layer* consumer, const Option& opt) override;
    int finish() override;
    void limit_elempack(int max_elempack) override { max_pack = max_elempack >= 8 ? 8 : max_elempack >= 4 ? 4 : 1; }
    // the largest device elempack of this session: 4 (fp32 and fp16
    // storage; see the constructor); KITE_VULKAN_ELEMPACK=1|4|8 overrides
    // it, limit_elempack lowers or raises it
    int elempack_limit() const { return max_pack; }
    // the device layout of a blob of this shape for `consumer` (nullptr: 1):
    // the largest of 8 and 4 within the limit that divides the channels
    int elempack_for(const Layer* consumer, const Option& opt, int dims, int channels) const;
    // record a device conversion of `in` to elempack `pack` (1, 4 or 8; a
    // packed one needs dims >= 3 and channels % pack == 0); out = in when it
    // already is (an fp32 blob stays fp32)
    int convert_packing(const GpuBlobPtr& in, GpuBlobPtr& out, int pack);

    VulkanDevice* device() const { return dev; }
    size_t elemsize() const { return storage; }
    // a device blob of the given shape (dims, w, h, d, c) in this session's
    // storage type; nullptr on failure
    // (c counts elempack-sized groups, as in a Mat)
    // (fp32: an fp32 blob whatever the session stores, VkBlob::f32 where the
    // session stores fp16)
    VkBlobPtr create_blob(int dims, int w, int h, int d, int c, int elempack = 1, bool fp32 = false);
    // `in` (an fp32 blob: VkBlob::f32) cast to the session's storage type on
    // the device (cast_f32.comp); out = in when it is not fp32
    int cast_to_storage(const GpuBlobPtr& in, GpuBlobPtr& out);
    VkBlobPtr create_blob_like(const Mat& shape) { return create_blob(shape.dims, shape.w, shape.h, shape.d, shape.c, shape.elempack); }
    // record one dispatch of `p` over (gx, gy, gz) invocations; buffers bind
    // to 0..n-1 in order; push holds the push constants
    int dispatch(const Pipeline* p, const std::vector<const VkBlob*>& bufs, const void* push, size_t push_size,
                 uint32_t gx, uint32_t gy, uint32_t gz);
    // record a device copy of `n` bytes (after a barrier)
    int copy(const VkBlob* src, size_t src_offset, const VkBlob* dst, size_t dst_offset, size_t n);
    // several byte ranges in one command
    int copy_regions(const VkBlob* src, const VkBlob* dst, const std::vector<VkBufferCopy>& regions);

    // recording and replay (GpuSession): each segment is its own command
    // buffer, kept with its descriptor sets and staging buffers
    bool start_recording() override;
    void stop_recording() override { rec = false; }
    int upload_slots() const override { return (int)ups.size(); }
    int download_slots() const override { return (int)downs.size(); }
    int segments() const override { return (int)segs.size(); }
    bool pending() const override { return recording && dirty; }
    int replay_upload(int slot, const Mat& m, const Option& opt) override;
    int replay_segment(int segment) override;
    int replay_download(int slot, Mat& m, const Option& opt) override;
    // barriers recorded so far (tests)
    int barrier_count() const { return barriers; }
    // dispatches recorded so far by shader name, and buffer copies (tests,
    // KITE_VULKAN_DISPATCHES=1 prints them when the session ends: for a
    // recorded forward, the dispatches of one forward)
    const std::map<std::string, int>& dispatch_counts() const { return dispatches; }
    int copy_count() const { return copies; }

private:
    int begin();
    int allocate_cmd(); // a primary command buffer from cmd_pool into cmd
    void barrier(VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);
    // a barrier before a command that touches `n` buffers `bufs` where one of
    // them was touched since the last barrier (read-after-write and
    // write-after-read through reused buffers); constants are never written
    void barrier_for(const VkBuffer* bufs, size_t n);
    // `m` converted on the host to what an upload of elempack `pack` stores
    // (fp32 into an fp16 session is left fp32: write_staging converts it)
    int stage_host(const Mat& m, int pack, const Option& opt, Mat& src) const;
    // src (as stage_host left it) into mapped staging memory in the
    // session's storage type, channel groups back to back
    void write_staging(const Mat& src, void* mapped) const;
    int submit_wait(VkCommandBuffer c);
    int read_staging(const Buffer& st, const Mat& s, bool int8, Mat& m, const Option& opt) const;

    struct UploadSlot
    {
        Buffer st;
        Mat shape; // the uploaded Mat's header (no data)
        int pack;
    };
    struct DownloadSlot
    {
        Buffer st;
        Mat shape; // the device blob's
        bool int8;
        int segment;
    };
    bool good = false;
    bool rec = false; // recording mode
    std::vector<VkCommandBuffer> segs;
    std::vector<UploadSlot> ups;
    std::vector<DownloadSlot> downs;
    std::vector<VkBuffer> touched; // activation buffers used since the last barrier
    int barriers = 0;
    std::map<std::string, int> dispatches;
    int copies = 0;

    VulkanDevice* dev;
    size_t storage; // bytes per blob element
    int max_pack = 4; // largest device elempack (elempack_limit)
    bool loader;
    VkCommandPool cmd_pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    std::vector<VkDescriptorPool> desc_pools;
    uint32_t sets_in_pool = 0;
    bool recording = false;
    bool dirty = false; // commands recorded since begin
    std::shared_ptr<BufferPool> blobs;
    std::shared_ptr<BufferPool> staging;
    std::vector<Buffer> staging_used; // until the next submit completes
};

// errors the validation layer reported (KITE_VULKAN_VALIDATION=1), process-wide
int validation_error_count();

} // namespace vk
} // namespace kite

#endif // KITE_GPU_VULKAN_VK_RUNTIME_H
