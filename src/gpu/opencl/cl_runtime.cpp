#include "../cpu_fallback.h"
#include "../gpu_int8.h"
#include "cl_runtime.h"
#include "cl_runtime_internal.h"

#include "../../layer.h"
#include "../../log.h"
#include "cl_layout.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace kite {
namespace cl {

// generated from shaders/opencl/*.cl (cmake/kite_opencl.cmake)
const char* embedded_program_source(const char* name);
const char* const* embedded_program_names();

// ---------------------------------------------------------------------------
// settings

static std::mutex g_settings_mutex;

static opencl::Settings from_environment()
{
    opencl::Settings s;
    const char* d = getenv("KITE_OPENCL_CACHE_DIR");
    if (d)
        s.binary_cache_dir = d;
    else
    {
        const char* xdg = getenv("XDG_CACHE_HOME");
        const char* home = getenv("HOME");
        if (xdg && *xdg)
            s.binary_cache_dir = std::string(xdg) + "/kite";
        else if (home && *home)
            s.binary_cache_dir = std::string(home) + "/.cache/kite";
    }
    const char* t = getenv("KITE_OPENCL_TUNE");
    s.tune = t && atoi(t) != 0;
    const char* f = getenv("KITE_OPENCL_TUNED_FILE");
    if (f)
        s.tuned_parameter_file = f;
    else if (!s.binary_cache_dir.empty())
        s.tuned_parameter_file = s.binary_cache_dir + "/opencl-tuned.txt";
    const char* l = getenv("KITE_OPENCL_KERNEL_TIME_LIMIT_MS");
    if (l)
        s.kernel_time_limit_ms = atof(l);
    const char* v = getenv("KITE_OPENCL_VERBOSE");
    s.verbose = v && atoi(v) != 0;
    return s;
}

static opencl::Settings& settings_locked()
{
    static opencl::Settings s = from_environment();
    return s;
}

// a copy of the settings in effect
opencl::Settings settings()
{
    std::lock_guard<std::mutex> lock(g_settings_mutex);
    return settings_locked();
}

static void make_dirs(const std::string& path)
{
    for (size_t p = 1; p <= path.size(); p++)
        if (p == path.size() || path[p] == '/')
            mkdir(path.substr(0, p).c_str(), 0755);
}

// CPU time of the calling thread (ms): host cost without the time the
// scheduler gave to others (PoCL's worker threads run the kernels meanwhile)
double thread_cpu_ms()
{
    timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull)
{
    for (unsigned char c : s)
    {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

// ---------------------------------------------------------------------------
// devices

struct DeviceEntry
{
    cl_platform_id platform;
    cl_device_id device;
};

static std::vector<DeviceEntry> list_devices()
{
    std::vector<DeviceEntry> out;
    const Api* a = api();
    if (!a)
        return out;
    cl_uint np = 0;
    if (a->clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0)
        return out;
    std::vector<cl_platform_id> ps(np);
    a->clGetPlatformIDs(np, ps.data(), nullptr);
    for (cl_platform_id p : ps)
    {
        cl_uint nd = 0;
        if (a->clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0)
            continue;
        std::vector<cl_device_id> ds(nd);
        a->clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
        for (cl_device_id d : ds)
        {
            cl_bool img = CL_FALSE;
            a->clGetDeviceInfo(d, CL_DEVICE_IMAGE_SUPPORT, sizeof(img), &img, nullptr);
            if (img)
                out.push_back({p, d});
        }
    }
    // index 0 is the first GPU whatever order the ICD loader lists platforms
    // in (a CPU runtime such as PoCL often comes first); GPUs, then
    // accelerators, then the rest, each in the loader's order
    auto rank = [a](const DeviceEntry& e) {
        cl_device_type t = 0;
        a->clGetDeviceInfo(e.device, CL_DEVICE_TYPE, sizeof(t), &t, nullptr);
        return (t & CL_DEVICE_TYPE_GPU) ? 0 : (t & CL_DEVICE_TYPE_ACCELERATOR) ? 1 : 2;
    };
    std::stable_sort(out.begin(), out.end(),
                     [&](const DeviceEntry& x, const DeviceEntry& y) { return rank(x) < rank(y); });
    return out;
}

static std::string device_string(cl_device_id d, cl_device_info what)
{
    size_t n = 0;
    api()->clGetDeviceInfo(d, what, 0, nullptr, &n);
    std::string s(n, '\0');
    api()->clGetDeviceInfo(d, what, n, &s[0], nullptr);
    while (!s.empty() && s.back() == '\0')
        s.pop_back();
    return s;
}

// what CL_DEVICE_EXTENSIONS_WITH_VERSION returns (OpenCL 3.0; the headers
// kite builds with may predate it)
struct NameVersion
{
    cl_uint version;
    char name[64];
};
static const cl_device_info kDeviceExtensionsWithVersion = 0x1060;
static const cl_device_info kCommandBufferRequiredQueueProperties = 0x12AA; // CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR

static bool has_extension(const std::string& list, const char* name)
{
    const size_t n = strlen(name);
    for (size_t p = list.find(name); p != std::string::npos; p = list.find(name, p + 1))
        if ((p == 0 || list[p - 1] == ' ') && (p + n == list.size() || list[p + n] == ' '))
            return true;
    return false;
}

// cl_khr_command_buffer where the device lists it in a version whose entry
// points kite declares (provisional 0.9.x)
static void load_command_buffer(Context* c)
{
    CommandBufferApi& cb = c->command_buffer;
    const Api* a = api();
    if (!has_extension(device_string(c->device, CL_DEVICE_EXTENSIONS), "cl_khr_command_buffer"))
    {
        cb.why_not = "the device has no cl_khr_command_buffer";
        return;
    }
    size_t n = 0;
    std::vector<NameVersion> exts;
    if (a->clGetDeviceInfo(c->device, kDeviceExtensionsWithVersion, 0, nullptr, &n) == CL_SUCCESS && n >= sizeof(NameVersion))
    {
        exts.resize(n / sizeof(NameVersion));
        if (a->clGetDeviceInfo(c->device, kDeviceExtensionsWithVersion, exts.size() * sizeof(NameVersion), exts.data(), nullptr) != CL_SUCCESS)
            exts.clear();
    }
    cl_uint version = 0;
    bool found = false;
    for (const NameVersion& e : exts)
        if (strncmp(e.name, "cl_khr_command_buffer", sizeof(e.name)) == 0)
        {
            version = e.version;
            found = true;
        }
    const unsigned major = version >> 22, minor = (version >> 12) & 0x3ff, patch = version & 0xfff;
    char vs[32];
    snprintf(vs, sizeof(vs), "%u.%u.%u", major, minor, patch);
    cb.version = found ? vs : "unknown";
    if (!found || major != 0 || minor != 9)
    {
        cb.why_not = "cl_khr_command_buffer version " + cb.version + " (kite knows 0.9.x)";
        return;
    }
    cl_command_queue_properties required = 0;
    if (a->clGetDeviceInfo(c->device, kCommandBufferRequiredQueueProperties, sizeof(required), &required, nullptr) == CL_SUCCESS && required != 0)
    {
        cb.why_not = "cl_khr_command_buffer needs queue properties kite does not set";
        return;
    }
    cl_platform_id p = c->platform;
    cb.create = reinterpret_cast<decltype(cb.create)>(a->clGetExtensionFunctionAddressForPlatform(p, "clCreateCommandBufferKHR"));
    cb.finalize = reinterpret_cast<decltype(cb.finalize)>(a->clGetExtensionFunctionAddressForPlatform(p, "clFinalizeCommandBufferKHR"));
    cb.release = reinterpret_cast<decltype(cb.release)>(a->clGetExtensionFunctionAddressForPlatform(p, "clReleaseCommandBufferKHR"));
    cb.ndrange = reinterpret_cast<decltype(cb.ndrange)>(a->clGetExtensionFunctionAddressForPlatform(p, "clCommandNDRangeKernelKHR"));
    cb.enqueue = reinterpret_cast<decltype(cb.enqueue)>(a->clGetExtensionFunctionAddressForPlatform(p, "clEnqueueCommandBufferKHR"));
    if (!cb.create || !cb.finalize || !cb.release || !cb.ndrange || !cb.enqueue)
        cb.why_not = "the platform does not give cl_khr_command_buffer's entry points";
}

int Context::device_count()
{
    static int n = (int)list_devices().size();
    return n;
}

Context* Context::get(int index)
{
    static std::mutex m;
    static std::map<int, Context*> made;
    static std::map<int, bool> failed;
    std::lock_guard<std::mutex> lock(m);
    auto it = made.find(index);
    if (it != made.end())
        return it->second;
    if (failed[index])
        return nullptr;
    failed[index] = true;
    std::vector<DeviceEntry> devs = list_devices();
    if (index < 0 || index >= (int)devs.size())
    {
        if (api())
            KITE_LOGW("OpenCL: no device %d with image support (%d found)", index, (int)devs.size());
        return nullptr;
    }
    const Api* a = api();
    Context* c = new Context;
    c->index = index;
    c->device = devs[index].device;
    c->platform = devs[index].platform;
    cl_int err = 0;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)devs[index].platform, 0};
    c->context = a->clCreateContext(props, 1, &c->device, nullptr, nullptr, &err);
    if (!c->context)
    {
        KITE_LOGW("OpenCL: clCreateContext failed (%s)", error_string(err));
        delete c;
        return nullptr;
    }
    c->upload_queue = a->clCreateCommandQueue(c->context, c->device, 0, &err);
    if (!c->upload_queue)
    {
        KITE_LOGW("OpenCL: clCreateCommandQueue failed (%s)", error_string(err));
        a->clReleaseContext(c->context);
        delete c;
        return nullptr;
    }
    c->device_name = device_string(c->device, CL_DEVICE_NAME);
    c->driver_version = device_string(c->device, CL_DRIVER_VERSION);
    c->has_fp16 = device_string(c->device, CL_DEVICE_EXTENSIONS).find("cl_khr_fp16") != std::string::npos;
    a->clGetDeviceInfo(c->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t), &c->max_work_group, nullptr);
    a->clGetDeviceInfo(c->device, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(size_t), &c->image_max_w, nullptr);
    a->clGetDeviceInfo(c->device, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof(size_t), &c->image_max_h, nullptr);
    load_command_buffer(c);
    if (settings().verbose)
        fprintf(stderr, "kite: OpenCL device %d: %s | driver %s\n", index, c->device_name.c_str(), c->driver_version.c_str());
    made[index] = c; // kept for the process: drivers dislike teardown at exit
    failed[index] = false;
    return c;
}

