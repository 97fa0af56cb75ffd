#ifndef KITE_GPU_OPENCL_CL_RUNTIME_H
#define KITE_GPU_OPENCL_CL_RUNTIME_H

// The OpenCL backend: device selection over all platforms, one context per
// device, programs built from the embedded shaders/opencl/*.cl sources (with
// an on-disk binary cache), RGBA 2D images as tensor storage (see
// cl_layout.h), an image pool per session and a local-size tuner.

#include "../../mat.h"
#include "../../option.h"
#include "../gpu.h"
#include "cl_api.h"
#include "opencl.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kite {
namespace cl {

// Process-wide deployment settings (seed 003): binary cache, tuner, kernel
// time limit; the public API and the environment defaults are in opencl.h.

// A device-owned RGBA image (float or half channels) with its size.
struct Image
{
    cl_mem mem = nullptr;
    int width = 0;
    int height = 0;
    bool half = false;
};

class Context;

// Reuses images of one session: a released image goes back to the pool and
// the next request of the same size and format takes it.
class ImagePool
{
public:
    explicit ImagePool(Context* ctx) : ctx_(ctx) {}
    ~ImagePool();
    int acquire(int width, int height, bool half, Image& out);
    void release(const Image& img);
    Context* context() const { return ctx_; }

private:
    Context* ctx_;
    std::mutex mutex_;
    std::multimap<long long, Image> free_;
};

enum ImageLayout
{
    LAYOUT_CHANNEL_MAJOR = 0, // activations: [W * (C+3)/4, N * H]
};

// A blob on the device. C, H, W is how the Mat maps to the channel-major
// image (see cl_layout.h).
// A launch put off until something reads its output image (Session::defer).
struct Deferred
{
    cl_mem image = nullptr;   // the output it writes
    std::function<int()> run; // enqueues it (through Session::dispatch)
    bool settled = false;     // run already, or never to run (its blob is gone)
    const char* owner = nullptr; // the type of the layer that put it off (launch counts)
    // a reader read through it (ClBlob::perm_src, cat_src, pad_src,
    // with_residual): a download does not run it with the rest (Session::
    // settle_all), only a launch that reads its image does
    bool read_through = false;
};

class ClBlob;
typedef std::shared_ptr<ClBlob> ClBlobPtr;
struct CropGroup; // layer/opencl/channel_slice_opencl.h
struct DwLaunch;

class ClBlob : public GpuBlob
{
public:
    ~ClBlob() override;
    Image image;
    int C = 0, H = 0, W = 0;
    // set while the launch that writes `image` is put off: the blob is
    // `perm_src` with its channels shuffled as ShuffleChannel (perm_group,
    // perm_reverse) does; a consumer that can read through the permutation
    // (Slice) does so, and any launch that reads `image` runs it first
    std::shared_ptr<Deferred> deferred;
    ClBlobPtr perm_src;
    int perm_group = 0, perm_reverse = 0;
    // set with `deferred` by an element-wise launch that can apply an
    // activation before it writes (BinaryOp, Eltwise): runs it into dst with
    // activation act (p0, p1) of layer/gpu/gpu_activation.h
    std::function<int(int act, float p0, float p1, const Image& dst)> with_activation;
    // set with `deferred` by an activation layer: the blob is act_type
    // (act_p0, act_p1) of act_src; a consumer that can apply it as it reads
    // (a per-channel BinaryOp's small side) reads act_src
    ClBlobPtr act_src;
    int act_type = 0;
    float act_p0 = 0.f, act_p1 = 0.f;
    // set with `deferred` by a channel Concat of two inputs: the blob is
    // cat_src[0]'s channels, then cat_src[1]'s (natural images, same H and
    // W); a consumer that can read the two (Slice, Crop, ShuffleChannel:
    // shape.cl slice_c) reads them and the Concat never runs.
    // KITE_OPENCL_FUSE_CONCAT=0: off
    std::vector<ClBlobPtr> cat_src;
    // set with `deferred` by a constant Padding (after the last channel and
    // around the plane): the blob is pad_src moved by (pad_top, pad_left)
    // and padded with pad_value to C, H, W; a reader that can pad as it
    // reads (a same-shaped BinaryOp: channel zeros; a depth-wise
    // convolution: the plane) reads pad_src and the Padding never runs.
    // KITE_OPENCL_FUSE_PAD=0: off
    ClBlobPtr pad_src;
    // set with `deferred` (and with_activation) by a convolution whose
    // kernel can add a same-shaped image before the activation: runs it into
    // dst adding res's first res_c channels (zeros past them). A residual
    // BinaryOp / Eltwise sum after it runs in its launch.
    // KITE_OPENCL_FUSE_RESIDUAL=0: off
    std::function<int(const Image& res, int res_c, int act, float p0, float p1, const Image& dst)> with_residual;
    int pad_top = 0, pad_left = 0;
    float pad_value = 0.f;
    // the put-off channel Crops of this blob not yet run: a Crop of it
    // joins them and all run in one launch (up to 4; nanodet's shuffle
    // halves). KITE_OPENCL_FUSE_CROP=0: off
    std::weak_ptr<CropGroup> crop_group; // held by the Crops' put-off launches
    // set with `deferred` by a depth-wise convolution: its launch; a 1x1
    // convolution after it on a small map runs both in one launch (conv.cl
    // dwconv_1x1). Off unless KITE_OPENCL_FUSE_DWPW=1: the fused kernel
    // computes the depth-wise sums again for every output block, and on an
    // H100 that made the 35 graphs' OpenCL/Vulkan geomean 1.60 against 1.21
    // without it (mobilenet_v2 7.7x); it only saves launches on a CPU device
    // such as PoCL
    std::shared_ptr<DwLaunch> dw_launch;
    // the values are int8 (integers in [-127, 127] stored as floats), as a
    // requantizing int8 layer writes them: the CPU side of such a blob is an
    // int8 Mat, and an int8 consumer does not quantize it again
    bool int8 = false;
    std::shared_ptr<ImagePool> pool; // where image goes back to; null: owned
};

// A depth-wise convolution's launch (conv.cl dwconv2d's arguments): src's
// C channels (H x W) into an OW x OH map
struct DwLaunch
{
    ClBlobPtr src;
    Image filt, bias; // owned by the layer
    int C = 0, OW = 0, OH = 0;
    int kw = 1, kh = 1, sw = 1, sh = 1, dw = 1, dh = 1, pl = 0, pt = 0;
    float pad_value = 0.f;
    int has_bias = 0, act = 0;
    float p0 = 0.f, p1 = 0.f;
};

// cl_khr_command_buffer's entry points (declared here: the Khronos headers
// of older systems lack them), loaded per platform through
// clGetExtensionFunctionAddressForPlatform. The signatures are those of the
// provisional extension 0.9.0 - 0.9.4, the versions kite uses.
struct CommandBufferApi
{
    typedef struct _kite_cl_command_buffer* Buffer;
    typedef cl_uint SyncPoint;
    Buffer(CL_API_CALL* create)(cl_uint, const cl_command_queue*, const cl_ulong*, cl_int*) = nullptr;
    cl_int(CL_API_CALL* finalize)(Buffer) = nullptr;
    cl_int(CL_API_CALL* release)(Buffer) = nullptr;
    cl_int(CL_API_CALL* ndrange)(Buffer, cl_command_queue, const cl_ulong*, cl_kernel, cl_uint, const size_t*, const size_t*,
                                 const size_t*, cl_uint, const SyncPoint*, SyncPoint*, void**) = nullptr;
    cl_int(CL_API_CALL* enqueue)(cl_uint, cl_command_queue*, Buffer, cl_uint, const cl_event*, cl_event*) = nullptr;
    // why it is not used (empty when it is)
    std::string why_not;
    std::string version; // "0.9.0"
    bool usable() const { return why_not.empty(); }
};

// One device: context, a queue for weight uploads, programs.
class Context
{
public:
    // The device `index` over all platforms' GPU/CPU/accelerator devices, or
    // nullptr (logged) when there is none. Created once and kept.
    static Context* get(int index);
    static int device_count();

