// kiterun: run a model once (or N times) and print / save its outputs.
//
//   kiterun model.param model.bin|random [input=BLOB:file.npy]... [shape=BLOB:[w,h,c]]...
//           [output=BLOB]... [threads=N] [seed=N] [device=cpu|vulkan[:N]|opencl[:N]|auto] [save=DIR] [fp16=0|1|2]
//           [writebin=FILE] [paramtype=text|bin] [loop=N] [verbose=1] [packing=0|1] [isa=NAME]
//           [placement=0|1|2]
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
// placement=1 prints after the run one line per layer,
//   placement <index> <type> <name> <row> [<path>]
// row: the registry row that ran the layer in the last run (cpu:reference,
// cpu:sse2 ... cpu:avx512vnni, cpu:neon, cpu:arm82, vulkan, opencl; custom
// for a custom layer; a GPU layer that fell back to the CPU names the CPU
// row that ran it), `-` for a layer the requested outputs did not need;
// path: the kernel it chose where it has several (Layer::kernel_path).
// On a GPU backend it then prints
//   gpu segments <n> (last run: recorded|replayed)
// the submissions of the recorded forward (src/gpu/recording.h): 1 when
// every layer ran on one GPU backend, one more per run of CPU layers between.
// placement=2 prints the same lines for the rows chosen at load without
// running (every layer marked as placed: row as planned, before any
// run-time fallback), for a quick look at a model too slow to run.
// With loop=N (N > 1; loops=N is the same) it also prints
//   rss_kb first=<VmRSS after the first forward> last=<after the last>
// from /proc/self/status, and with device=vulkan/opencl
//   gpu_kb first=<device memory kite holds after the first forward> last=<after the last>
// (Vulkan device memory, OpenCL buffers and images: gpu_memory_in_use()).
// input=.npy shapes are checked against the Input layer's declared shape
// (shapecheck=0 allows another). `kiterun --help` lists every option. Exit
// status 0 on success; on an error one line on stderr and status 1, or 2 for a
// wrong command line (tools/common/args.h).

#include "allocator.h"
#include "allocator_hook.h"
#include "cpu.h"
#include "datareader.h"
#include "device_choice.h"
#include "log.h"
#include "mat.h"
#include "modelbin.h"
#include "net.h"
#include "platform.h"

#include "common/args.h"
#include "common/input_shape.h"
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

// the process's resident set in kB (VmRSS of /proc/self/status), -1 if unknown
long long resident_kb()
{
    FILE* fp = fopen("/proc/self/status", "r");
    if (!fp)
        return -1;
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof(line), fp))
        if (strncmp(line, "VmRSS:", 6) == 0)
        {
            kb = atoll(line + 6);
            break;
        }
    fclose(fp);
    return kb;
}

// placement=1|2: one line per layer (see the header comment)
void print_placement(const Net& net, const std::vector<LayerPlacement>& placement)
{
    for (size_t li = 0; li < net.layers().size() && li < placement.size(); li++)
    {
        const Layer* l = net.layers()[li];
        const LayerPlacement& p = placement[li];
        printf("placement %d %s %s %s%s%s\n", (int)li, l->type.c_str(), l->name.c_str(), p.row, p.path ? " " : "",
               p.path ? p.path : "");
    }
}