// ---------------------------------------------------------------------------
// programs

static bool read_file(const std::string& path, std::vector<unsigned char>& out)
{
    FILE* f = fopen(path.c_str(), "rb");
    if (!f)
        return false;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    bool ok = n > 0;
    if (ok)
    {
        out.resize((size_t)n);
        ok = fread(out.data(), 1, (size_t)n, f) == (size_t)n;
    }
    fclose(f);
    return ok;
}

static void write_file_atomic(const std::string& path, const void* data, size_t n)
{
    std::string tmp = path + ".tmp" + std::to_string((long)getpid());
    FILE* f = fopen(tmp.c_str(), "wb");
    if (!f)
        return;
    bool ok = fwrite(data, 1, n, f) == n;
    ok = fclose(f) == 0 && ok;
    if (ok)
        rename(tmp.c_str(), path.c_str());
    else
        remove(tmp.c_str());
}

cl_program Context::get_program(const char* program, const std::string& options)
{
    std::string key = std::string(program) + "|" + options;
    auto it = programs_.find(key);
    if (it != programs_.end())
        return it->second;
    const char* src = embedded_program_source(program);
    if (!src)
    {
        KITE_LOGE("OpenCL: no program '%s' is embedded", program);
        return nullptr;
    }
    const Api* a = api();
    // int8.cl emulates the CPU's int8 arithmetic bit for bit: no mad
    std::string opts = (strcmp(program, "int8") == 0 ? std::string() : std::string("-cl-mad-enable ")) + options;
    auto t0 = std::chrono::steady_clock::now();
    const opencl::Settings st = settings();
    const std::string& dir = st.binary_cache_dir;
    const bool verbose = st.verbose;
    std::string path;
    if (!dir.empty())
    {
        uint64_t h = fnv1a(device_name + "|" + driver_version + "|" + opts + "|" + src);
        char hex[32];
        snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)h);
        path = dir + "/opencl-" + program + "-" + hex + ".bin";
    }
    cl_program p = nullptr;
    cl_int err = 0;
    std::vector<unsigned char> bin;
    if (!path.empty() && read_file(path, bin))
    {
        const unsigned char* bp = bin.data();
        size_t bn = bin.size();
        cl_int status = 0;
        p = a->clCreateProgramWithBinary(context, 1, &device, &bn, &bp, &status, &err);
        if (p && (status != CL_SUCCESS || a->clBuildProgram(p, 1, &device, opts.c_str(), nullptr, nullptr) != CL_SUCCESS))
        {
            a->clReleaseProgram(p);
            p = nullptr;
        }
        if (p)
            programs_from_cache++;
    }
    const bool from_cache = p != nullptr;
    if (!p)
    {
        p = a->clCreateProgramWithSource(context, 1, &src, nullptr, &err);
        if (!p)
        {
            KITE_LOGE("OpenCL: clCreateProgramWithSource(%s) failed (%s)", program, error_string(err));
            return nullptr;
        }
        err = a->clBuildProgram(p, 1, &device, opts.c_str(), nullptr, nullptr);
        if (err != CL_SUCCESS)
        {
            size_t n = 0;
            a->clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
            std::string log(n, '\0');
            a->clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, n, &log[0], nullptr);
            KITE_LOGE("OpenCL: building program '%s' (%s) failed (%s):\n%s", program, options.c_str(), error_string(err), log.c_str());
            a->clReleaseProgram(p);
            return nullptr;
        }
        programs_built++;
        size_t bn = 0;
        if (!path.empty() && a->clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(bn), &bn, nullptr) == CL_SUCCESS && bn > 0)
        {
            bin.resize(bn);
            unsigned char* bp = bin.data();
            if (a->clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bp), &bp, nullptr) == CL_SUCCESS)
            {
                make_dirs(dir);
                write_file_atomic(path, bin.data(), bn);
            }
        }
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    build_ms += ms;
    if (verbose)
        fprintf(stderr, "kite: OpenCL program %s %s in %.1f ms\n", program, from_cache ? "loaded from the binary cache" : "built", ms);
    programs_[key] = p;
    return p;
}

