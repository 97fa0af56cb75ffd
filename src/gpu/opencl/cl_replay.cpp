// Recorded forwards: the launches of a recording Session kept per segment,
// replayed launch by launch (each with a kernel of its own) or as one
// cl_khr_command_buffer per segment, with their upload and download slots.
#include "../gpu_int8.h"
#include "cl_runtime.h"

#include "../../log.h"
#include "cl_runtime_internal.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>
#include <cstdio>
#include <cstring>

namespace kite {
namespace cl {

bool Session::start_recording()
{
    if (!queue || !open_.empty())
        return false;
    rec_ = true;
    return true;
}

void Session::close_segment()
{
    segs_.push_back(open_);
    cbufs_.push_back(nullptr);
    cbuf_failed_.push_back(0);
    owned_.push_back(0);
    open_.clear();
}

cl_kernel Session::own_kernel(cl_kernel k, const std::vector<std::vector<unsigned char> >& args)
{
    const Api* a = api();
    cl_program p = nullptr;
    size_t n = 0;
    if (a->clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof(p), &p, nullptr) != CL_SUCCESS ||
        a->clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &n) != CL_SUCCESS || n == 0)
        return nullptr;
    std::string name(n, '\0');
    if (a->clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, n, &name[0], nullptr) != CL_SUCCESS)
        return nullptr;
    cl_int err = 0;
    cl_kernel own = a->clCreateKernel(p, name.c_str(), &err);
    if (!own)
    {
        KITE_LOGE("OpenCL: a kernel of its own for the recorded launch of %s: %s", name.c_str(), error_string(err));
        return nullptr;
    }
    for (size_t i = 0; i < args.size() && err == CL_SUCCESS; i++)
        err = a->clSetKernelArg(own, (cl_uint)i, args[i].size(), args[i].data());
    if (err != CL_SUCCESS)
    {
        KITE_LOGE("OpenCL: setting the arguments of the recorded launch of %s failed (%s)", name.c_str(), error_string(err));
        a->clReleaseKernel(own);
        return nullptr;
    }
    recorded_kernels_.push_back(own);
    return own;
}

int Session::own_kernels(int segment)
{
    if (owned_[segment] || (shared_kernels_ && !use_cbuf_))
        return 0; // shared: each launch sets its recorded arguments again
    std::vector<Op>& ops = segs_[segment];
    for (size_t i = 0; i < ops.size(); i++)
    {
        Op& op = ops[i];
        if (!op.kernel || op.own)
            continue;
        // the chunks of a split launch (one after the other) share one
        cl_kernel own = nullptr;
        if (i > 0 && ops[i - 1].own && ops[i - 1].src == op.kernel && ops[i - 1].args == op.args)
            own = ops[i - 1].kernel;
        if (!own)
            own = own_kernel(op.kernel, op.args);
        if (!own)
            return -1;
        op.src = op.kernel;
        op.kernel = own;
        op.own = true;
    }
    for (Op& op : ops)
        std::vector<std::vector<unsigned char> >().swap(op.args);
    owned_[segment] = 1;
    return 0;
}

int Session::enqueue(const Op& op)
{
    const Api* a = api();
    cl_int err;
    if (!op.kernel)
    {
        const UploadSlot& u = ups_[op.slot];
        err = a->clEnqueueWriteBuffer(queue, u.buf, CL_FALSE, 0, u.host.total() * u.host.elemsize, u.host.data, 0, nullptr, nullptr);
    }
    else
    {
        err = CL_SUCCESS;
        // a launch on the session's shared kernel (KITE_OPENCL_REPLAY_KERNELS=shared)
        for (size_t i = 0; !op.own && i < op.args.size() && err == CL_SUCCESS; i++)
            err = a->clSetKernelArg(op.kernel, (cl_uint)i, op.args[i].size(), op.args[i].data());
        if (err == CL_SUCCESS)
            err = a->clEnqueueNDRangeKernel(queue, op.kernel, op.dims, op.offset ? op.off : nullptr, op.g, op.local ? op.l : nullptr, 0, nullptr, nullptr);
    }
    if (err != CL_SUCCESS)
    {
        KITE_LOGE("OpenCL: replaying a recorded %s %s failed (%s)", op.kernel ? "launch of" : "upload", op.name, error_string(err));
        return -1;
    }
    return 0;
}

