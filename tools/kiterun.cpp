// kiterun: run a model once (or N times) and print / save its outputs.
//
//   kiterun model.param model.bin|random [input=BLOB:file.npy]... [shape=BLOB:[w,h,c]]...
//           [output=BLOB]... [threads=N] [seed=N] [device=cpu|vulkan[:N]|opencl[:N]] [save=DIR] [fp16=0|1|2]
//           [writebin=FILE] [paramtype=text|bin] [loop=N] [verbose=1] [packing=0|1] [isa=NAME]
//
// Every Input blob without input= gets uniform random values in [-1, 1) from
// the seed; its shape comes from shape=BLOB:[w,h,c] (or shape=[w,h,c] for all
// inputs), else the Input layer's params, else the -23330 shape hint.
// `random` instead of a .bin gives seeded random weights scaled per layer
// (tools/common/random_modelbin.h); writebin=FILE writes the weights used as
// an ncnn-compatible .bin. Outputs default to every blob nobody consumes.
// save=DIR writes each output as DIR/<blob name, '/' -> '_'>.npy (float32).
// packing=0 turns the packed layouts off (Option::use_packing_layout); isa=NAME
// caps the CPU implementations at that level (reference, sse2, avx, avx2,
// avxvnni, avx512, avx512vnni, neon, arm82: Option::max_cpu_isa).
// Exit status 0 on success; on any error one line on stderr and status 1.

#include "allocator.h"
#include "cpu.h"
#include "datareader.h"
#include "log.h"
#include "mat.h"
#include "modelbin.h"
#include "net.h"
#include "platform.h"

#include "common/args.h"
#include "common/npy.h"
#include "common/random_modelbin.h"
#include "common/rng.h"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace kite;
using namespace kite::tools;

namespace {

// a CpuIsa by its cpu_isa_name(), or -1
int isa_by_name(const std::string& name)
{
    const int all[] = {CPU_ISA_NONE, CPU_ISA_SSE2, CPU_ISA_AVX, CPU_ISA_AVX2, CPU_ISA_AVXVNNI, CPU_ISA_AVX512, CPU_ISA_AVX512VNNI, CPU_ISA_NEON, CPU_ISA_ARM82};
    for (int isa : all)
        if (name == cpu_isa_name(isa))
            return isa;
    return -1;
}

struct LogCapture
{
    bool verbose = false;
    std::string first_error;
};

void log_sink(int level, const char* message, void* userdata)
{
    LogCapture* cap = (LogCapture*)userdata;
    if (level == LOG_ERROR && cap->first_error.empty())
        cap->first_error = message;
    if (cap->verbose || level == LOG_WARN)
        fprintf(stderr, "kite: %s%s\n", level == LOG_ERROR ? "error: " : level == LOG_WARN ? "warning: " : "", message);
}

LogCapture g_log;

int fail(const std::string& what)
{
    std::string msg = "kiterun: " + what;
    std::string first = g_log.first_error;
    std::string last = last_error();
    if (!first.empty())
    {
        msg += ": " + first;
        if (!last.empty() && last != first)
            msg += " [" + last + "]";
    }
    else if (!last.empty())
    {
        msg += ": " + last;
    }
    for (char& ch : msg)
        if (ch == '\n')
            ch = ' ';
    fprintf(stderr, "%s\n", msg.c_str());
    return 1;
}

void usage()
{
    fprintf(stderr,
            "usage: kiterun model.param model.bin|random [input=BLOB:file.npy]... [shape=BLOB:[w,h,c]]...\n"
            "               [output=BLOB]... [threads=N] [seed=N] [device=cpu|vulkan[:N]|opencl[:N]] [save=DIR] [fp16=0|1|2]\n"
            "               [writebin=FILE] [paramtype=text|bin] [loop=N] [verbose=1] [packing=0|1] [isa=reference|neon|...]\n");
}

bool make_dir(const std::string& dir)
{
    struct stat st;
    if (stat(dir.c_str(), &st) == 0)
        return S_ISDIR(st.st_mode);
    // create parents too
    size_t p = 0;
    while ((p = dir.find('/', p + 1)) != std::string::npos)
        mkdir(dir.substr(0, p).c_str(), 0755);
    return mkdir(dir.c_str(), 0755) == 0 || (stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode));
}

