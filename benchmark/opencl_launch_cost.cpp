// opencl_launch_cost: what one clEnqueueNDRangeKernel costs on the host and
// on the device, for the ways kite could launch its small kernels.
//
//   opencl_launch_cost [N launches] [repeats] [device=SUBSTRING] [gws=WxH]
//
// Every variant enqueues N launches of a trivial kernel (a copy plus one add
// over a WxH grid, 64x16 by default: a small layer) and then waits with
// clFinish, `repeats` times; the best repeat is printed:
//   host us  wall time of the enqueue loop / N (clSetKernelArg included
//            where the variant sets arguments per launch)
//   cpu us   this thread's CPU time of the enqueue loop / N (host us far
//            above cpu us: the enqueue sleeps, e.g. on a full queue)
//   wall us  (enqueue loop + clFinish) / N: what one launch costs the forward
// The baseline is kite's replay: RGBA float image2d arguments (read_only in,
// write_only out, created CL_MEM_READ_WRITE), a chain over a pool of 8 images
// (launch i reads image i%8 and writes image (i+1)%8), 4 scalar arguments,
// a 2D global size with a NULL local size, a cl_kernel of its own per launch
// with its arguments set once, an in-order queue, no flush, no events. Each
// other row changes one thing. The device is the first NVIDIA GPU, else the
// first GPU, else the first device (device= picks by name or platform).
// Loads libOpenCL.so.1 at run time as kite does (no OpenCL library linked).

#include "gpu/opencl/cl_api.h"

#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using kite::cl::Api;

static Api A;
typedef cl_int(CL_API_CALL* BarrierFn)(cl_command_queue, cl_uint, const cl_event*, cl_event*);
static BarrierFn g_barrier = nullptr; // OpenCL 1.2

static const char* kSource = R"CL(
__constant sampler_t S = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void img4(__read_only image2d_t a, __write_only image2d_t b, int w, int h, float p0, float p1)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    write_imagef(b, (int2)(x, y), read_imagef(a, S, (int2)(x, y)) * p0 + p1);
}

__kernel void img4_1d(__read_only image2d_t a, __write_only image2d_t b, int w, int h, float p0, float p1)
{
    int i = get_global_id(0);
    if (i >= w * h)
        return;
    int x = i % w, y = i / w;
    write_imagef(b, (int2)(x, y), read_imagef(a, S, (int2)(x, y)) * p0 + p1);
}

__kernel void img16(__read_only image2d_t a, __write_only image2d_t b, int w, int h, float p0, float p1,
                    int s0, int s1, int s2, int s3, int s4, int s5, int s6, int s7, int s8, int s9, int s10, int s11)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    float4 v = read_imagef(a, S, (int2)(x, y)) * p0 + p1;
    v.x += (float)(s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9 + s10 + s11);
    write_imagef(b, (int2)(x, y), v);
}

// a kite convolution's arguments: input, filter and bias images, output
// image, 19 scalars
__kernel void conv_img(__read_only image2d_t a, __read_only image2d_t f, __read_only image2d_t bias,
                       __write_only image2d_t b, int w, int h, float p0, float p1, int s0, int s1, int s2,
                       int s3, int s4, int s5, int s6, int s7, int s8, int s9, int s10, int s11, int s12,
                       int s13, int s14)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    float4 v = read_imagef(a, S, (int2)(x, y)) * read_imagef(f, S, (int2)(x, y)) + read_imagef(bias, S, (int2)(x, 0));
    v.x += (float)(s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9 + s10 + s11 + s12 + s13 + s14) * p0 + p1;
    write_imagef(b, (int2)(x, y), v);
}

// the same with the filter and bias in buffers (kite's grouped convolution)
__kernel void conv_buf(__read_only image2d_t a, __global const float4* f, __global const float4* bias,
                       __write_only image2d_t b, int w, int h, float p0, float p1, int s0, int s1, int s2,
                       int s3, int s4, int s5, int s6, int s7, int s8, int s9, int s10, int s11, int s12,
                       int s13, int s14)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    float4 v = read_imagef(a, S, (int2)(x, y)) * f[y * w + x] + bias[x];
    v.x += (float)(s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9 + s10 + s11 + s12 + s13 + s14) * p0 + p1;
    write_imagef(b, (int2)(x, y), v);
}