int Context::prepare_program(const char* program, bool half)
{
    std::lock_guard<std::mutex> lock(mutex);
    return get_program(program, program_options(program, half)) ? 0 : -1;
}

bool half_arithmetic(const Context* ctx, const Option& opt)
{
    return opt.use_fp16_arithmetic && ctx && ctx->has_fp16;
}

// the programs written with common.h.cl's FLOAT/RDH macros
static const char* const half_arithmetic_programs[] = {"conv", "winograd", "eltwise", "pooling"};

std::string program_options(const char* program, bool half)
{
    if (!half)
        return std::string();
    for (const char* p : half_arithmetic_programs)
        if (strcmp(p, program) == 0)
            return "-DKITE_HALF";
    return std::string();
}

cl_kernel Context::create_kernel(const char* program, const char* name, const std::string& options)
{
    std::lock_guard<std::mutex> lock(mutex);
    cl_program p = get_program(program, options);
    if (!p)
        return nullptr;
    cl_int err = 0;
    cl_kernel k = api()->clCreateKernel(p, name, &err);
    if (!k)
        KITE_LOGE("OpenCL: kernel '%s' of program '%s': %s", name, program, error_string(err));
    return k;
}

// ---------------------------------------------------------------------------
// images

int Context::create_image(int width, int height, bool half, Image& out)
{
    if (width <= 0 || height <= 0 || (size_t)width > image_max_w || (size_t)height > image_max_h)
    {
        KITE_LOGE("OpenCL: image %d x %d exceeds the device's 2D image limit %d x %d", width, height, (int)image_max_w, (int)image_max_h);
        return -1;
    }
    cl_image_format fmt = {CL_RGBA, (cl_channel_type)(half ? CL_HALF_FLOAT : CL_FLOAT)};
    cl_image_desc desc;
    memset(&desc, 0, sizeof(desc));
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = (size_t)width;
    desc.image_height = (size_t)height;
    cl_int err = 0;
    // KITE_OPENCL_IMAGE_NO_HOST=1: the images are made CL_MEM_HOST_NO_ACCESS
    // too (the host never maps, reads or writes an image: uploads and
    // downloads go through buffers and kernels), a hint a driver may place
    // or track them better with
    static const bool no_host = [] {
        const char* e = getenv("KITE_OPENCL_IMAGE_NO_HOST");
        return e && atoi(e) != 0;
    }();
    const cl_mem_flags flags = CL_MEM_READ_WRITE | (no_host ? CL_MEM_HOST_NO_ACCESS : 0);
    out.mem = api()->clCreateImage(context, flags, &fmt, &desc, nullptr, &err);
    if (!out.mem)
    {
        KITE_LOGE("OpenCL: clCreateImage %d x %d %s failed (%s)", width, height, half ? "half" : "float", error_string(err));
        return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY ? -100 : -1;
    }
    out.width = width;
    out.height = height;
    out.half = half;
    return 0;
}