Mat make_shape_mat(const std::vector<int>& s)
{
    if (s.size() == 1)
        return Mat(s[0], (size_t)4u);
    if (s.size() == 2)
        return Mat(s[0], s[1], (size_t)4u);
    if (s.size() == 3)
        return Mat(s[0], s[1], s[2], (size_t)4u);
    return Mat(s[0], s[1], s[2], s[3], (size_t)4u);
}

// the shape of an Input blob from the layer's params, else the -23330 hint
std::vector<int> declared_input_shape(const Net& net, int blob_index)
{
    std::vector<int> s;
    const Blob& b = net.blobs()[blob_index];
    if (b.producer >= 0)
    {
        const ParamDict& pd = net.layer_param(b.producer);
        int w = pd.get(0, 0), h = pd.get(1, 0), d = pd.get(11, 0), c = pd.get(2, 0);
        if (w > 0 && h > 0 && d > 0 && c > 0)
            return {w, h, d, c};
        if (w > 0 && h > 0 && c > 0)
            return {w, h, c};
        if (w > 0 && h > 0 && c <= 0)
            return {w, h};
        if (w > 0 && h <= 0 && c <= 0)
            return {w};
    }
    const Mat& hint = b.shape;
    if (hint.dims >= 1 && hint.dims <= 4 && hint.w > 0)
    {
        if (hint.dims == 1)
            s = {hint.w};
        else if (hint.dims == 2 && hint.h > 0)
            s = {hint.w, hint.h};
        else if (hint.dims == 3 && hint.h > 0 && hint.c > 0)
            s = {hint.w, hint.h, hint.c};
        else if (hint.dims == 4 && hint.h > 0 && hint.d > 0 && hint.c > 0)
            s = {hint.w, hint.h, hint.d, hint.c};
    }
    return s;
}

Mat to_fp32(const Mat& m)
{
    if (m.empty())
        return m;
    Mat f = m;
    if (f.elempack != 1)
    {
        Mat u;
        convert_packing(f, u, 1);
        f = u;
    }
    if (!f.empty() && f.elemsize == 1)
    {
        Mat u;
        cast_int8_to_float32(f, u);
        f = u;
    }
    else if (!f.empty() && f.elemsize == 2)
    {
        Mat u;
        cast_float16_to_float32(f, u);
        f = u;
    }
    return f;
}