// The segment's launches as one command buffer, each after the one before
// (a sync point chain: the order of the in-order queue they were recorded
// on). 0, or 1 where the driver refused it (the segment is then replayed
// launch by launch).
int Session::build_command_buffer(int segment)
{
    const CommandBufferApi& cb = ctx->command_buffer;
    cl_int err = 0;
    CommandBufferApi::Buffer b = cb.create(1, &queue, nullptr, &err);
    if (!b)
    {
        KITE_LOGW("OpenCL: clCreateCommandBufferKHR failed (%s); replaying launch by launch", error_string(err));
        return 1;
    }
    CommandBufferApi::SyncPoint prev = 0, sp = 0;
    bool chained = false;
    for (const Op& op : segs_[segment])
    {
        if (!op.kernel)
            continue; // uploads are written on the queue before the buffer runs
        err = cb.ndrange(b, nullptr, nullptr, op.kernel, op.dims, op.offset ? op.off : nullptr, op.g, op.local ? op.l : nullptr,
                         chained ? 1 : 0, chained ? &prev : nullptr, &sp, nullptr);
        if (err != CL_SUCCESS)
            break;
        prev = sp;
        chained = true;
    }
    if (err == CL_SUCCESS)
        err = cb.finalize(b);
    if (err != CL_SUCCESS)
    {
        KITE_LOGW("OpenCL: recording a command buffer failed (%s); replaying launch by launch", error_string(err));
        cb.release(b);
        return 1;
    }
    cbufs_[segment] = b;
    return 0;
}

int Session::replay_ops(int segment)
{
    if (segment < 0 || segment >= (int)segs_.size())
        return -1;
    if (replays_ == 0 && settings().verbose)
    {
        static std::once_flag once;
        const bool cbuf = use_cbuf_, shared = shared_kernels_;
        const int flush = flush_every_;
        const std::string lws = auto_lws_[0] ? std::to_string(auto_lws_[0]) + "x" + std::to_string(auto_lws_[1]) + " where the driver would pick" : "the driver's";
        const CommandBufferApi& cb = ctx->command_buffer;
        std::call_once(once, [&] {
            if (cbuf)
                fprintf(stderr, "kite: OpenCL replay: one command buffer per segment (cl_khr_command_buffer %s)\n", cb.version.c_str());
            else
                fprintf(stderr, "kite: OpenCL replay: recorded launches enqueued one by one, %s (%s); flush every %d launches, local sizes %s\n",
                        shared ? "on shared kernels, their arguments set per launch" : "each with a kernel of its own",
                        cb.usable() ? "KITE_OPENCL_COMMAND_BUFFER=0" : cb.why_not.c_str(), flush, lws.c_str());
        });
    }
    if (own_kernels(segment) != 0)
        return -1;
    replays_++;
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = thread_cpu_ms();
    const std::vector<Op>& ops = segs_[segment];
    if (use_cbuf_ && !cbufs_[segment] && !cbuf_failed_[segment] && build_command_buffer(segment) != 0)
        cbuf_failed_[segment] = 1;
    int ret = 0;
    if (cbufs_[segment])
    {
        const auto u0 = std::chrono::steady_clock::now();
        for (const Op& op : ops)
            if (!op.kernel && (ret = enqueue(op)) != 0)
                return ret;
        replay_upload_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - u0).count();
        cl_int err = ctx->command_buffer.enqueue(1, &queue, cbufs_[segment], 0, nullptr, nullptr);
        if (err != CL_SUCCESS)
        {
            KITE_LOGE("OpenCL: clEnqueueCommandBufferKHR failed (%s)", error_string(err));
            return -1;
        }
        cbuf_replays_++;
    }
    else
    {
        int since_flush = 0;
        for (const Op& op : ops)
        {
            const auto u0 = op.kernel ? std::chrono::steady_clock::time_point() : std::chrono::steady_clock::now();
            if ((ret = enqueue(op)) != 0)
                return ret;
            if (!op.kernel)
                replay_upload_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - u0).count();
            // hand the first launches to the device while the rest are
            // enqueued (a driver that submits only at a flush or a wait
            // would leave it idle for the whole loop)
            if (flush_every_ > 0 && op.kernel && ++since_flush >= flush_every_)
            {
                api()->clFlush(queue);
                since_flush = 0;
            }
        }
    }
    replay_host_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    replay_cpu_ms_ += thread_cpu_ms() - c0;
    for (const Op& op : ops)
        replay_launches_ += op.kernel ? 1 : 0;
    return 0;
}