    cl_context context = nullptr;
    cl_device_id device = nullptr;
    cl_command_queue upload_queue = nullptr; // guarded by mutex
    std::mutex mutex;
    std::string device_name;
    std::string driver_version;
    bool has_fp16 = false;
    size_t max_work_group = 1;
    size_t image_max_w = 0, image_max_h = 0;
    int index = 0;
    cl_platform_id platform = nullptr;
    // replays submit one command buffer per segment where this is usable
    CommandBufferApi command_buffer;

    // kernel `name` of shaders/opencl/<program>.cl built with `options`; the
    // program is built once per (program, options) and its binary cached on
    // disk. Returns a new kernel object (the caller releases it) or nullptr.
    cl_kernel create_kernel(const char* program, const char* name, const std::string& options);

    // build (or load from the binary cache) `program` with the build options
    // of program_options(program, half) now, so that the first inference
    // does not pay for it (the layers with weights call it from
    // create_pipeline through cl::prepare_programs); programs nothing asks
    // for are never built
    int prepare_program(const char* program, bool half);

    // an image for weights (owned by the caller: release_image)
    int create_image(int width, int height, bool half, Image& out);
    void release_image(Image& img);

    // fp32 host data -> image of `layout_kernel` (a buffer->image kernel of
    // layout.cl) run on the upload queue; waits. args after (buffer, image)
    // are ints.
    int upload_with_kernel(const char* kernel, const float* data, size_t count, const Image& dst,
                           const std::vector<int>& int_args, const size_t* gws);