__kernel void buf4(__global const float4* a, __global float4* b, int w, int h, float p0, float p1)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    b[y * w + x] = a[y * w + x] * p0 + p1;
}

__kernel void buf4_1d(__global const float4* a, __global float4* b, int w, int h, float p0, float p1)
{
    int i = get_global_id(0);
    if (i >= w * h)
        return;
    b[i] = a[i] * p0 + p1;
}

__kernel void noarg()
{
}
)CL";

static bool load_api()
{
    void* lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
    {
        fprintf(stderr, "opencl_launch_cost: libOpenCL.so.1 not found (%s)\n", dlerror());
        return false;
    }
#define KITE_LC_LOAD(name, ret, args)                                          \
    A.name = reinterpret_cast<ret(CL_API_CALL*) args>(dlsym(lib, #name));     \
    if (!A.name)                                                               \
    {                                                                          \
        fprintf(stderr, "opencl_launch_cost: libOpenCL lacks %s\n", #name);   \
        return false;                                                          \
    }
    KITE_CL_FUNCTIONS(KITE_LC_LOAD)
#undef KITE_LC_LOAD
    g_barrier = reinterpret_cast<BarrierFn>(dlsym(lib, "clEnqueueBarrierWithWaitList"));
    return true;
}

static std::string device_str(cl_device_id d, cl_device_info what)
{
    size_t n = 0;
    if (A.clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0)
        return "";
    std::string s(n, '\0');
    A.clGetDeviceInfo(d, what, n, &s[0], nullptr);
    while (!s.empty() && s.back() == '\0')
        s.pop_back();
    return s;
}

static std::string platform_str(cl_platform_id p, cl_platform_info what)
{
    size_t n = 0;
    if (A.clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0)
        return "";
    std::string s(n, '\0');
    A.clGetPlatformInfo(p, what, n, &s[0], nullptr);
    while (!s.empty() && s.back() == '\0')
        s.pop_back();
    return s;
}

static std::string err_str(cl_int e)
{
    return "OpenCL error " + std::to_string((int)e);
}

static double thread_cpu_us()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double now_us()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#define CHECK(call)                                                                                     \
    do                                                                                                  \
    {                                                                                                   \
        cl_int e_ = (call);                                                                             \
        if (e_ != CL_SUCCESS)                                                                           \
        {                                                                                               \
            fprintf(stderr, "opencl_launch_cost: %s failed: %s\n", #call, err_str(e_).c_str()); \
            return false;                                                                               \
        }                                                                                               \
    } while (0)

struct Env
{
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    cl_context context = nullptr;
    cl_program program = nullptr;
    cl_command_queue in_order = nullptr;
    cl_command_queue out_of_order = nullptr;
    bool image_from_buffer = false;
    cl_uint pitch_align = 0; // texels
    size_t max_wg = 0;
    int w = 64, h = 16;
};

enum Mem
{
    IMG_RW,       // images CL_MEM_READ_WRITE (kite)
    IMG_RW_NOHOST, // CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS
    IMG_RO_WO,    // a CL_MEM_READ_ONLY source, a CL_MEM_WRITE_ONLY destination (no chain)
    IMG_FROM_BUF, // image2d over a buffer (cl_khr_image2d_from_buffer)
    BUF           // plain buffers
};

struct Variant
{
    const char* name;
    Mem mem = IMG_RW;
    int pool = 8;            // images in the chain (1: the same pair every launch)
    int scalars = 4;         // 4 or 16
    size_t lx = 0, ly = 0;   // explicit local size (0: NULL)
    bool one_d = false;
    bool shared_kernel = false; // one cl_kernel for every launch
    bool reset_args = false;    // ... its arguments set before each launch
    bool ooo = false;           // out-of-order queue
    bool events = false;        // each launch returns an event
    bool chain_events = false;  // ... and waits for the previous one
    int flush_every = 0;
    bool barrier = false;       // clEnqueueBarrierWithWaitList after each launch
    int weights = 0;            // 1: filter and bias images (conv_img), 2: filter and bias buffers (conv_buf)
    int n_scale = 1;            // N times this
    bool noarg = false;
};

struct Result
{
    double host = 1e30, cpu = 1e30, wall = 1e30;
    bool ok = false;
    std::string why;
};

static const cl_image_format kFmt = {CL_RGBA, CL_FLOAT};

static cl_mem make_image(Env& e, cl_mem_flags flags, cl_mem* buffer_out, cl_int* err)
{
    cl_image_desc d;
    memset(&d, 0, sizeof(d));
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = (size_t)e.w;
    d.image_height = (size_t)e.h;
    if (buffer_out)
    {
        const size_t align = e.pitch_align ? e.pitch_align : 1;
        const size_t pitch_texels = ((size_t)e.w + align - 1) / align * align;
        d.image_row_pitch = pitch_texels * 16;
        *buffer_out = A.clCreateBuffer(e.context, CL_MEM_READ_WRITE, d.image_row_pitch * e.h, nullptr, err);
        if (!*buffer_out)
            return nullptr;
        d.buffer = *buffer_out;
    }
    return A.clCreateImage(e.context, flags, &kFmt, &d, nullptr, err);
}

static bool run_variant(Env& e, const Variant& v, int n0, int repeats, Result& r)
{
    const int n = n0 * v.n_scale;
    cl_command_queue q = v.ooo ? e.out_of_order : e.in_order;
    if (!q)
    {
        r.why = "no out-of-order queue";
        return false;
    }
    if (v.barrier && !g_barrier)
    {
        r.why = "no clEnqueueBarrierWithWaitList";
        return false;
    }
    if (v.mem == IMG_FROM_BUF && !e.image_from_buffer)
    {
        r.why = "no cl_khr_image2d_from_buffer";
        return false;
    }
    std::vector<cl_mem> mems, bufs;
    cl_int err = 0;
    const bool buffers = v.mem == BUF;
    const int pool = v.mem == IMG_RO_WO ? 2 : v.pool;
    for (int i = 0; i < pool; i++)
    {
        cl_mem m = nullptr;
        if (buffers)
            m = A.clCreateBuffer(e.context, CL_MEM_READ_WRITE, (size_t)e.w * e.h * 16, nullptr, &err);
        else if (v.mem == IMG_FROM_BUF)
        {
            cl_mem b = nullptr;
            m = make_image(e, CL_MEM_READ_WRITE, &b, &err);
            if (b)
                bufs.push_back(b);
        }
        else
        {
            cl_mem_flags f = CL_MEM_READ_WRITE;
            if (v.mem == IMG_RW_NOHOST)
                f |= CL_MEM_HOST_NO_ACCESS;
            if (v.mem == IMG_RO_WO)
                f = i == 0 ? CL_MEM_READ_ONLY : CL_MEM_WRITE_ONLY;
            m = make_image(e, f, nullptr, &err);
        }
        if (!m)
        {
            r.why = std::string("creating memory: ") + err_str(err);
            for (cl_mem x : mems)
                A.clReleaseMemObject(x);
            for (cl_mem x : bufs)
                A.clReleaseMemObject(x);
            return false;
        }
        mems.push_back(m);
    }
    const char* kname = v.noarg ? "noarg" : buffers ? (v.one_d ? "buf4_1d" : "buf4") : v.weights == 1 ? "conv_img" : v.weights == 2 ? "conv_buf"
                        : v.scalars == 16 ? "img16" : v.one_d ? "img4_1d" : "img4";
    cl_mem wmem[2] = {nullptr, nullptr};
    for (int i = 0; i < 2 && v.weights; i++)
    {
        wmem[i] = v.weights == 1 ? make_image(e, CL_MEM_READ_ONLY, nullptr, &err)
                                 : A.clCreateBuffer(e.context, CL_MEM_READ_ONLY, (size_t)e.w * e.h * 16, nullptr, &err);
        if (wmem[i])
            bufs.push_back(wmem[i]);
        else
            r.why = std::string("creating the weights: ") + err_str(err);
    }
    const int nk = v.shared_kernel ? 1 : n;
    std::vector<cl_kernel> ks;
    bool ok = true;
    auto set_args = [&](cl_kernel k, int i) -> cl_int {
        if (v.noarg)
            return CL_SUCCESS;
        cl_mem src = mems[i % pool], dst = mems[(i + 1) % pool];
        if (v.mem == IMG_RO_WO)
            src = mems[0], dst = mems[1];
        const int w = e.w, h = e.h;
        const float p0 = 1.0f, p1 = 0.5f;
        cl_uint a = 0;
        cl_int er = A.clSetKernelArg(k, a++, sizeof(cl_mem), &src);
        if (v.weights)
        {
            er |= A.clSetKernelArg(k, a++, sizeof(cl_mem), &wmem[0]);
            er |= A.clSetKernelArg(k, a++, sizeof(cl_mem), &wmem[1]);
        }
        er |= A.clSetKernelArg(k, a++, sizeof(cl_mem), &dst);
        er |= A.clSetKernelArg(k, a++, sizeof(int), &w);
        er |= A.clSetKernelArg(k, a++, sizeof(int), &h);
        er |= A.clSetKernelArg(k, a++, sizeof(float), &p0);
        er |= A.clSetKernelArg(k, a++, sizeof(float), &p1);
        const int extra = v.weights ? 15 : v.scalars - 4;
        for (int i = 0; i < extra; i++)
            er |= A.clSetKernelArg(k, a++, sizeof(int), &i);
        return er;
    };
    if (v.weights && (!wmem[0] || !wmem[1]))
        ok = false;
    for (int i = 0; i < nk && ok; i++)
    {
        cl_kernel k = A.clCreateKernel(e.program, kname, &err);
        if (!k)
        {
            r.why = std::string("clCreateKernel: ") + err_str(err);
            ok = false;
            break;
        }
        ks.push_back(k);
        if (set_args(k, i) != CL_SUCCESS)
        {
            r.why = "clSetKernelArg failed";
            ok = false;
        }
    }
    size_t g[2], l[2];
    cl_uint dims = 2;
    if (v.noarg)
    {
        dims = 1;
        g[0] = 1;
    }
    else if (v.one_d)
    {
        dims = 1;
        g[0] = (size_t)e.w * e.h;
        l[0] = v.lx;
        if (v.lx)
            g[0] = (g[0] + v.lx - 1) / v.lx * v.lx;
    }
    else
    {
        g[0] = (size_t)e.w;
        g[1] = (size_t)e.h;
        l[0] = v.lx;
        l[1] = v.ly;
        if (v.lx)
        {
            g[0] = (g[0] + v.lx - 1) / v.lx * v.lx;
            g[1] = (g[1] + v.ly - 1) / v.ly * v.ly;
        }
    }
    const size_t* lp = v.lx && !v.noarg ? l : nullptr;
    std::vector<cl_event> evs;
    auto one_pass = [&](double& host, double& cpu, double& wall) -> cl_int {
        evs.assign(n, nullptr);
        const double t0 = now_us(), c0 = thread_cpu_us();
        int since = 0;
        for (int i = 0; i < n; i++)
        {
            cl_kernel k = ks[v.shared_kernel ? 0 : i];
            if (v.reset_args)
            {
                cl_int er = set_args(k, i);
                if (er != CL_SUCCESS)
                    return er;
            }
            const cl_event* wait = v.chain_events && i > 0 ? &evs[i - 1] : nullptr;
            cl_int er = A.clEnqueueNDRangeKernel(q, k, dims, nullptr, g, lp, wait ? 1 : 0, wait, v.events ? &evs[i] : nullptr);
            if (er != CL_SUCCESS)
                return er;
            if (v.barrier && (er = g_barrier(q, 0, nullptr, nullptr)) != CL_SUCCESS)
                return er;
            if (v.flush_every > 0 && ++since >= v.flush_every)
            {
                A.clFlush(q);
                since = 0;
            }
        }
        const double t1 = now_us(), c1 = thread_cpu_us();
        cl_int er = A.clFinish(q);
        const double t2 = now_us();
        for (cl_event ev : evs)
            if (ev)
                A.clReleaseEvent(ev);
        host = (t1 - t0) / n;
        cpu = (c1 - c0) / n;
        wall = (t2 - t0) / n;
        return er;
    };
    if (ok)
    {
        double h, c, w;
        cl_int er = one_pass(h, c, w); // warm-up: first launches build and bind
        if (er != CL_SUCCESS)
        {
            r.why = std::string("launch: ") + err_str(er);
            ok = false;
        }
        for (int rep = 0; rep < repeats && ok; rep++)
        {
            er = one_pass(h, c, w);
            if (er != CL_SUCCESS)
            {
                r.why = std::string("launch: ") + err_str(er);
                ok = false;
                break;
            }
            r.host = std::min(r.host, h);
            r.cpu = std::min(r.cpu, c);
            r.wall = std::min(r.wall, w);
        }
    }
    A.clFinish(q);
    for (cl_kernel k : ks)
        A.clReleaseKernel(k);
    for (cl_mem m : mems)
        A.clReleaseMemObject(m);
    for (cl_mem m : bufs)
        A.clReleaseMemObject(m);
    r.ok = ok;
    return ok;
}

// A replay's input upload (kite: clEnqueueWriteBuffer, CL_FALSE, from
// malloc'ed memory; FastestDet's 352x352x3 floats): host and wall time of
// one write from pageable memory and from pinned memory (a mapped
// CL_MEM_ALLOC_HOST_PTR buffer). A non-blocking write that takes the whole
// copy on the host counts against every replay's enqueueing.
static void upload_cost(Env& e, int repeats)
{
    typedef void*(CL_API_CALL * MapFn)(cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint, const cl_event*, cl_event*, cl_int*);
    typedef cl_int(CL_API_CALL * UnmapFn)(cl_command_queue, cl_mem, void*, cl_uint, const cl_event*, cl_event*);
    void* lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    MapFn map = lib ? (MapFn)dlsym(lib, "clEnqueueMapBuffer") : nullptr;
    UnmapFn unmap = lib ? (UnmapFn)dlsym(lib, "clEnqueueUnmapMemObject") : nullptr;
    const size_t bytes = (size_t)352 * 352 * 3 * 4;
    cl_int err = 0;
    cl_mem dst = A.clCreateBuffer(e.context, CL_MEM_READ_ONLY, bytes, nullptr, &err);
    cl_mem pin = A.clCreateBuffer(e.context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, nullptr, &err);
    void* pinned = pin && map ? map(e.in_order, pin, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &err) : nullptr;
    std::vector<float> host(bytes / 4, 1.0f);
    for (int which = 0; which < 2 && dst; which++)
    {
        const void* src = which == 0 ? (const void*)host.data() : pinned;
        if (!src)
        {
            printf("%-76s  n/a: no mapped pinned buffer\n", "upload 1.49 MB, clEnqueueWriteBuffer non-blocking, pinned source");
            continue;
        }
        double best_h = 1e30, best_w = 1e30;
        for (int rep = 0; rep <= repeats; rep++)
        {
            const double t0 = now_us();
            if (A.clEnqueueWriteBuffer(e.in_order, dst, CL_FALSE, 0, bytes, src, 0, nullptr, nullptr) != CL_SUCCESS)
                break;
            const double t1 = now_us();
            A.clFinish(e.in_order);
            const double t2 = now_us();
            if (rep > 0)
            {
                best_h = std::min(best_h, t1 - t0);
                best_w = std::min(best_w, t2 - t0);
            }
        }
        printf("%-76s %9.2f %9s %9.2f\n", which == 0 ? "upload 1.49 MB, clEnqueueWriteBuffer non-blocking, malloc'ed source"
                                                      : "upload 1.49 MB, clEnqueueWriteBuffer non-blocking, pinned source",
               best_h, "", best_w);
    }
    if (pinned && unmap)
    {
        unmap(e.in_order, pin, pinned, 0, nullptr, nullptr);
        A.clFinish(e.in_order);
    }
    if (pin)
        A.clReleaseMemObject(pin);
    if (dst)
        A.clReleaseMemObject(dst);
}

static bool pick_device(Env& e, const char* want)
{
    cl_uint np = 0;
    if (A.clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0)
    {
        fprintf(stderr, "opencl_launch_cost: no OpenCL platform\n");
        return false;
    }
    std::vector<cl_platform_id> ps(np);
    A.clGetPlatformIDs(np, ps.data(), nullptr);
    struct Cand
    {
        cl_platform_id p;
        cl_device_id d;
        int rank;
    };
    std::vector<Cand> cands;
    for (cl_platform_id p : ps)
    {
        cl_uint nd = 0;
        if (A.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0)
            continue;
        std::vector<cl_device_id> ds(nd);
        A.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
        const std::string pname = platform_str(p, CL_PLATFORM_NAME);
        for (cl_device_id d : ds)
        {
            cl_device_type t = 0;
            A.clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof(t), &t, nullptr);
            const std::string name = device_str(d, CL_DEVICE_NAME), vendor = device_str(d, CL_DEVICE_VENDOR);
            printf("found: %s | %s | %s%s\n", pname.c_str(), name.c_str(), vendor.c_str(), (t & CL_DEVICE_TYPE_GPU) ? " (GPU)" : "");
            int rank = 3;
            const bool gpu = (t & CL_DEVICE_TYPE_GPU) != 0;
            const bool nvidia = vendor.find("NVIDIA") != std::string::npos || pname.find("NVIDIA") != std::string::npos;
            if (want)
                rank = (name.find(want) != std::string::npos || pname.find(want) != std::string::npos) ? 0 : 9;
            else if (gpu && nvidia)
                rank = 0;
            else if (gpu)
                rank = 1;
            cands.push_back({p, d, rank});
        }
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.rank < b.rank; });
    if (cands.empty() || cands[0].rank == 9)
    {
        fprintf(stderr, "opencl_launch_cost: no OpenCL device%s%s\n", want ? " named " : "", want ? want : "");
        return false;
    }
    e.platform = cands[0].p;
    e.device = cands[0].d;
    return true;
}

static bool setup(Env& e)
{
    cl_int err = 0;
    e.context = A.clCreateContext(nullptr, 1, &e.device, nullptr, nullptr, &err);
    CHECK(err);
    e.in_order = A.clCreateCommandQueue(e.context, e.device, 0, &err);
    CHECK(err);
    cl_command_queue_properties qp = 0;
    A.clGetDeviceInfo(e.device, CL_DEVICE_QUEUE_PROPERTIES, sizeof(qp), &qp, nullptr);
    if (qp & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        e.out_of_order = A.clCreateCommandQueue(e.context, e.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    const std::string ext = device_str(e.device, CL_DEVICE_EXTENSIONS);
    e.image_from_buffer = ext.find("cl_khr_image2d_from_buffer") != std::string::npos;
    if (e.image_from_buffer)
        A.clGetDeviceInfo(e.device, 0x104A /* CL_DEVICE_IMAGE_PITCH_ALIGNMENT */, sizeof(e.pitch_align), &e.pitch_align, nullptr);
    A.clGetDeviceInfo(e.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(e.max_wg), &e.max_wg, nullptr);
    const char* src = kSource;
    e.program = A.clCreateProgramWithSource(e.context, 1, &src, nullptr, &err);
    CHECK(err);
    err = A.clBuildProgram(e.program, 1, &e.device, "", nullptr, nullptr);
    if (err != CL_SUCCESS)
    {
        size_t n = 0;
        A.clGetProgramBuildInfo(e.program, e.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
        std::string log(n, '\0');
        A.clGetProgramBuildInfo(e.program, e.device, CL_PROGRAM_BUILD_LOG, n, &log[0], nullptr);
        fprintf(stderr, "opencl_launch_cost: build failed (%s):\n%s\n", err_str(err).c_str(), log.c_str());
        return false;
    }
    return true;
}

int main(int argc, char** argv)
{
    int n = 256, repeats = 5;
    const char* want = nullptr;
    Env e;
    int pos = 0;
    for (int i = 1; i < argc; i++)
    {
        if (!strncmp(argv[i], "device=", 7))
            want = argv[i] + 7;
        else if (!strncmp(argv[i], "gws=", 4))
        {
            if (sscanf(argv[i] + 4, "%dx%d", &e.w, &e.h) != 2 || e.w <= 0 || e.h <= 0)
            {
                fprintf(stderr, "opencl_launch_cost: gws=WxH, got '%s'\n", argv[i]);
                return 2;
            }
        }
        else if (pos < 2 && atoi(argv[i]) > 0)
            (pos++ == 0 ? n : repeats) = atoi(argv[i]);
        else
        {
            fprintf(stderr, "usage: opencl_launch_cost [N launches] [repeats] [device=SUBSTRING] [gws=WxH]\n");
            return 2;
        }
    }
    if (!load_api())
        return 77;
    if (!pick_device(e, want))
        return 77;
    if (!setup(e))
        return 1;
    printf("device: %s | %s | %s | driver %s | platform %s\n", device_str(e.device, CL_DEVICE_NAME).c_str(),
           device_str(e.device, CL_DEVICE_VENDOR).c_str(), device_str(e.device, CL_DEVICE_VERSION).c_str(),
           device_str(e.device, CL_DRIVER_VERSION).c_str(), platform_str(e.platform, CL_PLATFORM_NAME).c_str());
    printf("N %d launches, best of %d, global %d x %d, max work-group %zu, out-of-order queue %s, image2d_from_buffer %s\n", n, repeats, e.w, e.h,
           e.max_wg, e.out_of_order ? "yes" : "no", e.image_from_buffer ? "yes" : "no");

    std::vector<Variant> vs;
    auto add = [&](const char* name) -> Variant& {
        vs.emplace_back();
        vs.back().name = name;
        return vs.back();
    };
    add("base: kite replay (images, 4 scalars, NULL lws, kernel per launch, 2D, in-order)");
    add("(a) 2 buffer args instead of images").mem = BUF;
    add("(b) 16 scalar args").scalars = 16;
    add("kite conv args: 3 read images (in, filter, bias) + 1 write, 19 scalars").weights = 1;
    add("... filter and bias as buffers: 2 images + 2 buffers, 19 scalars").weights = 2;
    { Variant& v = add("... conv args, local size 16x4"); v.weights = 1; v.lx = 16; v.ly = 4; }
    { Variant& v = add("... conv args, one shared kernel, args re-set per launch"); v.weights = 1; v.shared_kernel = true; v.reset_args = true; }
    { Variant& v = add("(c) local size 16x4"); v.lx = 16; v.ly = 4; }
    { Variant& v = add("(c) local size 64x1"); v.lx = 64; v.ly = 1; }
    { Variant& v = add("(c) local size 32x8"); v.lx = 32; v.ly = 8; }
    { Variant& v = add("(d) one shared kernel, 6 args re-set per launch"); v.shared_kernel = true; v.reset_args = true; }
    { Variant& v = add("(d) one shared kernel, args set once, same 2 images"); v.shared_kernel = true; v.pool = 2; }
    add("(d) kernel per launch, same 2 images every launch").pool = 2;
    add("(e) 1D global size").one_d = true;
    { Variant& v = add("(e) 1D global, local size 64"); v.one_d = true; v.lx = 64; }
    { Variant& v = add("(f) out-of-order queue, no events"); v.ooo = true; }
    { Variant& v = add("(f) out-of-order queue, event chain"); v.ooo = true; v.events = true; v.chain_events = true; }
    { Variant& v = add("(f) out-of-order queue, a barrier after each launch"); v.ooo = true; v.barrier = true; }
    { Variant& v = add("(f) in-order queue, an event per launch"); v.events = true; }
    add("(g) clFlush every 8 launches").flush_every = 8;
    add("(g) clFlush every 32 launches").flush_every = 32;
    add("(h) images CL_MEM_READ_WRITE|HOST_NO_ACCESS").mem = IMG_RW_NOHOST;
    add("(h) images READ_ONLY -> WRITE_ONLY (same pair)").mem = IMG_RO_WO;
    add("(h) image2d from buffer").mem = IMG_FROM_BUF;
    { Variant& v = add("buffers, 1D, local 64 (best buffer case)"); v.mem = BUF; v.one_d = true; v.lx = 64; }
    { Variant& v = add("buffers, 1D, local 64, OOO queue no events"); v.mem = BUF; v.one_d = true; v.lx = 64; v.ooo = true; }
    { Variant& v = add("floor: no-arg kernel, global 1, shared kernel"); v.noarg = true; v.shared_kernel = true; }
    { Variant& v = add("floor: no-arg kernel, kernel per launch"); v.noarg = true; }
    add("base with 8x N (queue depth / throttling)").n_scale = 8;
    { Variant& v = add("base with 8x N, clFlush every 32"); v.n_scale = 8; v.flush_every = 32; }

    printf("%-76s %9s %9s %9s\n", "variant", "host us", "cpu us", "wall us");
    int failed = 0;
    for (const Variant& v : vs)
    {
        Result r;
        if (run_variant(e, v, n, repeats, r))
            printf("%-76s %9.2f %9.2f %9.2f\n", v.name, r.host, r.cpu, r.wall);
        else
        {
            printf("%-76s  n/a: %s\n", v.name, r.why.c_str());
            // the optional features may be missing; the rest must run
            if (r.why.find("no ") != 0)
                failed++;
        }
        fflush(stdout);
    }
    printf("host us: enqueue loop / N; cpu us: its thread CPU time / N; wall us: (enqueue loop + clFinish) / N\n");
    upload_cost(e, repeats);
    if (e.out_of_order)
        A.clReleaseCommandQueue(e.out_of_order);
    A.clReleaseCommandQueue(e.in_order);
    A.clReleaseProgram(e.program);
    A.clReleaseContext(e.context);
    return failed ? 1 : 0;
}
