// benchkite: inference speed of param files, with benchncnn's command line.
//
//   benchkite [loop count] [num threads] [powersave] [gpu device] [cooling down]
//             [param=FILE|DIR]... [shape=[w,h,c]] [profile=1] [trace=FILE]
//             [backend=vulkan|opencl]  (which GPU backend the gpu device index selects)
//             [mem=1]  (Linux: peak resident memory of each model, see below)
//
// Weights are zeros (Net::load_model_empty), inputs are filled with 0.01, as
// benchncnn does. Without param= the model set in benchmark/models runs (else
// $KITE_SHARED_DIR/models/ncnn); input shapes come from shape=, the folder's
// shapes.txt, the Input layer's params or the -23330 hint, in that order.
// One line per model: "%20s  min = %7.2f  max = %7.2f  avg = %7.2f" (ms).
// profile=1 adds a per-layer table (summed over the timed loops; its row column is
// the registry row and kernel path that ran the layer, as kiterun placement=1); trace=FILE
// writes every timed layer run as Chrome trace JSON (chrome://tracing, Perfetto).
// mem=1 (Linux) resets the process's peak RSS before each model's load_param
// (/proc/self/clear_refs) and prints after its runs
// "%20s  peak_rss = %.1f MB  (before load %.1f MB, process peak %.1f MB)": the
// peak during load + runs minus the resident size just before loading
// (benchmark/compare_memory.py).
// `benchkite --help` lists the options; progress (each model as it starts, the
// cool-downs) goes to stderr. Exit status 1 when a model fails, 2 on a wrong
// command line (tools/common/args.h).

#include "allocator.h"
#include "fma_peak.h"
#include "cpu.h"
#include "device_choice.h"
#include "log.h"
#include "mat.h"
#include "net.h"
#include "platform.h"

#include "common/args.h"
#include "common/input_shape.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <map>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

#ifndef KITE_BENCHMARK_MODEL_DIR
#define KITE_BENCHMARK_MODEL_DIR ""
#endif
#ifndef KITE_DEFAULT_SHARED_DIR
#define KITE_DEFAULT_SHARED_DIR ""
#endif

using namespace kite;
using kite::tools::ToolInfo;