    // time (ms) of programs built vs loaded from the binary cache in this process
    double build_ms = 0;
    int programs_built = 0;
    int programs_from_cache = 0;

private:
    cl_program get_program(const char* program, const std::string& options);
    std::map<std::string, cl_program> programs_;
};

// Whether the kernels of a session with `opt` compute in half: the Option
// asks for it (use_fp16_arithmetic) and the device reports cl_khr_fp16.
// Otherwise float arithmetic on float or half images (MACE's fp16_fp32).
bool half_arithmetic(const Context* ctx, const Option& opt);

// Build options of `program`: "-DKITE_HALF" when `half` and the program is
// written with the FLOAT/RDH macros of common.h.cl (conv, winograd,
// eltwise, pooling); empty otherwise (the others always compute in float).
std::string program_options(const char* program, bool half);

// Sets kernel arguments in order: cl_mem, int, float, Image.
class KernelArgs
{
public:
    explicit KernelArgs(cl_kernel k) : k_(k) {}
    KernelArgs& mem(cl_mem m);
    KernelArgs& img(const Image& i) { return mem(i.mem); }
    KernelArgs& i(int v);
    KernelArgs& f(float v);
    int error() const { return err_; }

private:
    cl_kernel k_;
    cl_uint n_ = 0;
    int err_ = 0;
};

// One Extractor's work on one device: an in-order queue, the kernels it
// created, its image pool. Nothing waits on the host but a download (its
// blocking read) and finish(). In recording mode (GpuSession) every launch
// is kept with its arguments and global/local sizes, and each upload and
// download keeps its buffer: a replayed segment is the same launches
// enqueued again in order, then one wait.
class Session : public GpuSession
{
public:
    explicit Session(Context* ctx, const Option& opt);
    ~Session() override;

    int upload(const Mat& m, GpuBlobPtr& out, const Layer* consumer, const Option& opt) override;
    int download(const GpuBlobPtr& g, Mat& m, const Option& opt) override;
    int finish() override;

    bool start_recording() override;
    void stop_recording() override { rec_ = false; }
    int upload_slots() const override { return (int)ups_.size(); }
    int download_slots() const override { return (int)downs_.size(); }
    int segments() const override { return (int)segs_.size(); }
    bool pending() const override { return rec_ && !open_.empty(); }
    int replay_upload(int slot, const Mat& m, const Option& opt) override;
    int replay_segment(int segment) override;
    int replay_download(int slot, Mat& m, const Option& opt) override;
    // replayed segments that ran as one command buffer (cl_khr_command_buffer)
    long long command_buffer_replays() const { return cbuf_replays_; }
    // recording mode on or off for a while (constants a layer uploads and
    // keeps are not uploaded again at each replay); returns the old mode
    bool swap_recording(bool on)
    {
        const bool was = rec_;
        rec_ = on;
        return was;
    }
    // blobs made while this is set get images of their own instead of the
    // pool's (constants a layer keeps: an image the pool handed out had
    // been an activation that recorded launches write again at a replay)
    bool own_images = false;