std::string blob_file_name(const std::string& name)
{
    std::string s = name;
    for (char& ch : s)
        if (ch == '/' || ch == '\\')
            ch = '_';
    return s + ".npy";
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3)
    {
        usage();
        return 1;
    }
    set_log_sink(log_sink, &g_log);

    const std::string param_path = argv[1];
    const std::string bin_arg = argv[2];
    std::vector<std::string> input_args, shape_args, output_args;
    int threads = 1;
    long long seed = 1;
    std::string device = "cpu", save_dir, writebin, paramtype;
    int fp16 = 0; // fp16=1: fp16 storage; 2: fp16 storage and arithmetic
    int loop = 1;
    int packing = -1; // packing=0|1: Option::use_packing_layout (default: the Option default)
    int max_isa = -1; // isa=NAME: Option::max_cpu_isa (default: the best the CPU has)

    for (int i = 3; i < argc; i++)
    {
        std::string a = argv[i];
        size_t eq = a.find('=');
        if (eq == std::string::npos)
            return fail("bad argument '" + a + "' (expected key=value; run without arguments for usage)");
        std::string k = a.substr(0, eq), v = a.substr(eq + 1);
        long long n = 0;
        if (k == "input")
            input_args.push_back(v);
        else if (k == "shape")
            shape_args.push_back(v);
        else if (k == "output")
            output_args.push_back(v);
        else if (k == "threads" && parse_int_arg(v, n) && n >= 1 && n <= 1024)
            threads = (int)n;
        else if (k == "seed" && parse_int_arg(v, n))
            seed = n;
        else if (k == "device")
            device = v;
        else if (k == "save" && !v.empty())
            save_dir = v;
        else if (k == "writebin" && !v.empty())
            writebin = v;
        else if (k == "paramtype" && (v == "text" || v == "bin"))
            paramtype = v;
        else if (k == "loop" && parse_int_arg(v, n) && n >= 1 && n <= 1000000)
            loop = (int)n;
        else if (k == "verbose" && parse_int_arg(v, n))
            g_log.verbose = n != 0;
        else if (k == "fp16" && parse_int_arg(v, n))
            fp16 = n < 0 ? 0 : (n > 2 ? 2 : (int)n);
        else if (k == "packing" && parse_int_arg(v, n) && (n == 0 || n == 1))
            packing = (int)n;
        else if (k == "isa" && isa_by_name(v) >= 0)
            max_isa = isa_by_name(v);
        else
            return fail("bad argument '" + a + "' (run without arguments for usage)");
    }

    Net net;
    net.opt.num_threads = threads;
    net.opt.use_fp16_storage = fp16 != 0;
    net.opt.use_fp16_arithmetic = fp16 == 2;
    if (packing >= 0)
        net.opt.use_packing_layout = packing != 0;
    net.opt.max_cpu_isa = max_isa;
    // device=vulkan[:N] / opencl[:N]; without that device (or backend) the Net
    // prints a one-line notice and runs on the CPU
    {
        std::string dev = device;
        long long index = 0;
        size_t colon = dev.find(':');
        if (colon != std::string::npos)
        {
            if (!parse_int_arg(dev.substr(colon + 1), index) || index < 0 || index > 1024)
            {
                fprintf(stderr, "kiterun: bad device index in '%s'\n", device.c_str());
                return 1;
            }
            dev = dev.substr(0, colon);
        }
        if (dev == "vulkan")
        {
            net.opt.use_vulkan_compute = true;
            net.opt.vulkan_device = (int)index;
        }
        else if (dev == "opencl")
        {
            net.opt.use_opencl = true;
            net.opt.opencl_device = (int)index;
        }
        else if (dev != "cpu")
        {
            fprintf(stderr, "kiterun: unknown device '%s' (cpu, vulkan[:N], opencl[:N])\n", device.c_str());
            return 1;
        }
    }

    // param: text or binary (by paramtype=, else by the magic number)
    bool binary_param = false;
    if (paramtype.empty())
    {
        FILE* fp = fopen(param_path.c_str(), "rb");
        if (!fp)
            return fail("cannot open param '" + param_path + "'");
        int magic = 0;
        if (fread(&magic, 4, 1, fp) == 1 && magic == 7767517)
            binary_param = true;
        fclose(fp);
    }
    else
        binary_param = paramtype == "bin";
    g_log.first_error.clear();
    clear_last_error();
    if ((binary_param ? net.load_param_bin(param_path.c_str()) : net.load_param(param_path.c_str())) != 0)
        return fail("cannot load param '" + param_path + "'");

    // weights
    {
        g_log.first_error.clear();
        clear_last_error();
        int ret = 0;
        RandomModelBin rmb((uint64_t)seed);
        rmb.follow_graph(net); // residual branches scaled down, see random_modelbin.h
        FILE* binfp = nullptr;
        DataReaderFromStdio* dr = nullptr;
        ModelBinFromDataReader* fmb = nullptr;
        const ModelBin* mb = &rmb;
        if (bin_arg != "random")
        {
            binfp = fopen(bin_arg.c_str(), "rb");
            if (!binfp)
                return fail("cannot open model '" + bin_arg + "'");
            dr = new DataReaderFromStdio(binfp);
            fmb = new ModelBinFromDataReader(*dr);
            mb = fmb;
        }
        ModelBinRecorder rec(*mb);
        ret = net.load_model(writebin.empty() ? *mb : (const ModelBin&)rec);
        if (ret == 0 && dr && dr->remaining() != SIZE_MAX && dr->remaining() > 0)
            fprintf(stderr, "kiterun: warning: %zu bytes of '%s' left over after the last layer\n", dr->remaining(), bin_arg.c_str());
        delete fmb;
        delete dr;
        if (binfp)
            fclose(binfp);
        if (ret != 0)
            return fail(bin_arg == "random" ? std::string("cannot create random weights") : "cannot load model '" + bin_arg + "'");
        if (!writebin.empty())
        {
            FILE* fp = fopen(writebin.c_str(), "wb");
            if (!fp)
                return fail("cannot create '" + writebin + "': " + strerror(errno));
            int wr = rec.write(fp);
            if (fclose(fp) != 0 || wr != 0)
                return fail("write error on '" + writebin + "'");
        }
    }

    std::vector<std::string> blob_names;
    for (const Blob& b : net.blobs())
        blob_names.push_back(b.name);
    const std::vector<int> input_indexes = net.input_indexes();
    std::vector<std::string> input_names;
    for (int i : input_indexes)
        input_names.push_back(net.blobs()[i].name);

    // input= and shape=
    std::map<std::string, std::string> input_files;
    for (const std::string& a : input_args)
    {
        std::string blob, file;
        if (!split_blob_value(a, input_names, blob, file))
        {
            if (input_names.size() != 1)
                return fail("input=" + a + ": name the blob (input=BLOB:file.npy); inputs are " + std::to_string(input_names.size()));
            blob = input_names[0];
        }
        if (std::find(input_names.begin(), input_names.end(), blob) == input_names.end())
            return fail("input=" + a + ": '" + blob + "' is not an Input blob of the model");
        input_files[blob] = file;
    }
    std::map<std::string, std::vector<int> > named_shapes;
    std::vector<int> default_shape;
    for (const std::string& a : shape_args)
    {
        std::string blob, value;
        bool named = split_blob_value(a, input_names, blob, value, "[");
        std::vector<int> s;
        if (!parse_shape(value, s))
            return fail("shape=" + a + ": expected [w], [w,h], [w,h,c] or [w,h,d,c] of positive ints");
        if (!named)
        {
            default_shape = s;
            continue;
        }
        if (std::find(input_names.begin(), input_names.end(), blob) == input_names.end())
            return fail("shape=" + a + ": '" + blob + "' is not an Input blob of the model");
        named_shapes[blob] = s;
    }

    // build the inputs
    std::vector<std::pair<std::string, Mat> > inputs;
    for (size_t i = 0; i < input_names.size(); i++)
    {
        const std::string& name = input_names[i];
        Mat m;
        auto f = input_files.find(name);
        if (f != input_files.end())
        {
            std::string err = read_npy(f->second.c_str(), m);
            if (!err.empty())
                return fail("input '" + name + "': " + err);
        }
        else
        {
            std::vector<int> s;
            auto ns = named_shapes.find(name);
            if (ns != named_shapes.end())
                s = ns->second;
            else if (!default_shape.empty())
                s = default_shape;
            else
                s = declared_input_shape(net, input_indexes[i]);
            if (s.empty())
                return fail("input blob '" + name + "' has no shape in the param: give shape=" + name + ":[w,h,c] or input=" + name + ":file.npy");
            m = make_shape_mat(s);
            if (m.empty())
                return fail("input '" + name + "': out of memory for shape " + shape_to_string(s));
            Rng rng((uint64_t)seed, hash_string(name), 0x5eedu);
            const size_t plane = (size_t)m.w * m.h * m.d;
            const int channels = m.dims >= 3 ? m.c : 1;
            for (int q = 0; q < channels; q++)
            {
                float* p = (float*)m.data + m.cstep * q;
                for (size_t j = 0; j < plane; j++)
                    p[j] = rng.uniform(-1.f, 1.f);
            }
        }
        inputs.push_back(std::make_pair(name, m));
    }

    // outputs
    std::vector<std::string> outputs;
    if (output_args.empty())
    {
        for (int i : net.output_indexes())
            outputs.push_back(net.blobs()[i].name);
    }
    else
    {
        for (const std::string& o : output_args)
        {
            if (net.find_blob_index_by_name(o.c_str()) < 0)
                return fail("output=" + o + ": no blob of that name");
            outputs.push_back(o);
        }
    }
    if (outputs.empty())
        return fail("the model has no output blob");

    // extract in graph order: in light mode a blob is released once all its
    // consumers ran, so an intermediate blob must be taken before its consumers run
    std::vector<size_t> order(outputs.size());
    for (size_t o = 0; o < outputs.size(); o++)
        order[o] = o;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return net.blobs()[net.find_blob_index_by_name(outputs[a].c_str())].producer < net.blobs()[net.find_blob_index_by_name(outputs[b].c_str())].producer;
    });

    // run
    std::vector<Mat> results(outputs.size());
    std::vector<double> times;
    std::vector<int> ran_on(net.layers().size(), -1); // where each layer ran (last run)
    for (int it = 0; it < loop; it++)
    {
        g_log.first_error.clear();
        clear_last_error();
        auto t0 = std::chrono::steady_clock::now();
        Extractor ex = net.create_extractor();
        ex.set_num_threads(threads);
        for (const auto& in : inputs)
        {
            if (ex.input(in.first.c_str(), in.second) != 0)
                return fail("cannot set input '" + in.first + "'");
        }
        for (size_t o : order)
        {
            Mat m;
            if (ex.extract(outputs[o].c_str(), m) != 0)
                return fail("inference failed extracting '" + outputs[o] + "'");
            results[o] = m;
        }
        for (size_t li = 0; li < ran_on.size(); li++)
            ran_on[li] = ex.layer_backend((int)li);
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }

    if (!save_dir.empty() && !make_dir(save_dir))
        return fail("cannot create directory '" + save_dir + "'");

    for (size_t o = 0; o < outputs.size(); o++)
    {
        Mat m = to_fp32(results[o]);
        if (!results[o].empty() && m.empty())
            return fail("cannot convert output '" + outputs[o] + "' to fp32");
        double sum = 0, asum = 0;
        float mn = INFINITY, mx = -INFINITY;
        size_t nonfinite = 0, count = 0;
        if (!m.empty())
        {
            const size_t plane = (size_t)m.w * m.h * m.d;
            const int channels = m.dims >= 3 ? m.c : 1;
            for (int q = 0; q < channels; q++)
            {
                const float* p = (const float*)m.data + m.cstep * q;
                for (size_t j = 0; j < plane; j++)
                {
                    float v = p[j];
                    count++;
                    if (!std::isfinite(v))
                    {
                        nonfinite++;
                        continue;
                    }
                    sum += v;
                    asum += std::fabs(v);
                    mn = std::min(mn, v);
                    mx = std::max(mx, v);
                }
            }
        }
        if (count == 0)
            printf("output %s: shape [] (empty)\n", outputs[o].c_str());
        else
            printf("output %s: shape %s sum=%.6g abssum=%.6g min=%.6g max=%.6g%s\n", outputs[o].c_str(), mat_shape_string(m).c_str(),
                   sum, asum, (double)mn, (double)mx,
                   nonfinite ? (" nonfinite=" + std::to_string(nonfinite)).c_str() : "");
        if (!save_dir.empty())
        {
            std::string path = save_dir + "/" + blob_file_name(outputs[o]);
            std::string err = write_npy(path.c_str(), m);
            if (!err.empty())
                return fail("save '" + outputs[o] + "': " + err);
        }
    }

    if (loop > 1)
    {
        double mn = *std::min_element(times.begin(), times.end());
        double mx = *std::max_element(times.begin(), times.end());
        double avg = 0;
        for (double t : times)
            avg += t;
        avg /= times.size();
        printf("time: loops=%d min=%.2f max=%.2f avg=%.2f ms\n", loop, mn, mx, avg);
    }

    int per_backend[3] = {0, 0, 0};
    for (int b : ran_on)
        if (b >= 0 && b < 3)
            per_backend[b]++;
    // "backends: vulkan=N cpu=M": the layers that ran on each (a GPU layer
    // that fell back to the CPU counts there), GPU first
    printf("backends:");
    if (net.opt.use_vulkan_compute)
        printf(" vulkan=%d", per_backend[BACKEND_VULKAN]);
    if (net.opt.use_opencl)
        printf(" opencl=%d", per_backend[BACKEND_OPENCL]);
    printf(" cpu=%d\n", per_backend[BACKEND_CPU]);
    return 0;
}