void Context::release_image(Image& img)
{
    if (img.mem)
        api()->clReleaseMemObject(img.mem);
    img = Image();
}

int Context::upload_with_kernel(const char* name, const float* data, size_t count, const Image& dst,
                                const std::vector<int>& int_args, const size_t* gws)
{
    cl_kernel k = create_kernel("layout", name, "");
    if (!k)
        return -1;
    const Api* a = api();
    cl_int err = 0;
    cl_mem buf = a->clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, std::max<size_t>(count, 1) * sizeof(float), (void*)data, &err);
    if (!buf)
    {
        a->clReleaseKernel(k);
        KITE_LOGE("OpenCL: clCreateBuffer of %zu floats failed (%s)", count, error_string(err));
        return -100;
    }
    KernelArgs args(k);
    args.mem(buf).img(dst);
    for (int v : int_args)
        args.i(v);
    {
        std::lock_guard<std::mutex> lock(mutex);
        err = args.error();
        if (err == 0)
            err = a->clEnqueueNDRangeKernel(upload_queue, k, 2, nullptr, gws, nullptr, 0, nullptr, nullptr);
        if (err == 0)
            err = a->clFinish(upload_queue);
    }
    a->clReleaseMemObject(buf);
    a->clReleaseKernel(k);
    if (err != 0)
    {
        KITE_LOGE("OpenCL: %s failed (%s)", name, error_string(err));
        return -1;
    }
    return 0;
}

ImagePool::~ImagePool()
{
    for (auto& kv : free_)
        api()->clReleaseMemObject(kv.second.mem);
}

static long long pool_key(int w, int h, bool half)
{
    return ((long long)w << 33) | ((long long)h << 1) | (half ? 1 : 0);
}

int ImagePool::acquire(int width, int height, bool half, Image& out)
{
    // an activation the channel-major image cannot hold: the Extractor runs
    // the layer on the CPU instead (no error)
    if (width > 0 && height > 0 && ((size_t)width > ctx_->image_max_w || (size_t)height > ctx_->image_max_h))
        return KITE_GPU_CANNOT_HOLD;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = free_.find(pool_key(width, height, half));
        if (it != free_.end())
        {
            out = it->second;
            free_.erase(it);
            return 0;
        }
    }
    return ctx_->create_image(width, height, half, out);
}

void ImagePool::release(const Image& img)
{
    if (!img.mem)
        return;
    std::lock_guard<std::mutex> lock(mutex_);
    free_.insert(std::make_pair(pool_key(img.width, img.height, img.half), img));
}

ClBlob::~ClBlob()
{
    if (deferred)
        deferred->settled = true; // nobody read it: never run
    if (pool)
        pool->release(image);
    else if (image.mem)
        api()->clReleaseMemObject(image.mem);
}

// ---------------------------------------------------------------------------
// kernel arguments

// The arguments last set on each kernel, so that a recording session can
// keep them with a launch (a session's kernels are its own; the table is
// shared by all, hence the lock).
// (never destroyed: a session that dies at exit after this file's statics
// still forgets its kernels here)
static std::mutex g_args_mutex;
typedef std::map<cl_kernel, std::vector<std::vector<unsigned char> > > ArgTable;
static ArgTable& g_args = *new ArgTable;

void shadow_arg(cl_kernel k, cl_uint i, size_t n, const void* p)
{
    std::lock_guard<std::mutex> lock(g_args_mutex);
    std::vector<std::vector<unsigned char> >& v = g_args[k];
    if (i == 0)
        v.clear(); // KernelArgs sets every argument from the first (a new kernel may reuse a released one's handle)
    if (v.size() <= i)
        v.resize(i + 1);
    v[i].assign((const unsigned char*)p, (const unsigned char*)p + n);
}

std::vector<std::vector<unsigned char> > shadowed_args(cl_kernel k)
{
    std::lock_guard<std::mutex> lock(g_args_mutex);
    auto it = g_args.find(k);
    return it == g_args.end() ? std::vector<std::vector<unsigned char> >() : it->second;
}

static void forget_args(cl_kernel k)
{
    std::lock_guard<std::mutex> lock(g_args_mutex);
    g_args.erase(k);
}

KernelArgs& KernelArgs::mem(cl_mem m)
{
    shadow_arg(k_, n_, sizeof(cl_mem), &m);
    cl_int e = api()->clSetKernelArg(k_, n_++, sizeof(cl_mem), &m);
    if (e != CL_SUCCESS && err_ == 0)
        err_ = e;
    return *this;
}

KernelArgs& KernelArgs::i(int v)
{
    shadow_arg(k_, n_, sizeof(int), &v);
    cl_int e = api()->clSetKernelArg(k_, n_++, sizeof(int), &v);
    if (e != CL_SUCCESS && err_ == 0)
        err_ = e;
    return *this;
}

KernelArgs& KernelArgs::f(float v)
{
    shadow_arg(k_, n_, sizeof(float), &v);
    cl_int e = api()->clSetKernelArg(k_, n_++, sizeof(float), &v);
    if (e != CL_SUCCESS && err_ == 0)
        err_ = e;
    return *this;
}

// ---------------------------------------------------------------------------
// tuner: local sizes per (kernel, global size), kept in a text file

struct Tuned
{
    size_t lws[3];
    double ms; // time of one launch with that local size (for splitting)
};

class Tuner
{
public:
    static Tuner& get()
    {
        static Tuner t;
        return t;
    }
    bool lookup(const std::string& key, Tuned& out)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        load();
        auto it = table_.find(key);
        if (it == table_.end())
            return false;
        out = it->second;
        return true;
    }
    void store(const std::string& key, const Tuned& t, bool persist)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        load();
        table_[key] = t;
        if (persist)
            save();
    }