    // a kernel of `program` built with program_options(program, half_arith)
    // (kept for the session's life; do not release)
    cl_kernel kernel(const char* program, const char* name);
    // enqueue over a 1..3-D global size; the local size comes from the tuner
    // (per kernel and global size) and launches are split along the last
    // dimension when a kernel time limit is set
    // fixed_lws: the local size the kernel needs (work-group reductions): no tuning, no split
    int dispatch(cl_kernel k, const char* name, int dims, const size_t* gws, const size_t* fixed_lws = nullptr);

    // Put off the launch `run` that writes out's image until a launch reads
    // that image (its kernel arguments name it) or the next download: then
    // it runs first, in order. It never runs when out goes away before
    // (its readers read through it: ClBlob::perm_src, act_src). run must
    // keep what it reads alive.
    void defer(ClBlob& out, std::function<int()> run);
    // run b's put-off launch now if it has one
    int settle(const ClBlob* b);
    // an activation layer on `in`: where in's launch is put off and can
    // apply it (ClBlob::with_activation), that launch with the activation
    // into a new blob `out` (0), else 1 (the caller runs the activation)
    int activation_of_deferred(const GpuBlobPtr& in, GpuBlobPtr& out, int act, float p0, float p1);
    // put off `run(0, 0, 0, out's image)`, with run as out's with_activation
    void defer_elementwise(ClBlob& out, std::function<int(int, float, float, const Image&)> run);
    // out = a + b, where a or b is a put-off convolution that can add the
    // other (ClBlob::with_residual): that launch, put off as out's (0);
    // else 1 (the caller runs the sum). ca, cb >= 0: that side's first
    // ca (cb) channels, zeros past them (a channel Padding read through)
    int defer_residual_add(const ClBlobPtr& a, const ClBlobPtr& b, int ca, int cb, ClBlob& out);
    // an activation layer on `in` (after activation_of_deferred): put off
    // (ClBlob::act_src) where in's image is plain, 0; else 1 (the caller runs
    // it)
    int defer_activation(const GpuBlobPtr& in, GpuBlobPtr& out, int act, float p0, float p1);

    // a new activation blob shaped like `shape` (dims/w/h/d/c), stored as
    // half when the session uses fp16 storage; allow_fold: the caller's
    // kernels address folded images (cl_layout.h), so a blob whose natural
    // image is over the 2D image limit is folded instead of refused
    int create_blob(const Mat& shape, ClBlobPtr& out, bool force_float = false, bool allow_fold = false);
    // upload into a float image whatever the storage precision (index maps; may fold)
    int upload_float(const Mat& m, ClBlobPtr& out, const Option& opt);
    // a folded blob goes only to a layer whose driver addresses folded
    // images (cl_layout.h: folded_ok); others run on the CPU (defined in cl_layout.cpp)
    int convert_for_layer(GpuBlobPtr& g, const Layer* consumer, const Option& opt) override;