namespace {

const ToolInfo kInfo = {
    "benchkite",
    "[loop count] [num threads] [powersave] [gpu device] [cooling down] [key=value]...",
    "Time inference of param files with zero weights, as benchncnn does (same positional arguments and output lines).",
    {
        {"loop count", "timed runs per model after 8 warm-up runs (default 4; 0: only load the model)"},
        {"num threads", "CPU threads (default: the big cores)"},
        {"powersave", "0 all cores, 1 little cores, 2 big cores (default 0)"},
        {"gpu device", "-1 the CPU (default), N the GPU device N of backend="},
        {"cooling down", "1 (default): wait 10 s before each model so the SoC cools down; 0: no wait"},
        {"param=FILE|DIR", "a .param file or a folder of them (repeatable; default: benchmark/models or $KITE_SHARED_DIR/models/ncnn)"},
        {"shape=[w,h,c]", "the input shape for every model (default: shapes.txt, else the Input layer's params)"},
        {"backend=vulkan|opencl", "the GPU backend the gpu device index selects (default vulkan)"},
        {"fp16=0|1|2", "1: fp16 storage, 2: fp16 storage and arithmetic (default 0)"},
        {"fp16w=0|1", "1 (default, as benchncnn's use_fp16_storage on x86): InnerProduct keeps fp16 weights on CPUs that convert fp16 in hardware (Option::use_fp16_weights); 0: fp32 weights"},
        {"profile=0|1", "1: a per-layer time table after each model"},
        {"trace=FILE", "write every timed layer run as Chrome trace JSON (chrome://tracing, Perfetto)"},
        {"mem=0|1", "1 (Linux): print each model's peak resident memory above the resident size before its load"},
        {"device=auto", "each model on the fastest of the CPU and the GPU backends (timed on first use, cached: device_choice.h); the choice goes to stderr"},
    },
    "One line per model on stdout: \"%20s  min = %7.2f  max = %7.2f  avg = %7.2f\" (ms); progress on stderr."};

struct Settings
{
    int loop_count = 4;
    int num_threads = 1;
    int powersave = 0;
    int gpu_device = -1;
    std::string gpu_backend = "vulkan"; // backend=vulkan|opencl for the gpu device
    int cooling_down = 1;
    int warmup_count = 8;
    bool profile = false;
    std::string trace_path;
    int fp16 = 0; // fp16=1: fp16 storage, 2: fp16 storage and arithmetic
    bool fp16_weights = true; // fp16w=0: fp32 InnerProduct weights (Option::use_fp16_weights)
    bool mem = false; // mem=1: peak resident memory per model
    bool device_auto = false; // device=auto: device_choice.h picks the backend per model
};

struct ModelEntry
{
    std::string path;
    std::string name;
    std::vector<int> shape; // empty: from the param
};

double now_ms()
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool is_dir(const std::string& p)
{
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const std::string& p)
{
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string base_name(const std::string& path)
{
    size_t s = path.find_last_of('/');
    std::string b = s == std::string::npos ? path : path.substr(s + 1);
    const char* exts[] = {".param.bin", ".param"};
    for (const char* e : exts)
    {
        size_t n = strlen(e);
        if (b.size() > n && b.compare(b.size() - n, n, e) == 0)
            return b.substr(0, b.size() - n);
    }
    return b;
}

bool parse_shape(const std::string& s0, std::vector<int>& shape)
{
    std::string s = s0;
    if (s.size() >= 2 && s.front() == '[' && s.back() == ']')
        s = s.substr(1, s.size() - 2);
    shape.clear();
    size_t start = 0;
    while (true)
    {
        size_t p = s.find(',', start);
        std::string t = s.substr(start, p == std::string::npos ? std::string::npos : p - start);
        char* end = nullptr;
        long v = strtol(t.c_str(), &end, 10);
        if (t.empty() || *end != 0 || v <= 0 || v > (1 << 24))
            return false;
        shape.push_back((int)v);
        if (p == std::string::npos)
            break;
        start = p + 1;
    }
    return shape.size() >= 1 && shape.size() <= 4;
}

// shapes.txt: "<name> [w,h,c]" per line
std::map<std::string, std::vector<int> > read_shapes(const std::string& dir)
{
    std::map<std::string, std::vector<int> > shapes;
    FILE* fp = fopen((dir + "/shapes.txt").c_str(), "r");
    if (!fp)
        return shapes;
    char line[512];
    while (fgets(line, sizeof(line), fp))
    {
        char name[256], shape[256];
        if (sscanf(line, "%255s %255s", name, shape) == 2)
        {
            std::vector<int> s;
            if (parse_shape(shape, s))
                shapes[name] = s;
        }
    }
    fclose(fp);
    return shapes;
}

std::vector<ModelEntry> models_in_dir(const std::string& dir)
{
    std::vector<ModelEntry> v;
    DIR* d = opendir(dir.c_str());
    if (!d)
        return v;
    std::map<std::string, std::vector<int> > shapes = read_shapes(dir);
    std::vector<std::string> files;
    while (dirent* e = readdir(d))
    {
        std::string n = e->d_name;
        if (n.size() > 6 && n.compare(n.size() - 6, 6, ".param") == 0)
            files.push_back(n);
    }
    closedir(d);
    std::sort(files.begin(), files.end());
    for (const std::string& f : files)
    {
        ModelEntry m;
        m.path = dir + "/" + f;
        m.name = base_name(f);
        auto it = shapes.find(m.name);
        if (it != shapes.end())
            m.shape = it->second;
        v.push_back(m);
    }
    return v;
}

Mat make_input(const std::vector<int>& s, Allocator* allocator)
{
    Mat m;
    if (s.size() == 1)
        m.create(s[0], (size_t)4u, allocator);
    else if (s.size() == 2)
        m.create(s[0], s[1], (size_t)4u, allocator);
    else if (s.size() == 3)
        m.create(s[0], s[1], s[2], (size_t)4u, allocator);
    else if (s.size() == 4)
        m.create(s[0], s[1], s[2], s[3], (size_t)4u, allocator);
    if (!m.empty())
        m.fill(0.01f);
    return m;
}

std::string shape_string(const Mat& m)
{
    if (m.dims == 0)
        return "[]";
    const int p = m.elempack > 0 ? m.elempack : 1;
    char buf[96];
    if (m.dims == 1)
        snprintf(buf, sizeof(buf), "[%d]", m.w * p);
    else if (m.dims == 2)
        snprintf(buf, sizeof(buf), "[%d,%d]", m.w, m.h * p);
    else if (m.dims == 3)
        snprintf(buf, sizeof(buf), "[%d,%d,%d]", m.w, m.h, m.c * p);
    else
        snprintf(buf, sizeof(buf), "[%d,%d,%d,%d]", m.w, m.h, m.d, m.c * p);
    std::string r = buf;
    // the layout the layer produced: elempack and 16-bit storage
    if (p > 1)
        r += "p" + std::to_string(p);
    if (m.elembits() == 16)
        r += "h";
    return r;
}

std::string json_escape(const std::string& s)
{
    std::string o;
    for (char ch : s)
    {
        if (ch == '"' || ch == '\\')
        {
            o += '\\';
            o += ch;
        }
        else if ((unsigned char)ch < 0x20)
        {
            char b[8];
            snprintf(b, sizeof(b), "\\u%04x", ch);
            o += b;
        }
        else
            o += ch;
    }
    return o;
}

// per-layer timing, collected by the layer observer
struct Profile
{
    struct Row
    {
        std::string type;
        std::string name;
        std::string shape;
        double ms = 0;
        int runs = 0;
        double flops = 0;   // multiply-adds x 2 of one run, 0 if not counted
        std::string kernel; // "3x3s1", "1x1s1"... for convolutions
        std::string row;    // the registry row that ran it in the last timed run (+ " " + kernel path)
    };
    std::vector<Row> rows;          // by layer index
    const Net* net = nullptr;
    bool collect = false;
    FILE* trace = nullptr;          // open Chrome trace, or null
    bool* trace_first = nullptr;
    double trace_origin_ms = 0;
    int trace_tid = 0;
};

// flops of one run of the layers whose work is a matrix product: the
// convolution family (output size x weights), InnerProduct and Gemm with a
// constant K. Others count 0 and show no GFLOP/s.
double layer_flops(const Layer* layer, const ParamDict& pd, const Mat& top, std::string& kernel)
{
    const std::string& t = layer->type;
    if (top.dims == 0)
        return 0;
    if (t == "Convolution" || t == "ConvolutionDepthWise" || t == "Convolution1D" || t == "Convolution3D")
    {
        int kw = pd.get(1, 0), kh = pd.get(11, kw), sw = pd.get(3, 1), sh = pd.get(13, sw);
        char buf[64];
        snprintf(buf, sizeof(buf), "%dx%ds%d%s", kw, kh, sw, sw == sh ? "" : "x");
        kernel = buf;
        if (t == "ConvolutionDepthWise")
            kernel += " dw";
        double outsize = (double)top.w * (top.dims >= 2 ? top.h : 1) * (top.dims == 4 ? top.d : 1);
        return 2.0 * outsize * pd.get(6, 0);
    }
    if (t == "InnerProduct")
        return 2.0 * pd.get(2, 0) * (top.dims == 2 ? top.h : 1);
    if (t == "Gemm" && pd.get(9, 0) > 0)
        return 2.0 * top.w * (top.dims >= 2 ? top.h : 1) * (top.dims == 3 ? top.c : 1) * pd.get(9, 0);
    return 0;
}

void observer(const Layer* layer, int layer_index, double ms, const std::vector<Mat>& tops, void* userdata)
{
    Profile* p = (Profile*)userdata;
    if (!p->collect)
        return;
    if (layer_index >= (int)p->rows.size())
        p->rows.resize(layer_index + 1);
    Profile::Row& r = p->rows[layer_index];
    if (r.runs == 0)
    {
        r.type = layer->type;
        r.name = layer->name;
        r.shape = tops.empty() ? "[]" : shape_string(tops[0]);
        if (p->net && !tops.empty())
            r.flops = layer_flops(layer, p->net->layer_param(layer_index), tops[0], r.kernel);
    }
    r.ms += ms;
    r.runs++;
    if (p->trace)
    {
        double end = now_ms() - p->trace_origin_ms;
        fprintf(p->trace, "%s\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":%d,\"args\":{\"shape\":\"%s\"}}",
                *p->trace_first ? "" : ",", json_escape(layer->name).c_str(), json_escape(layer->type).c_str(),
                (end - ms) * 1000.0, ms * 1000.0, p->trace_tid, tops.empty() ? "[]" : shape_string(tops[0]).c_str());
        *p->trace_first = false;
    }
}

double row_gflops(const Profile::Row& r)
{
    return r.ms > 0 ? r.flops * r.runs / (r.ms * 1e-3) * 1e-9 : 0.0;
}

void print_profile(const Profile& p, const char* model, double peak_gflops, const char* peak_isa)
{
    double total = 0;
    for (const Profile::Row& r : p.rows)
        total += r.ms;
    printf("%s: per-layer time over the timed loops (total %.2f ms)\n", model, total);
    printf("  %-22s %-36s %-20s %-24s %10s %7s %9s\n", "type", "name", "output (pN: elempack)", "row (placement)", "ms", "%", "GFLOP/s");
    for (const Profile::Row& r : p.rows)
    {
        if (r.runs == 0)
            continue;
        printf("  %-22s %-36s %-20s %-24s %10.3f %6.2f%%", r.type.c_str(), r.name.c_str(), r.shape.c_str(), r.row.c_str(), r.ms,
               total > 0 ? 100.0 * r.ms / total : 0.0);
        if (r.flops > 0)
            printf(" %9.1f", row_gflops(r));
        printf("\n");
    }
    // the heaviest 3x3 and 1x1 (non-depthwise) convolutions against the peak
    for (const char* k : {"3x3s1", "1x1s1"})
    {
        const Profile::Row* best = nullptr;
        for (const Profile::Row& r : p.rows)
            if (r.runs && r.type == "Convolution" && r.kernel == k && (!best || r.flops > best->flops))
                best = &r;
        if (!best)
            continue;
        double g = row_gflops(*best);
        printf("  heaviest %s convolution: %s %s, %.3f GFLOP per run, %.1f GFLOP/s = %.1f%% of the measured %s peak %.1f GFLOP/s\n",
               k, best->name.c_str(), best->shape.c_str(), best->flops * 1e-9, g, peak_gflops > 0 ? 100.0 * g / peak_gflops : 0.0,
               peak_isa, peak_gflops);
    }
}

// VmRSS / VmHWM of this process in KiB (/proc/self/status), -1 where there is none
long proc_status_kb(const char* key)
{
    FILE* fp = fopen("/proc/self/status", "r");
    if (!fp)
        return -1;
    char line[256];
    long v = -1;
    const size_t n = strlen(key);
    while (fgets(line, sizeof(line), fp))
        if (strncmp(line, key, n) == 0 && line[n] == ':')
        {
            v = strtol(line + n + 1, nullptr, 10);
            break;
        }
    fclose(fp);
    return v;
}

// resets VmHWM to the current resident size (Linux >= 4.0); false where it cannot
bool reset_peak_rss()
{
    FILE* fp = fopen("/proc/self/clear_refs", "w");
    if (!fp)
        return false;
    bool ok = fputs("5", fp) >= 0;
    return fclose(fp) == 0 && ok;
}

// returns 0 on success
int benchmark(const ModelEntry& model, const std::vector<int>& shape_override, const Settings& s,
              UnlockedPoolAllocator& blob_pool, PoolAllocator& workspace_pool, FILE* trace, bool* trace_first,
              double trace_origin, int model_index, int model_count)
{
    char tag[64];
    snprintf(tag, sizeof(tag), "[%d/%d] ", model_index + 1, model_count);
    tools::progress(kInfo, tag + model.name);
    blob_pool.clear();
    workspace_pool.clear();

    long rss_before_kb = -1;
    if (s.mem)
    {
        if (!reset_peak_rss())
            tools::progress(kInfo, "warning: cannot reset the peak RSS (/proc/self/clear_refs); mem=1 shows the process peak");
        rss_before_kb = proc_status_kb("VmRSS");
    }

    Net net;
    net.opt.lightmode = true;
    net.opt.num_threads = s.num_threads;
    net.opt.blob_allocator = &blob_pool;
    net.opt.workspace_allocator = &workspace_pool;
    net.opt.use_packing_layout = true;
    net.opt.use_fp16_storage = s.fp16 >= 1;
    net.opt.use_fp16_arithmetic = s.fp16 >= 2;
    net.opt.use_fp16_weights = s.fp16_weights;
    if (s.gpu_device >= 0 && s.gpu_backend == "opencl")
    {
        net.opt.use_opencl = true;
        net.opt.opencl_device = s.gpu_device;
    }
    else if (s.gpu_device >= 0)
    {
        net.opt.use_vulkan_compute = true;
        net.opt.vulkan_device = s.gpu_device;
    }

    clear_last_error();
    bool binary = model.path.size() > 10 && model.path.compare(model.path.size() - 10, 10, ".param.bin") == 0;
    if ((binary ? net.load_param_bin(model.path.c_str()) : net.load_param(model.path.c_str())) != 0)
    {
        fprintf(stderr, "%20s  failed: cannot load '%s': %s\n", model.name.c_str(), model.path.c_str(), last_error());
        return -1;
    }
    const double load_t0 = now_ms();
    if (net.load_model_empty() != 0)
    {
        fprintf(stderr, "%20s  failed: cannot create weights: %s\n", model.name.c_str(), last_error());
        return -1;
    }
    if (s.gpu_device >= 0) // first-start cost on the GPU: weights + every layer's create_pipeline + upload
    {
        const Net::LoadTimes& lt = net.load_times();
        fprintf(stderr, "%20s  load_model = %.2f ms (weights %.2f, create_pipeline %.2f, upload %.2f)\n", model.name.c_str(),
                now_ms() - load_t0, lt.weights_ms, lt.create_pipeline_ms, lt.upload_ms);
    }
    if (s.loop_count == 0) // loop count 0: only the start (load_model), no inference
        return 0;

    std::vector<int> inputs = net.input_indexes();
    std::vector<int> outputs = net.output_indexes();
    std::vector<Mat> in_mats;
    for (size_t i = 0; i < inputs.size(); i++)
    {
        std::vector<int> shp = !shape_override.empty() ? shape_override : (!model.shape.empty() && i == 0) ? model.shape : tools::declared_input_shape(net, inputs[i]);
        if (shp.empty())
        {
            fprintf(stderr, "%20s  failed: input '%s' has no shape (give shape=[w,h,c] or add it to shapes.txt)\n",
                    model.name.c_str(), net.blobs()[inputs[i]].name.c_str());
            return -1;
        }
        Mat m = make_input(shp, nullptr);
        if (m.empty())
        {
            fprintf(stderr, "%20s  failed: out of memory for the input\n", model.name.c_str());
            return -1;
        }
        in_mats.push_back(m);
    }

    if (s.device_auto)
    {
        // the choice is timed (or read from the cache) on these inputs, then
        // the model loads again on the device chosen
        std::vector<std::pair<std::string, Mat> > named;
        for (size_t i = 0; i < inputs.size(); i++)
            named.push_back(std::make_pair(net.blobs()[inputs[i]].name, in_mats[i]));
        const std::string path = model.path;
        NetLoader loader = [path, binary](Net& n) -> int {
            int r = binary ? n.load_param_bin(path.c_str()) : n.load_param(path.c_str());
            return r != 0 ? r : n.load_model_empty();
        };
        DeviceChoice choice;
        if (choose_device(hash_file(path.c_str(), 2), net.opt, loader, named, choice) != 0)
        {
            fprintf(stderr, "%20s  failed: device=auto could not time the model: %s\n", model.name.c_str(), last_error());
            return -1;
        }
        fprintf(stderr, "%20s  %s\n", model.name.c_str(), choice.summary().c_str());
        if (choice.backend != BACKEND_CPU)
        {
            net.clear();
            apply_device_choice(choice, net.opt);
            if (loader(net) != 0)
            {
                fprintf(stderr, "%20s  failed: cannot load on the device chosen: %s\n", model.name.c_str(), last_error());
                return -1;
            }
        }
    }

    Profile prof;
    prof.trace = trace;
    prof.trace_first = trace_first;
    prof.trace_origin_ms = trace_origin;
    prof.trace_tid = model_index;
    prof.net = &net;
    const bool observe = s.profile || trace;

    auto run_once = [&](bool timed, double& ms) -> int {
        prof.collect = timed && observe;
        double t0 = now_ms();
        Extractor ex = net.create_extractor();
        if (observe)
            ex.set_layer_observer(observer, &prof);
        for (size_t i = 0; i < inputs.size(); i++)
            if (ex.input(inputs[i], in_mats[i]) != 0)
                return -1;
        for (int o : outputs)
        {
            Mat out;
            if (ex.extract(o, out) != 0)
                return -1;
        }
        ms = now_ms() - t0;
        if (prof.collect && s.profile) // the row column: where each layer ran (Extractor::placement)
        {
            std::vector<LayerPlacement> placed = ex.placement();
            for (size_t li = 0; li < placed.size() && li < prof.rows.size(); li++)
                if (placed[li].ran)
                    prof.rows[li].row = std::string(placed[li].row) + (placed[li].path ? std::string(" ") + placed[li].path : "");
        }
        return 0;
    };

    if (s.cooling_down)
    {
        tools::progress(kInfo, tag + model.name + ": cooling down for 10 s (cooling down = 0 skips it)");
        std::this_thread::sleep_for(std::chrono::seconds(10)); // let the SoC cool down, as benchncnn
    }

    for (int i = 0; i < s.warmup_count; i++)
    {
        double ms;
        if (run_once(false, ms) != 0)
        {
            fprintf(stderr, "%20s  failed: %s\n", model.name.c_str(), last_error());
            return -1;
        }
        if (i == 0 && s.gpu_device >= 0) // the rest of the first-start cost: the first inference
            fprintf(stderr, "%20s  first_run = %.2f ms\n", model.name.c_str(), ms);
    }

    double tmin = 1e300, tmax = 0, tsum = 0;
    for (int i = 0; i < s.loop_count; i++)
    {
        double ms;
        if (run_once(true, ms) != 0)
        {
            fprintf(stderr, "%20s  failed: %s\n", model.name.c_str(), last_error());
            return -1;
        }
        tmin = std::min(tmin, ms);
        tmax = std::max(tmax, ms);
        tsum += ms;
    }
    printf("%20s  min = %7.2f  max = %7.2f  avg = %7.2f\n", model.name.c_str(), tmin, tmax, tsum / s.loop_count);
    if (s.mem)
    {
        const long hwm = proc_status_kb("VmHWM");
        if (hwm >= 0 && rss_before_kb >= 0)
            printf("%20s  peak_rss = %.1f MB  (before load %.1f MB, process peak %.1f MB)\n", model.name.c_str(),
                   (hwm - rss_before_kb) / 1024.0, rss_before_kb / 1024.0, hwm / 1024.0);
        else
            printf("%20s  peak_rss = unknown (no /proc/self/status)\n", model.name.c_str());
    }
    fflush(stdout);
    if (s.profile)
    {
        static double peak = -1;
        static const char* peak_isa = "";
        if (peak < 0)
            peak = measure_fma_peak_gflops(s.num_threads, 0.5, &peak_isa);
        print_profile(prof, model.name.c_str(), peak, peak_isa);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    Settings s;
    s.num_threads = get_physical_big_cpu_count();
    if (s.num_threads <= 0)
        s.num_threads = get_cpu_count();
    std::vector<std::string> params;
    std::vector<int> shape_override;

    int std_rc = tools::handle_standard_options(kInfo, argc, argv);
    if (std_rc >= 0)
        return std_rc;
    int positional = 0;
    for (int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        size_t eq = a.find('=');
        if (eq == std::string::npos)
        {
            char* end = nullptr;
            long v = strtol(a.c_str(), &end, 10);
            if (a.empty() || *end != 0 || positional >= 5)
            {
                if (a.size() > 1 && a[0] == '-' && (a[1] < '0' || a[1] > '9'))
                    return tools::usage_error(kInfo, "unknown option '" + a + "'");
                return tools::usage_error(kInfo, positional >= 5 ? "too many positional arguments at '" + a + "'" : "bad argument '" + a + "' (a number or key=value)");
            }
            int* slots[5] = {&s.loop_count, &s.num_threads, &s.powersave, &s.gpu_device, &s.cooling_down};
            *slots[positional++] = (int)v;
            continue;
        }
        std::string k = a.substr(0, eq), v = a.substr(eq + 1);
        if (k == "param")
            params.push_back(v);
        else if (k == "shape")
        {
            if (!parse_shape(v, shape_override))
                return tools::usage_error(kInfo, "bad shape '" + v + "' (expected [w,h,c])");
        }
        else if (k == "profile" && (v == "0" || v == "1"))
            s.profile = v == "1";
        else if (k == "trace")
            s.trace_path = v;
        else if (k == "backend" && (v == "vulkan" || v == "opencl"))
            s.gpu_backend = v;
        else if (k == "fp16" && (v == "0" || v == "1" || v == "2"))
            s.fp16 = v[0] - '0';
        else if (k == "fp16w" && (v == "0" || v == "1"))
            s.fp16_weights = v == "1";
        else if (k == "mem" && (v == "0" || v == "1"))
            s.mem = v == "1";
        else if (k == "device" && (v == "auto" || v == "cpu"))
            s.device_auto = v == "auto";
        else if (k == "param" || k == "shape" || k == "profile" || k == "trace" || k == "backend" || k == "fp16" || k == "fp16w" || k == "mem" || k == "device")
            return tools::usage_error(kInfo, "bad value in '" + a + "'");
        else
            return tools::usage_error(kInfo, "unknown option '" + k + "'");
    }
    if (s.loop_count < 0 || s.num_threads < 1 || s.powersave < 0 || s.powersave > 2)
        return tools::usage_error(kInfo, "loop count must be >= 0, threads >= 1, powersave 0..2");

    // the models
    std::vector<ModelEntry> models;
    if (params.empty())
    {
        std::vector<std::string> dirs;
        dirs.push_back(KITE_BENCHMARK_MODEL_DIR);
        if (const char* e = getenv("KITE_SHARED_DIR"))
            dirs.push_back(std::string(e) + "/models/ncnn");
        dirs.push_back(std::string(KITE_DEFAULT_SHARED_DIR) + "/models/ncnn");
        dirs.push_back(".");
        for (const std::string& d : dirs)
        {
            if (d.empty() || d == "/models/ncnn" || !is_dir(d))
                continue;
            models = models_in_dir(d);
            if (!models.empty())
                break;
        }
        if (models.empty())
        {
            return tools::failure(kInfo, "no models found (benchmark/models, $KITE_SHARED_DIR/models/ncnn, .); give param=FILE");
        }
    }
    for (const std::string& p : params)
    {
        if (is_dir(p))
        {
            std::vector<ModelEntry> v = models_in_dir(p);
            if (v.empty())
                tools::progress(kInfo, "warning: no .param files in " + tools::quoted(p));
            models.insert(models.end(), v.begin(), v.end());
        }
        else if (is_file(p))
        {
            ModelEntry m;
            m.path = p;
            m.name = base_name(p);
            // a shapes.txt next to the file may know the input shape
            size_t sl = p.find_last_of('/');
            auto shapes = read_shapes(sl == std::string::npos ? "." : p.substr(0, sl));
            auto it = shapes.find(m.name);
            if (it != shapes.end())
                m.shape = it->second;
            models.push_back(m);
        }
        else
        {
            struct stat st;
            int err = stat(p.c_str(), &st) == 0 ? EISDIR : errno;
            if (err == EISDIR) // neither a file nor a folder: a device, a fifo...
                return tools::failure(kInfo, tools::quoted(p) + " is not a .param file or a folder");
            return tools::failure(kInfo, tools::file_error("cannot open", p, err));
        }
    }

    set_cpu_powersave(s.powersave);

    printf("loop_count = %d\n", s.loop_count);
    printf("num_threads = %d\n", s.num_threads);
    printf("powersave = %d\n", get_cpu_powersave());
    printf("gpu_device = %d\n", s.gpu_device);
    printf("cooling_down = %d\n", s.cooling_down);
    if (s.gpu_device >= 0)
        printf("gpu_backend = %s\n", s.gpu_backend.c_str());
    fflush(stdout);

    UnlockedPoolAllocator blob_pool;
    blob_pool.set_size_compare_ratio(0.f);
    PoolAllocator workspace_pool;
    workspace_pool.set_size_compare_ratio(0.f);

    FILE* trace = nullptr;
    bool trace_first = true;
    const double origin = now_ms();
    if (!s.trace_path.empty())
    {
        trace = fopen(s.trace_path.c_str(), "w");
        if (!trace)
            return tools::failure(kInfo, tools::file_error("cannot create", s.trace_path));
        fprintf(trace, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
        for (size_t i = 0; i < models.size(); i++)
        {
            fprintf(trace, "%s\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
                    trace_first ? "" : ",", (int)i, json_escape(models[i].name).c_str());
            trace_first = false;
        }
    }

    int failed = 0;
    for (size_t i = 0; i < models.size(); i++)
    {
        if (benchmark(models[i], shape_override, s, blob_pool, workspace_pool, trace, &trace_first, origin, (int)i, (int)models.size()) != 0)
            failed++;
    }

    if (trace)
    {
        fprintf(trace, "\n]}\n");
        if (fclose(trace) != 0)
        {
            return tools::failure(kInfo, tools::file_error("cannot write", s.trace_path));
        }
    }
    return failed ? 1 : 0;
}