private:
    // (re)reads the table when the settings name another file
    void load()
    {
        const std::string file = settings().tuned_parameter_file;
        if (loaded_ && file == file_)
            return;
        loaded_ = true;
        file_ = file;
        table_.clear();
        if (file_.empty())
            return;
        FILE* f = fopen(file_.c_str(), "r");
        if (!f)
            return;
        char key[512];
        Tuned t;
        while (fscanf(f, "%511s %zu %zu %zu %lf", key, &t.lws[0], &t.lws[1], &t.lws[2], &t.ms) == 5)
            table_[key] = t;
        fclose(f);
    }
    void save()
    {
        if (file_.empty())
            return;
        size_t slash = file_.rfind('/');
        if (slash != std::string::npos)
            make_dirs(file_.substr(0, slash));
        std::string text;
        char line[640];
        for (auto& kv : table_)
        {
            snprintf(line, sizeof(line), "%s %zu %zu %zu %.4f\n", kv.first.c_str(), kv.second.lws[0], kv.second.lws[1], kv.second.lws[2], kv.second.ms);
            text += line;
        }
        write_file_atomic(file_, text.data(), text.size());
    }
    std::mutex mutex_;
    bool loaded_ = false;
    std::string file_;
    std::map<std::string, Tuned> table_;
};

// ---------------------------------------------------------------------------
// session

Session::Session(Context* c, const Option& opt)
    : ctx(c)
{
    cl_int err = 0;
    queue = api()->clCreateCommandQueue(ctx->context, ctx->device, 0, &err);
    if (!queue)
        KITE_LOGE("OpenCL: clCreateCommandQueue failed (%s)", error_string(err));
    half_storage = opt.use_fp16_storage;
    half_arith = half_arithmetic(ctx, opt);
    if (settings().verbose)
    {
        static std::once_flag once;
        const bool asked = opt.use_fp16_arithmetic, has = ctx->has_fp16;
        std::call_once(once, [&] {
            fprintf(stderr, "kite: OpenCL %s arithmetic%s\n", half_arith ? "half" : "float",
                    asked && !has ? " (fp16 arithmetic asked for, but the device has no cl_khr_fp16)" : "");
        });
    }
    pool = std::make_shared<ImagePool>(ctx);
    const char* cbe = getenv("KITE_OPENCL_COMMAND_BUFFER");
    use_cbuf_ = ctx->command_buffer.usable() && !(cbe && cbe[0] == '0');
    const char* fe = getenv("KITE_OPENCL_REPLAY_FLUSH");
    flush_every_ = fe ? std::max(0, atoi(fe)) : 0;
    const char* le = getenv("KITE_OPENCL_LWS");
    if (le && *le && strcmp(le, "driver") != 0)
    {
        unsigned x = 0, y = 0;
        if (strcmp(le, "auto") == 0)
            x = 16, y = 4;
        else if (sscanf(le, "%ux%u", &x, &y) != 2 || x == 0 || y == 0 || (size_t)x * y > ctx->max_work_group)
        {
            KITE_LOGW("OpenCL: KITE_OPENCL_LWS=%s is not driver, auto or XxY within the device's work-group size %zu; the driver picks",
                      le, ctx->max_work_group);
            x = y = 0;
        }
        auto_lws_[0] = x;
        auto_lws_[1] = y;
    }
    const char* pe = getenv("KITE_OPENCL_PINNED_UPLOAD");
    // on unless KITE_OPENCL_PINNED_UPLOAD=0: on the H200 a 1.49 MB input
    // write from pinned memory took 2.9 us of host time and 36 us to
    // complete, from malloc'ed memory 10.1 and 120 (opencl_launch_cost)
    pinned_upload_ = !(pe && atoi(pe) == 0);
    const char* ke = getenv("KITE_OPENCL_REPLAY_KERNELS");
    if (ke && *ke && strcmp(ke, "own") != 0)
    {
        if (strcmp(ke, "shared") == 0)
            shared_kernels_ = true;
        else
            KITE_LOGW("OpenCL: KITE_OPENCL_REPLAY_KERNELS=%s is not own or shared; a kernel of its own per launch", ke);
    }
}


Session::~Session()
{
    if (queue)
    {
        for (UploadSlot& u : ups_)
            if (u.pin)
                api()->clEnqueueUnmapMemObject(queue, u.pin, u.host.data, 0, nullptr, nullptr);
        api()->clFinish(queue);
        api()->clReleaseCommandQueue(queue);
    }
    for (UploadSlot& u : ups_)
    {
        u.host.release();
        if (u.pin)
            api()->clReleaseMemObject(u.pin);
        api()->clReleaseMemObject(u.buf);
    }
    for (DownloadSlot& d : downs_)
        api()->clReleaseMemObject(d.buf);
    for (auto& kv : kernels_)
    {
        forget_args(kv.second);
        api()->clReleaseKernel(kv.second);
    }
    for (CommandBufferApi::Buffer b : cbufs_)
        if (b)
            ctx->command_buffer.release(b);
    for (cl_kernel k : recorded_kernels_)
        api()->clReleaseKernel(k);
    const char* le = getenv("KITE_OPENCL_LAUNCHES");
    if (le && atoi(le) != 0)
        report_launches();
    if (replays_ > 0 && settings().verbose)
    {
        const double per = replay_launches_ ? 1000.0 / (double)replay_launches_ : 0.0;
        fprintf(stderr, "kite: OpenCL replays: %lld segments, %lld launches; enqueueing took %.3f ms (%.2f us per launch), %.3f ms of this thread's CPU time (%.2f us per launch); the input writes %.3f ms of it%s\n",
                replays_, replay_launches_, replay_host_ms_, replay_host_ms_ * per, replay_cpu_ms_, replay_cpu_ms_ * per, replay_upload_ms_,
                pinned_upload_ ? " (pinned)" : "");
    }
}