Mat Session::pinned_like(const Mat& m, UploadSlot& slot)
{
    const Api* a = api();
    const size_t bytes = m.total() * m.elemsize;
    cl_int err = 0;
    cl_mem pin = a->clCreateBuffer(ctx->context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, std::max<size_t>(bytes, 1), nullptr, &err);
    void* p = pin ? a->clEnqueueMapBuffer(queue, pin, CL_TRUE, CL_MAP_WRITE, 0, std::max<size_t>(bytes, 1), 0, nullptr, nullptr, &err) : nullptr;
    Mat v;
    if (p)
    {
        // the same dims, so the same channel step as m (a clone's)
        if (m.dims == 1)
            v = Mat(m.w, p, m.elemsize, m.elempack, nullptr);
        else if (m.dims == 2)
            v = Mat(m.w, m.h, p, m.elemsize, m.elempack, nullptr);
        else if (m.dims == 3)
            v = Mat(m.w, m.h, m.c, p, m.elemsize, m.elempack, nullptr);
        else
            v = Mat(m.w, m.h, m.d, m.c, p, m.elemsize, m.elempack, nullptr);
        if (v.total() * v.elemsize != bytes)
            v.release();
    }
    if (v.empty())
    {
        KITE_LOGW("OpenCL: no pinned upload memory of %zu bytes (%s); a malloc'ed copy", bytes, error_string(err));
        if (p)
        {
            a->clEnqueueUnmapMemObject(queue, pin, p, 0, nullptr, nullptr);
            a->clFinish(queue);
        }
        if (pin)
            a->clReleaseMemObject(pin);
        return Mat();
    }
    slot.pin = pin;
    return v;
}

int Session::replay_upload(int slot, const Mat& m0, const Option& opt)
{
    if (slot < 0 || slot >= (int)ups_.size())
        return -1;
    UploadSlot& u = ups_[slot];
    const Mat& s = u.shape;
    if (m0.empty() || m0.dims != s.dims || m0.w != s.w || m0.h != s.h || m0.d != s.d || m0.c != s.c || m0.elempack != s.elempack || m0.elemsize != s.elemsize)
        return KITE_GPU_REPLAY_MISMATCH;
    Mat m;
    if (as_float32(m0, m, opt) != 0)
        return -100;
    // the previous replay's write is done: its segment was waited for
    const size_t plane = (size_t)m.w * m.h * m.d * m.elemsize;
    for (int q = 0; q < m.c; q++)
        memcpy(u.host.channel(q).data, m.channel(q).data, plane);
    return 0;
}

int Session::replay_segment(int segment)
{
    if (replay_ops(segment) != 0)
        return -1;
    return finish();
}

int Session::replay_download(int slot, Mat& m, const Option& opt)
{
    if (slot < 0 || slot >= (int)downs_.size())
        return -1;
    const DownloadSlot& d = downs_[slot];
    if (replay_ops(d.segment) != 0)
        return -1;
    Mat r;
    create_like(r, d.shape, 4u, opt);
    if (r.empty())
        return -100;
    cl_int err = api()->clEnqueueReadBuffer(queue, d.buf, CL_TRUE, 0, r.total() * r.elemsize, r.data, 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
    {
        KITE_LOGE("OpenCL: download failed (%s)", error_string(err));
        return -1;
    }
    if (d.int8)
    {
        int ret = float_integers_to_int8(r, opt);
        if (ret != 0)
            return ret;
    }
    m = r;
    return 0;
}

// one line: recorded launches per forward, then by layer type and by kernel
// ("type=count", most first)
void Session::report_launches() const
{
    std::map<std::string, int> by_layer, by_kernel;
    int n = 0;
    for (const std::vector<Op>& seg : segs_)
        for (const Op& op : seg)
            if (op.kernel)
            {
                n++;
                by_layer[op.owner ? op.owner : "(transfer)"]++;
                by_kernel[op.name]++;
            }
    if (n == 0 && unrecorded_launches_ == 0)
        return;
    auto listed = [](const std::map<std::string, int>& m) {
        std::vector<std::pair<int, std::string> > v;
        for (const auto& kv : m)
            v.push_back(std::make_pair(-kv.second, kv.first));
        std::sort(v.begin(), v.end());
        std::string s;
        for (const auto& e : v)
            s += " " + e.second + "=" + std::to_string(-e.first);
        return s;
    };
    fprintf(stderr, "kite: OpenCL launches per forward: %d in %d segments (%lld launches not recorded) | by layer:%s | by kernel:%s\n", n,
            (int)segs_.size(), unrecorded_launches_, listed(by_layer).c_str(), listed(by_kernel).c_str());
}

} // namespace cl
} // namespace kite