int fail(const std::string& what)
{
    std::string msg = "kiterun: error: " + what;
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

const ToolInfo kInfo = {
    "kiterun",
    "model.param model.bin|random [key=value]...",
    "Run a model once (or loop=N times) and print, per output blob, its shape and value statistics.",
    {
        {"model.param", "the model structure: text .param or binary .param.bin (told apart by the magic number)"},
        {"model.bin|random", "its weights, or `random` for seeded random weights scaled per layer"},
        {"input=BLOB:FILE.npy", "feed BLOB from a .npy file (numpy (c,h,w) = kite [w,h,c]); BLOB: may be left out with one input"},
        {"shape=BLOB:[w,h,c]", "random input of this shape for BLOB instead of the declared one (shape=[w,h,c]: every input)"},
        {"shapecheck=0|1", "1 (default): refuse an input=.npy whose shape differs from the Input layer's declared shape"},
        {"output=BLOB", "extract BLOB (repeatable; default: every blob nobody consumes)"},
        {"threads=N", "CPU threads (default 1)"},
        {"seed=N", "seed of the random inputs and random weights (default 1)"},
        {"device=cpu|vulkan[:N]|opencl[:N]|auto", "where to run (default cpu); an unavailable GPU falls back to the CPU with a notice; auto: the fastest backend, timed on first use and cached"},
        {"devicecache=DIR|off|refresh", "where device=auto keeps its choices (default $KITE_CACHE_DIR, $XDG_CACHE_HOME/kite or ~/.cache/kite); refresh: time again"},
        {"fp16=0|1|2", "1: fp16 storage, 2: fp16 storage and arithmetic (default 0)"},
        {"packing=0|1", "0 turns the packed layouts (elempack 4/8) off"},
        {"isa=NAME", "cap the CPU implementations: reference, sse2, avx, avx2, avxvnni, avx512, avx512vnni, neon, arm82"},
        {"save=DIR", "write each output as DIR/<blob>.npy (float32, '/' in names -> '_')"},
        {"writebin=FILE", "write the weights used (e.g. the random ones) as an ncnn-compatible .bin"},
        {"paramtype=text|bin", "read the param as text or binary regardless of its magic number"},
        {"loop=N", "run N times and print min/max/avg times; N > 1 also prints rss_kb first=.. last=.. (and gpu_kb on a GPU; loops=N too)"},
        {"placement=0|1|2", "1: after the run, one line per layer: placement <index> <type> <name> <row> [<path>]; 2: the rows chosen at load, no run"},
        {"verbose=0|1", "print the library's log messages"},
    },
    "Inputs without input= get uniform random values in [-1, 1) from the seed; their shape comes from\n"
    "shape=, else the Input layer's params (0=w 1=h 2=c), else the param's shape hint. kite's shapes are\n"
    "[w,h,c] (channels first: numpy (c,h,w), NCHW without the batch): an NHWC array must be transposed."};

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

// a Mat's shape as kiterun's shapes are written: [w], [w,h], [w,h,c], [w,h,d,c]
std::vector<int> npy_shape(const Mat& m)
{
    if (m.dims == 1)
        return {m.w};
    if (m.dims == 2)
        return {m.w, m.h};
    if (m.dims == 3)
        return {m.w, m.h, m.c};
    return {m.w, m.h, m.d, m.c};
}

// numpy's order of a kite shape: [w,h,c] -> (c,h,w)
std::string numpy_shape_string(const std::vector<int>& s)
{
    std::string r = "(";
    for (size_t i = s.size(); i-- > 0;)
        r += std::to_string(s[i]) + (i ? "," : "");
    return r + (s.size() == 1 ? ",)" : ")");
}

// the refusal of an input whose shape is not the declared one, with the
// layout the model expects and, where the given shape looks like one, the fix
std::string input_shape_mismatch(const std::string& name, const std::string& file, const std::vector<int>& declared,
                                 const std::vector<int>& given)
{
    std::string msg = "input '" + name + "' from " + quoted(file) + ": the model declares " + shape_to_string(declared) + " (w,h,c: numpy " +
                      numpy_shape_string(declared) + ", channels first as NCHW/CHW), the file has " + shape_to_string(given) +
                      " (numpy " + numpy_shape_string(given) + ")";
    std::vector<int> g = given;
    if (g.size() == declared.size() + 1 && g.back() == 1)
    {
        g.pop_back(); // a leading batch of 1 in numpy order
        msg += "; it has a batch dimension of 1";
        if (g == declared)
            return msg + ": drop it (x[0])";
    }
    if (declared.size() == 3 && g.size() == 3 && g[0] == declared[2] && g[1] == declared[0] && g[2] == declared[1])
        return msg + "; that is NHWC/HWC data (channels last) for this NCHW model: transpose it (np.transpose(x, (2, 0, 1)))";
    return msg + "; give data of the declared shape, or shapecheck=0 to run with this one";
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
    int std_rc = handle_standard_options(kInfo, argc, argv);
    if (std_rc >= 0)
        return std_rc;
    for (int i = 1; i < argc && i < 3; i++)
        if (argv[i][0] == '-' && argv[i][1] != 0)
            return usage_error(kInfo, std::string("unknown option '") + argv[i] + "'");
    if (argc < 3)
        return usage_error(kInfo, argc < 2 ? "missing model.param and model.bin|random" : "missing model.bin|random");
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
    bool shapecheck = true;
    int placement = 0; // placement=1: the row that ran each layer; 2: the rows chosen at load, no run
    bool auto_device = false;   // device=auto: the fastest of the CPU, Vulkan and OpenCL (device_choice.h)
    std::string device_cache;   // devicecache=DIR|off: where device=auto keeps its choices
    bool device_refresh = false; // devicecache=refresh: time again

    for (int i = 3; i < argc; i++)
    {
        std::string a = argv[i];
        size_t eq = a.find('=');
        if (eq == std::string::npos)
            return usage_error(kInfo, (a.size() > 1 && a[0] == '-' ? "unknown option '" : "bad argument '") + a + "' (expected key=value)");
        std::string k = a.substr(0, eq), v = a.substr(eq + 1);
        long long n = 0;
        if (k == "input")
            input_args.push_back(v);
        else if (k == "shape")
            shape_args.push_back(v);
        else if (k == "devicecache" && !v.empty())
        {
            if (v == "refresh")
                device_refresh = true;
            else
                device_cache = v;
        }
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
        else if ((k == "loop" || k == "loops") && parse_int_arg(v, n) && n >= 1 && n <= 1000000)
            loop = (int)n;
        else if (k == "verbose" && parse_int_arg(v, n))
            g_log.verbose = n != 0;
        else if (k == "fp16" && parse_int_arg(v, n))
            fp16 = n < 0 ? 0 : (n > 2 ? 2 : (int)n);
        else if (k == "packing" && parse_int_arg(v, n) && (n == 0 || n == 1))
            packing = (int)n;
        else if (k == "isa" && isa_by_name(v) >= 0)
            max_isa = isa_by_name(v);
        else if (k == "shapecheck" && (v == "0" || v == "1"))
            shapecheck = v == "1";
        else if (k == "placement" && parse_int_arg(v, n) && n >= 0 && n <= 2)
            placement = (int)n;
        else
        {
            bool known = false;
            for (const ToolOption& o : kInfo.options)
                known = known || std::string(o.spelling).compare(0, k.size() + 1, k + "=") == 0;
            return usage_error(kInfo, known ? "bad value in '" + a + "'" : "unknown option '" + k + "'");
        }
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
                return usage_error(kInfo, "bad device index in '" + device + "'");
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
        else if (dev == "auto" && colon == std::string::npos)
            auto_device = true;
        else if (dev != "cpu")
            return usage_error(kInfo, "unknown device '" + device + "' (cpu, vulkan[:N], opencl[:N], auto)");
    }

    // param: text or binary (by paramtype=, else by the magic number)
    bool binary_param = paramtype == "bin";
    {
        FILE* fp = fopen(param_path.c_str(), "rb");
        if (!fp)
            return failure(kInfo, file_error("cannot open", param_path));
        int magic = 0;
        if (paramtype.empty() && fread(&magic, 4, 1, fp) == 1 && magic == 7767517)
            binary_param = true;
        fclose(fp);
    }
    // param and weights; device=auto loads again on the device it chose
    auto load_net = [&]() -> int {
        g_log.first_error.clear();
        clear_last_error();
        if ((binary_param ? net.load_param_bin(param_path.c_str()) : net.load_param(param_path.c_str())) != 0)
            return fail("cannot load " + quoted(param_path));

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
                    return failure(kInfo, file_error("cannot open", bin_arg));
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
                return fail(bin_arg == "random" ? std::string("cannot create random weights") : "cannot load " + quoted(bin_arg));
            if (!writebin.empty())
            {
                FILE* fp = fopen(writebin.c_str(), "wb");
                if (!fp)
                    return failure(kInfo, file_error("cannot create", writebin));
                int wr = rec.write(fp);
                if (fclose(fp) != 0 || wr != 0)
                    return failure(kInfo, file_error("cannot write", writebin));
            }
        }
        return 0;
    };
    if (int rc = load_net())
        return rc;

    if (placement == 2)
    {
        std::vector<LayerPlacement> planned;
        for (size_t li = 0; li < net.layers().size(); li++)
            planned.push_back(net.layer_placement((int)li));
        print_placement(net, planned);
        return 0;
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
                return usage_error(kInfo, "input=" + a + ": name the blob (input=BLOB:file.npy); the model has " + std::to_string(input_names.size()) + " inputs");
            blob = input_names[0];
        }
        if (std::find(input_names.begin(), input_names.end(), blob) == input_names.end())
            return usage_error(kInfo, "input=" + a + ": '" + blob + "' is not an Input blob of the model");
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
            return usage_error(kInfo, "shape=" + a + ": expected [w], [w,h], [w,h,c] or [w,h,d,c] of positive ints");
        if (!named)
        {
            default_shape = s;
            continue;
        }
        if (std::find(input_names.begin(), input_names.end(), blob) == input_names.end())
            return usage_error(kInfo, "shape=" + a + ": '" + blob + "' is not an Input blob of the model");
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
                return failure(kInfo, "input '" + name + "': " + err);
            const std::vector<int> declared = declared_input_shape(net, input_indexes[i]);
            if (shapecheck && !declared.empty() && declared != npy_shape(m))
                return failure(kInfo, input_shape_mismatch(name, f->second, declared, npy_shape(m)));
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
            const std::string misfit = input_shape_misfit(name, declared_input_shape(net, input_indexes[i]), s);
            if (!misfit.empty())
                return usage_error(kInfo, misfit);
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

    // device=auto: time the CPU and each GPU backend on these inputs (zero
    // weights: the same speed), or read the choice back from the cache, then
    // load on the device chosen
    if (auto_device)
    {
        DeviceChoiceSettings ds;
        ds.cache_dir = device_cache;
        ds.refresh = device_refresh;
        uint64_t h = hash_file(param_path.c_str(), 1);
        h = bin_arg == "random" ? hash_bytes("random", 6, h) : hash_file(bin_arg.c_str(), h);
        const bool bin_param = binary_param;
        NetLoader loader = [&param_path, bin_param](Net& n) -> int {
            int r = bin_param ? n.load_param_bin(param_path.c_str()) : n.load_param(param_path.c_str());
            return r != 0 ? r : n.load_model_empty();
        };
        DeviceChoice choice;
        Option o = net.opt;
        if (choose_device(h, o, loader, inputs, choice, ds) != 0)
            return fail("device=auto: the model could not be timed");
        fprintf(stderr, "kiterun: %s\n", choice.summary().c_str());
        if (choice.backend != BACKEND_CPU)
        {
            net.clear();
            apply_device_choice(choice, net.opt);
            if (int rc = load_net())
                return rc;
        }
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
                return usage_error(kInfo, "output=" + o + ": the model has no blob of that name");
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
    // loop=N's times: min, max and sum (no per-run vector: the long runs'
    // resident memory is kite's, not this program's bookkeeping)
    double t_min = INFINITY, t_max = 0, t_sum = 0;
    std::vector<int> ran_on(net.layers().size(), -1); // where each layer ran (last run)
    std::vector<LayerPlacement> ran_rows;               // placement=1: the rows of the last run
    Extractor::GpuRunStats gpu_stats;                   // placement=1: the last run's GPU submissions
    long long rss_first = -1, rss_last = -1;            // loop=N: VmRSS after the first and the last forward
    long long gpu_first = -1, gpu_last = -1;            // loop=N: device memory kite holds (kB), the same
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
        if (placement == 1 && it == loop - 1)
        {
            ran_rows = ex.placement();
            gpu_stats = ex.gpu_run_stats();
        }
        if (loop > 1)
        {
            rss_last = resident_kb();
            gpu_last = (long long)(gpu_memory_in_use() / 1024);
            if (it == 0)
            {
                rss_first = rss_last;
                gpu_first = gpu_last;
            }
        }
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        t_min = std::min(t_min, ms);
        t_max = std::max(t_max, ms);
        t_sum += ms;
    }

    if (!save_dir.empty() && !make_dir(save_dir))
        return failure(kInfo, file_error("cannot create directory", save_dir));

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
        printf("time: loops=%d min=%.2f max=%.2f avg=%.2f ms\n", loop, t_min, t_max, t_sum / loop);
        if (rss_first >= 0)
            printf("rss_kb first=%lld last=%lld\n", rss_first, rss_last);
        if (gpu_first >= 0 && (net.opt.use_vulkan_compute || net.opt.use_opencl))
            printf("gpu_kb first=%lld last=%lld\n", gpu_first, gpu_last);
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
    if (placement == 1)
    {
        print_placement(net, ran_rows);
        // the recorded forward's GPU segments: one submission (and one
        // fence) each; more than one where CPU layers sit between GPU ones
        if (gpu_stats.recorded + gpu_stats.replayed > 0)
            printf("gpu segments %d (last run: %s)\n", gpu_stats.segments, gpu_stats.replayed ? "replayed" : "recorded");
    }
    return 0;
}