cl_kernel Session::kernel(const char* program, const char* name)
{
    const std::string options = program_options(program, half_arith);
    std::string key = std::string(program) + "|" + name + "|" + options;
    auto it = kernels_.find(key);
    if (it != kernels_.end())
        return it->second;
    cl_kernel k = ctx->create_kernel(program, name, options);
    if (k)
        kernels_[key] = k;
    return k;
}

static size_t round_up(size_t x, size_t m)
{
    return (x + m - 1) / m * m;
}

static size_t pow2_ceil(size_t x)
{
    size_t p = 1;
    while (p < x)
        p *= 2;
    return p;
}

static double launch_ms(cl_command_queue q, cl_kernel k, int dims, const size_t* gws, const size_t* lws, int reps)
{
    const Api* a = api();
    size_t g[3];
    for (int d = 0; d < dims; d++)
        g[d] = lws ? round_up(gws[d], lws[d]) : gws[d];
    // one untimed launch first: some drivers (PoCL) compile a kernel for each
    // local size at its first launch
    if (a->clEnqueueNDRangeKernel(q, k, (cl_uint)dims, nullptr, g, lws, 0, nullptr, nullptr) != CL_SUCCESS)
        return 1e30;
    a->clFinish(q);
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; r++)
        if (a->clEnqueueNDRangeKernel(q, k, (cl_uint)dims, nullptr, g, lws, 0, nullptr, nullptr) != CL_SUCCESS)
            return 1e30;
    a->clFinish(q);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
}

static std::atomic<long long> g_recorded_launches(0);

long long recorded_launch_count()
{
    return g_recorded_launches.load();
}

int Session::dispatch(cl_kernel k, const char* name, int dims, const size_t* gws, const size_t* fixed_lws)
{
    const Api* a = api();
    if (!deferred_.empty())
    {
        int ret = settle_for(k);
        if (ret != 0)
            return ret;
    }
    for (int d = 0; d < dims; d++)
        if (gws[d] == 0)
            return 0;
    char key[256];
    // half-arithmetic kernels are tuned apart from the float ones
    snprintf(key, sizeof(key), "%s%s:%zu,%zu,%zu@%s", name, half_arith ? "+half" : "", gws[0], dims > 1 ? gws[1] : 1,
             dims > 2 ? gws[2] : 1, ctx->device_name.c_str());
    for (char* p = key; *p; p++)
        if (*p == ' ')
            *p = '_';
    const opencl::Settings st = settings();
    const bool tune = st.tune, verbose = st.verbose;
    const double limit = st.kernel_time_limit_ms;
    bool measured = false;
    Tuned t;
    bool known = false;
    if (fixed_lws)
    {
        for (int d = 0; d < 3; d++)
            t.lws[d] = d < dims ? fixed_lws[d] : 1;
        t.ms = 0; // never split
        known = true;
    }
    else
        known = Tuner::get().lookup(key, t);
    if (!known && (tune || limit > 0))
    {
        // candidates: powers of two whose product fits the kernel's limit
        size_t kmax = ctx->max_work_group;
        a->clGetKernelWorkGroupInfo(k, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(size_t), &kmax, nullptr);
        double best = launch_ms(queue, k, dims, gws, nullptr, 1);
        t.lws[0] = t.lws[1] = t.lws[2] = 0;
        t.ms = best;
        if (tune)
        {
            // work groups of 16, 64 or 256 items (fewer where the work is
            // smaller) in every power-of-two shape that fits the global size:
            // about a dozen launches per kernel and shape
            const size_t gx = pow2_ceil(gws[0]), gy = dims > 1 ? pow2_ceil(gws[1]) : 1;
            const size_t all = std::min(gx * gy, (size_t)16);
            for (size_t x = 1; x <= gx; x *= 2)
                for (size_t y = 1; y <= gy; y *= 2)
                {
                    const size_t n = x * y, z = 1;
                    if (n > kmax || !(n == all || n == 64 || n == 256))
                        continue;
                    size_t l[3] = {x, y, z};
                    double ms = launch_ms(queue, k, dims, gws, l, 2);
                    if (ms < best)
                    {
                        best = ms;
                        t.lws[0] = x;
                        t.lws[1] = y;
                        t.lws[2] = z;
                        t.ms = ms;
                    }
                }
        }
        Tuner::get().store(key, t, tune);
        known = true;
        measured = true;
        if (verbose && tune)
            fprintf(stderr, "kite: OpenCL tuned %s: local size %zu x %zu (%.3f ms)\n", key, t.lws[0], t.lws[1], t.ms);
    }
    size_t* lws = nullptr;
    size_t l[3] = {1, 1, 1};
    if (known && t.lws[0] > 0)
    {
        for (int d = 0; d < dims; d++)
            l[d] = t.lws[d];
        lws = l;
    }
    else if (auto_lws_[0] > 0)
    {
        // KITE_OPENCL_LWS: an explicit local size where the driver would
        // pick one (the global size is rounded up to it: every kernel
        // launched without a fixed local size bounds-checks its items, as
        // the tuner's sizes need)
        size_t want[3] = {auto_lws_[0], auto_lws_[1], 1};
        if (dims == 1)
            want[0] = auto_lws_[0] * auto_lws_[1];
        size_t kmax = ctx->max_work_group;
        a->clGetKernelWorkGroupInfo(k, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(size_t), &kmax, nullptr);
        size_t n = 1;
        for (int d = 0; d < dims; d++)
        {
            l[d] = std::min(want[d], pow2_ceil(gws[d]));
            n *= l[d];
        }
        // halve the largest side until the kernel can take the group
        while (n > kmax && n > 1)
        {
            int big = 0;
            for (int d = 1; d < dims; d++)
                if (l[d] > l[big])
                    big = d;
            l[big] /= 2;
            n /= 2;
        }
        lws = l;
    }
    size_t g[3] = {gws[0], dims > 1 ? gws[1] : 1, dims > 2 ? gws[2] : 1};
    for (int d = 0; d < dims; d++)
        g[d] = lws ? round_up(g[d], l[d]) : g[d];
    // split along the last dimension so that no launch exceeds the limit
    int last = dims - 1;
    size_t chunks = 1;
    if (limit > 0 && known && t.ms > limit)
        chunks = (size_t)(t.ms / limit) + 1;
    size_t unit = lws ? l[last] : 1;
    size_t blocks = g[last] / unit;
    if (chunks > blocks)
        chunks = blocks;
    size_t per = (blocks + chunks - 1) / chunks * unit;
    if (verbose && measured && chunks > 1)
        fprintf(stderr, "kite: OpenCL %s split into %zu launches (one launch %.3f ms, limit %.3f ms)\n", key,
                (g[last] + per - 1) / per, t.ms, limit);
    for (size_t start = 0; start < g[last]; start += per)
    {
        size_t off[3] = {0, 0, 0};
        size_t gg[3] = {g[0], g[1], g[2]};
        off[last] = start;
        gg[last] = std::min(per, g[last] - start);
        cl_int err = a->clEnqueueNDRangeKernel(queue, k, (cl_uint)dims, chunks > 1 ? off : nullptr, gg, lws, 0, nullptr, nullptr);
        if (err != CL_SUCCESS)
        {
            KITE_LOGE("OpenCL: launching %s failed (%s)", name, error_string(err));
            return -1;
        }
        if (rec_)
        {
            Op op;
            op.kernel = k;
            op.args = shadowed_args(k);
            op.name = name;
            op.owner = owner();
            g_recorded_launches++;
            op.dims = (cl_uint)dims;
            op.offset = chunks > 1;
            op.local = lws != nullptr;
            for (int d = 0; d < 3; d++)
            {
                op.off[d] = off[d];
                op.g[d] = gg[d];
                op.l[d] = l[d];
            }
            open_.push_back(op);
        }
        else
            unrecorded_launches_++;
        if (chunks > 1)
            a->clFlush(queue);
    }
    return 0;
}