    Context* ctx;
    cl_command_queue queue = nullptr;
    bool half_storage = false;
    bool half_arith = false; // half_arithmetic(ctx, opt)
    std::shared_ptr<ImagePool> pool;

private:
    int upload_impl(const Mat& m, ClBlobPtr& out, bool force_float, const Option& opt, bool allow_fold);
    // a launch or buffer write as enqueued (recording mode)
    // A recorded launch keeps the session's shared kernel and the arguments
    // it had; at the segment's first replay it gets a kernel of its own
    // (from the same program, its arguments set once), so that a replay only
    // enqueues it and the first forward pays nothing for it.
    struct Op
    {
        cl_kernel kernel = nullptr; // nullptr: write upload slot `slot`'s host copy to its buffer
        const char* name = "";
        const char* owner = nullptr; // the layer type that launched it (launch counts)
        int slot = -1;
        std::vector<std::vector<unsigned char> > args; // until the kernel is its own
        bool own = false;
        cl_kernel src = nullptr; // the shared kernel it was recorded with
        cl_uint dims = 0;
        bool offset = false, local = false;
        size_t off[3] = {0, 0, 0}, g[3] = {0, 0, 0}, l[3] = {0, 0, 0};
    };
    struct UploadSlot
    {
        cl_mem buf = nullptr;
        Mat host;  // what the buffer is written from (fp32)
        cl_mem pin = nullptr; // KITE_OPENCL_PINNED_UPLOAD: the mapped CL_MEM_ALLOC_HOST_PTR buffer host lies in
        Mat shape; // the uploaded Mat's header
    };
    struct DownloadSlot
    {
        cl_mem buf = nullptr;
        Mat shape; // the device blob's
        bool int8 = false;
        int segment = -1;
    };
    // run the put-off launches that write an image k's arguments name
    int settle_for(cl_kernel k);
    // run one put-off launch (its launches counted for the layer that put it off)
    int run_deferred(Deferred& d);
    // the layer type a launch is counted for: the put-off launch running
    // now, else the layer whose forward_gpu runs
    const char* owner() const;
    const char* running_owner_ = nullptr;
    // KITE_OPENCL_LAUNCHES=1: launches per recorded forward by layer type
    // and kernel on stderr when the session ends
    void report_launches() const;
    long long unrecorded_launches_ = 0;
    // run every put-off launch still pending (a download: the end of a
    // recorded chapter)
    int settle_all();
    std::vector<std::shared_ptr<Deferred> > deferred_;
    int enqueue(const Op& op);
    int replay_ops(int segment);
    int build_command_buffer(int segment);
    void close_segment();
    // a kernel of its own for a recorded launch of `k` with `args`
    cl_kernel own_kernel(cl_kernel k, const std::vector<std::vector<unsigned char> >& args);
    // every launch of the segment with a kernel of its own
    int own_kernels(int segment);
    std::map<std::string, cl_kernel> kernels_;
    bool rec_ = false;
    std::vector<Op> open_;
    std::vector<std::vector<Op> > segs_;
    std::vector<cl_kernel> recorded_kernels_; // released with the session
    // per segment: its command buffer (built at its first replay), or null
    std::vector<CommandBufferApi::Buffer> cbufs_;
    std::vector<char> cbuf_failed_;
    std::vector<char> owned_; // per segment: its launches have their own kernels
    bool use_cbuf_ = false; // the device has a usable cl_khr_command_buffer and KITE_OPENCL_COMMAND_BUFFER is not 0
    // KITE_OPENCL_REPLAY_FLUSH=n: a replay without command buffer flushes
    // the queue after every n launches (0, the default: only the final wait)
    int flush_every_ = 0;
    // KITE_OPENCL_LWS=auto|XxY: launches the tuner left to the driver (NULL
    // local size) get an explicit one instead: X x Y in 2D (auto: 16x4),
    // X*Y in 1D, X x Y x 1 in 3D, each side at most the next power of two of
    // the global size; 0 (unset or "driver", the default): the driver picks
    size_t auto_lws_[2] = {0, 0};
    // KITE_OPENCL_REPLAY_KERNELS=shared: a replay without command buffer
    // enqueues each launch on the session's kernel, its arguments set again
    // before it, instead of a kernel of its own per launch (the default)
    bool shared_kernels_ = false;
    // KITE_OPENCL_PINNED_UPLOAD=1: a recorded upload's host copy lies in a
    // mapped CL_MEM_ALLOC_HOST_PTR buffer (pinned memory: the write can be
    // a DMA instead of a staged copy on the host)
    bool pinned_upload_ = false;
    // a Mat like m over a mapped pinned buffer (slot's pin), or empty
    Mat pinned_like(const Mat& m, UploadSlot& slot);
    double replay_upload_ms_ = 0; // of replay_host_ms_: the input writes
    // host time spent enqueueing replays (KITE_OPENCL_VERBOSE reports it)
    double replay_host_ms_ = 0, replay_cpu_ms_ = 0;
    long long replay_launches_ = 0, replays_ = 0, cbuf_replays_ = 0;
    std::vector<UploadSlot> ups_;
    std::vector<DownloadSlot> downs_;
};

// The backend (BACKEND_OPENCL)
GpuBackend* backend();

// whether the launch fusion switched by environment variable `name`
// (KITE_OPENCL_FUSE_*) is on: unset or anything but "0"
bool fusion_on(const char* name);
// a launch fusion that is off unless the variable is 1 (KITE_OPENCL_FUSE_DWPW)
bool fusion_opted_in(const char* name);

// launches recorded by every session of the process so far (a test
// compares a forward with a fusion on and off)
long long recorded_launch_count();

// b's put-off launch is still pending (so a reader may read through it)
inline bool pending(const ClBlob* b)
{
    return b && b->deferred && !b->deferred->settled;
}

} // namespace cl
} // namespace kite

#endif // KITE_GPU_OPENCL_CL_RUNTIME_H