int Session::finish()
{
    syncs++;
    if (rec_ && !open_.empty())
        close_segment();
    cl_int err = api()->clFinish(queue);
    if (err != CL_SUCCESS)
    {
        KITE_LOGE("OpenCL: clFinish failed (%s)", error_string(err));
        return -1;
    }
    return 0;
}

int Session::create_blob(const Mat& shape, ClBlobPtr& out, bool force_float, bool allow_fold)
{
    ClBlobPtr b = std::make_shared<ClBlob>();
    b->backend = BACKEND_OPENCL;
    Mat s;
    s.dims = shape.dims;
    s.w = shape.w;
    s.h = shape.dims >= 2 ? shape.h : 1;
    s.d = shape.dims == 4 ? shape.d : 1;
    s.c = shape.dims >= 3 ? shape.c : 1;
    s.elempack = 1;
    s.elemsize = 4;
    b->shape = s;
    mat_chw(s, b->C, b->H, b->W);
    b->pool = own_images ? nullptr : pool;
    // the natural image, or folded where allowed (cl_layout.h); too large: KITE_GPU_CANNOT_HOLD
    int iw = 0, ih = 0;
    if (activation_image_size(ctx, b->C, b->H, b->W, allow_fold, iw, ih) != 0)
        return KITE_GPU_CANNOT_HOLD;
    int ret = own_images ? ctx->create_image(iw, ih, half_storage && !force_float, b->image)
                         : pool->acquire(iw, ih, half_storage && !force_float, b->image);
    if (ret != 0)
        return ret;
    out = b;
    return 0;
}

// element group stride (floats) of a Mat for mat_to_image / image_to_mat
static int mat_group_stride(const Mat& m)
{
    if (m.dims == 1)
        return m.elempack;
    if (m.dims == 2)
        return m.w * m.elempack;
    return (int)m.cstep * m.elempack;
}

int Session::upload(const Mat& m0, GpuBlobPtr& out, const Layer* consumer, const Option& opt)
{
    ClBlobPtr b;
    int ret = upload_impl(m0, b, false, opt, !consumer || folded_ok(consumer));
    if (ret == 0)
        out = b;
    return ret;
}

int Session::upload_float(const Mat& m, ClBlobPtr& out, const Option& opt)
{
    return upload_impl(m, out, true, opt, true);
}

int Session::upload_impl(const Mat& m0, ClBlobPtr& out, bool force_float, const Option& opt, bool allow_fold)
{
    const bool int8 = m0.elembits() == 8;
    Mat m;
    if (as_float32(m0, m, opt) != 0)
        return -100;
    if (m.elembits() != 32)
    {
        KITE_LOGE("OpenCL: upload of a %d-bit blob is not supported", m.elembits());
        return -1;
    }
    Mat shape = gpu_shape_of(m);
    if (m.dims == 1)
        shape.w = m.w * m.elempack;
    else if (m.dims == 2)
        shape.h = m.h * m.elempack;
    else
        shape.c = m.c * m.elempack;
    ClBlobPtr b;
    int ret = create_blob(shape, b, force_float, allow_fold);
    if (ret != 0)
        return ret;
    const Api* a = api();
    cl_int err = 0;
    if (rec_)
    {
        // the slot keeps its own copy to write from, now and at each replay
        UploadSlot u;
        u.shape = gpu_shape_of(m0);
        if (pinned_upload_)
        {
            u.host = pinned_like(m, u);
            if (!u.host.empty())
                memcpy(u.host.data, m.data, m.total() * m.elemsize);
        }
        if (u.host.empty())
            u.host = m.clone();
        if (u.host.empty())
        {
            if (u.pin)
            {
                api()->clReleaseMemObject(u.pin);
                u.pin = nullptr;
            }
            return -100;
        }
        m = u.host;
        ups_.push_back(u);
    }
    size_t bytes = m.total() * m.elemsize;
    cl_mem buf = rec_ ? a->clCreateBuffer(ctx->context, CL_MEM_READ_ONLY, bytes, nullptr, &err)
                      : a->clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, m.data, &err);
    if (!buf)
    {
        KITE_LOGE("OpenCL: upload buffer of %zu bytes failed (%s)", bytes, error_string(err));
        return -100;
    }
    if (rec_)
    {
        ups_.back().buf = buf; // released with the session
        Op w;
        w.slot = (int)ups_.size() - 1;
        open_.push_back(w);
        if (enqueue(w) != 0)
            return -1;
    }
    cl_kernel k = kernel("layout", "mat_to_image");
    if (!k)
    {
        if (!rec_)
            a->clReleaseMemObject(buf);
        return -1;
    }
    KernelArgs args(k);
    args.mem(buf).img(b->image).i(b->C).i(b->H).i(b->W).i(m.elempack).i(mat_group_stride(m));
    size_t gws[2] = {(size_t)b->image.width, (size_t)b->image.height};
    ret = args.error() ? -1 : dispatch(k, "mat_to_image", 2, gws);
    if (!rec_)
        a->clReleaseMemObject(buf); // freed once the queued kernel is done
    if (ret != 0)
        return ret;
    b->int8 = int8;
    out = b;
    return 0;
}

int as_float32(const Mat& m, Mat& out, const Option& opt)
{
    out = m;
    if (m.elembits() != 16 && m.elembits() != 8)
        return 0;
    Mat f;
    if (m.elembits() == 8)
        cast_int8_to_float32(m, f, opt);
    else
        cast_float16_to_float32(m, f, opt);
    if (f.empty())
        return -100;
    out = f;
    return 0;
}

// an elempack-1 Mat of `s`'s shape
void create_like(Mat& m, const Mat& s, size_t elemsize, const Option& opt)
{
    if (s.dims == 1)
        m.create(s.w, elemsize, opt.blob_allocator);
    else if (s.dims == 2)
        m.create(s.w, s.h, elemsize, opt.blob_allocator);
    else if (s.dims == 3)
        m.create(s.w, s.h, s.c, elemsize, opt.blob_allocator);
    else
        m.create(s.w, s.h, s.d, s.c, elemsize, opt.blob_allocator);
}

int Session::download(const GpuBlobPtr& g, Mat& m, const Option& opt)
{
    const ClBlob* b = static_cast<const ClBlob*>(g.get());
    const Mat& s = b->shape;
    Mat r;
    create_like(r, s, 4u, opt);
    if (r.empty())
        return -100;
    const Api* a = api();
    cl_int err = 0;
    size_t bytes = r.total() * r.elemsize;
    cl_mem buf = a->clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, bytes, nullptr, &err);
    if (!buf)
        return -100;
    // every put-off launch whose output is still alive runs now, in this
    // submission: a later extract of such a blob (a recorded forward's next
    // chapter) downloads it without running any layer
    int sret = settle_all();
    if (sret != 0)
    {
        a->clReleaseMemObject(buf);
        return sret;
    }
    cl_kernel k = kernel("layout", "image_to_mat");
    int ret = -1;
    bool slot = false; // the buffer stays with a download slot
    if (k)
    {
        KernelArgs args(k);
        args.img(b->image).mem(buf).i(b->C).i(b->H).i(b->W).i(1).i(mat_group_stride(r));
        size_t gws[2] = {(size_t)b->image.width, (size_t)b->image.height};
        ret = args.error() ? -1 : dispatch(k, "image_to_mat", 2, gws);
        if (ret == 0)
        {
            syncs++;
            if (rec_)
            {
                // the segment ends with this read; the slot keeps the buffer
                DownloadSlot d;
                d.buf = buf;
                d.shape = s;
                d.int8 = b->int8;
                close_segment();
                d.segment = (int)segs_.size() - 1;
                downs_.push_back(d);
                slot = true;
            }
            err = a->clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, bytes, r.data, 0, nullptr, nullptr);
            if (err != CL_SUCCESS)
            {
                KITE_LOGE("OpenCL: download failed (%s)", error_string(err));
                ret = -1;
            }
        }
    }
    if (!slot)
        a->clReleaseMemObject(buf);
    if (ret != 0)
        return ret;
    if (b->int8)
    {
        ret = float_integers_to_int8(r, opt);
        if (ret != 0)
            return ret;
    }
    m = r;
    return 0;
}

// ---------------------------------------------------------------------------
// backend

class OpenCLBackend : public GpuBackend
{
public:
    int backend() const override { return BACKEND_OPENCL; }
    const char* name() const override { return "OpenCL"; }
    bool available(const Option& opt) override { return Context::get(opt.opencl_device) != nullptr; }
    std::string device_description(const Option& opt) override
    {
        Context* c = Context::get(opt.opencl_device);
        return c ? c->device_name + " | driver " + c->driver_version : std::string("none");
    }
    bool fp16_arithmetic(const Option& opt) override { return half_arithmetic(Context::get(opt.opencl_device), opt); }
    GpuSession* create_session(const Option& opt) override
    {
        Context* c = Context::get(opt.opencl_device);
        if (!c)
            return nullptr;
        Session* s = new Session(c, opt);
        if (!s->queue)
        {
            delete s;
            return nullptr;
        }
        return s;
    }
};

GpuBackend* backend()
{
    static OpenCLBackend b;
    return &b;
}

} // namespace cl

namespace opencl {

Settings settings()
{
    return cl::settings();
}

void set_settings(const Settings& s)
{
    std::lock_guard<std::mutex> lock(cl::g_settings_mutex);
    cl::settings_locked() = s;
}

} // namespace opencl

GpuBackend* opencl_gpu_backend()
{
    return cl::backend();
}

} // namespace kite
