// kitecheck: run every layer of a model on every backend on the SAME inputs
// and say which layer is the first to disagree with the reference.
//
//   kitecheck MODEL.param MODEL.bin|random [shape=[w,h,c]] [shape=BLOB:[w,h,c]]...
//             [backends=reference,cpu,vulkan,opencl] [fp16=0|1|2] [seed=N] [threads=N]
//
// 1. The whole model runs once with the reference implementations (every
//    layer's CPU_ISA_NONE row, fp32, no packing) on seeded random inputs (the
//    same values kiterun gives for that seed); every blob is kept.
// 2. Each layer then runs alone, as a one-layer Net fed the reference run's
//    blobs for its bottoms, on each backend asked for: `cpu` expands to every
//    CPU ISA row of that layer type that this machine can run (cpu-avx2,
//    cpu-neon, ...), `vulkan` / `opencl` run it on the first GPU device of
//    that API (fp16=1|2 as kiterun: fp16 storage / arithmetic there and on the
//    CPU rows), `reference` runs the reference row again (a sanity line).
//    Each backend row is compared with the same one-layer net on the
//    reference implementation; the `reference` row compares that one with
//    the full reference run (not judged for int8 layers and where an input
//    blob is int8-stored there, between int8 layers: " int8").
// 3. One line per layer and backend:
//      check <index> <type> <name> <backend> max_rel=<r> cosine=<c>
//    (max_rel: max |got - ref| / max |ref| over the layer's finite values; a
//    GPU layer that fell back to the CPU ends with " ran_on=cpu", a layer whose
//    reference output holds inf/NaN (random weights overflowing, max pooling
//    over padding only) with " ref_nonfinite": neither is judged),
//    then `first bad layer: <name> on <backend>` or `all layers agree`.
//
// Thresholds: fp32 max_rel <= 1e-3 and cosine >= 0.99999; fp16 storage or
// arithmetic max_rel <= 3e-2 and cosine >= 0.999 (per layer, so an error
// never accumulates over the graph).
//
// Testing hook: KITECHECK_BREAK=<layer name>@<backend> perturbs that layer's
// output on that backend (backend as printed, or a prefix of it such as
// `vulkan`) before the comparison, as a broken driver would; the tests use it
// to show that the layer is named.
//
// Exit status (tools/common/args.h): 0 all layers agree, 1 a layer disagrees
// (stdout ends with "first bad layer: ...") or a model that cannot be loaded
// or run (one line "kitecheck: error: ..." on stderr), 2 a wrong command line.

#include "cpu.h"
#include "layer.h"
#include "log.h"
#include "mat.h"
#include "modelbin.h"
#include "net.h"

#include "layer/convolution.h"
#include "layer/innerproduct.h"

#include "common/args.h"
#include "common/input_shape.h"
#include "common/random_modelbin.h"
#include "common/rng.h"
#include "reader.h"
#include "writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

using namespace kite;
using namespace kite::tools;

namespace {

const ToolInfo kInfo = {
    "kitecheck",
    "MODEL.param MODEL.bin|random [shape=[w,h,c]] [shape=BLOB:[w,h,c]]... [backends=LIST] [fp16=0|1|2] [seed=N] [threads=N]\n--types",
    "Run every layer of a model alone on every backend on the reference run's inputs and name the first that disagrees.",
    {{"MODEL.param", "the graph (text .param)"},
     {"MODEL.bin|random", "its weights, or seeded random ones"},
     {"shape=[w,h,c] / shape=BLOB:[w,h,c]", "input shapes (default: the Input layers' own)"},
     {"backends=reference,cpu,vulkan,opencl", "what to compare (cpu: every CPU ISA row of each layer type this machine runs)"},
     {"fp16=0|1|2", "1: fp16 storage, 2: and fp16 arithmetic on the optimised rows and GPUs (looser thresholds)"},
     {"seed=N", "seed of the random inputs and weights (default 1)"},
     {"threads=N", "CPU threads (default 1)"},
     {"--types", "list the ncnn layer type indices and exit"}},
    "Prints 'check <index> <type> <name> <backend> max_rel=<r> cosine=<c>' per layer and backend, then\n"
    "'first bad layer: <name> on <backend>' (exit 1) or 'all layers agree' (exit 0); exit 1 with one\n"
    "error line on stderr for a model that cannot be loaded or run. KITECHECK_BREAK=<layer>@<backend> perturbs\n"
    "that layer's output there (tests)."};

std::string g_first_error;

void log_sink(int level, const char* message, void*)
{
    if (level == LOG_ERROR && g_first_error.empty())
        g_first_error = message;
}

int fail(const std::string& what)
{
    std::string msg = "kitecheck: error: " + what;
    if (!g_first_error.empty())
        msg += ": " + g_first_error;
    for (char& ch : msg)
        if (ch == '\n')
            ch = ' ';
    fprintf(stderr, "%s\n", msg.c_str());
    return EXIT_RUNTIME;
}

// fp32, elempack 1 (extract type 0 already gives that; int8 / fp16 to be safe)
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
    if (f.elemsize == 1)
    {
        Mat u;
        cast_int8_to_float32(f, u);
        f = u;
    }
    else if (f.elemsize == 2)
    {
        Mat u;
        cast_float16_to_float32(f, u);
        f = u;
    }
    return f;
}

std::vector<float> flat(const Mat& m)
{
    std::vector<float> v;
    if (m.empty())
        return v;
    const size_t plane = (size_t)m.w * m.h * m.d;
    const int channels = m.dims >= 3 ? m.c : 1;
    v.reserve(plane * channels);
    for (int q = 0; q < channels; q++)
    {
        const float* p = (const float*)m.data + m.cstep * q;
        v.insert(v.end(), p, p + plane);
    }
    return v;
}

bool same_shape(const Mat& a, const Mat& b)
{
    if (a.empty() || b.empty())
        return a.empty() == b.empty();
    return a.dims == b.dims && a.w == b.w && a.h == b.h && a.d == b.d && a.c == b.c;
}

struct Diff
{
    double max_abs = 0, ref_max = 0, dot = 0, na = 0, nb = 0;
    bool shape_mismatch = false;
    bool nonfinite_mismatch = false;
    bool ref_nonfinite = false; // the reference itself overflowed: nothing to judge
};

void accumulate(Diff& d, const Mat& ref, const Mat& got)
{
    if (!same_shape(ref, got))
    {
        d.shape_mismatch = true;
        return;
    }
    std::vector<float> a = flat(ref), b = flat(got);
    for (size_t i = 0; i < a.size(); i++)
    {
        if (!std::isfinite(a[i]))
            d.ref_nonfinite = true;
        if (!std::isfinite(a[i]) || !std::isfinite(b[i]))
        {
            // the same non-finite value on both sides is agreement
            if (!(std::isnan(a[i]) && std::isnan(b[i])) && a[i] != b[i])
                d.nonfinite_mismatch = true;
            continue;
        }
        d.max_abs = std::max(d.max_abs, (double)std::fabs(a[i] - b[i]));
        d.ref_max = std::max(d.ref_max, (double)std::fabs(a[i]));
        d.dot += (double)a[i] * b[i];
        d.na += (double)a[i] * a[i];
        d.nb += (double)b[i] * b[i];
    }
}

double max_rel(const Diff& d)
{
    if (d.shape_mismatch || d.nonfinite_mismatch)
        return INFINITY;
    if (d.ref_max == 0)
        return d.max_abs == 0 ? 0 : INFINITY;
    return d.max_abs / d.ref_max;
}

double cosine(const Diff& d)
{
    if (d.shape_mismatch || d.nonfinite_mismatch)
        return 0;
    if (d.na == 0 && d.nb == 0)
        return 1;
    if (d.na == 0 || d.nb == 0)
        return 0;
    return d.dot / std::sqrt(d.na * d.nb);
}

struct BackendRun
{
    std::string label; // reference, cpu-avx2, vulkan, opencl
    int backend;       // Backend
    int isa;           // CPU rows: Option::max_cpu_isa
};

// the CPU ISA rows of `type` this machine runs, best first (no reference)
std::vector<int> cpu_isa_rows(const std::string& type)
{
    std::vector<int> isas;
    int count = 0;
    const LayerRegistryEntry* reg = layer_registry(&count);
    for (int i = 0; i < count; i++)
    {
        const LayerRegistryEntry& e = reg[i];
        if (type != e.type || e.backend != BACKEND_CPU || e.isa == CPU_ISA_NONE || !cpu_support_isa(e.isa))
            continue;
        if (std::find(isas.begin(), isas.end(), e.isa) == isas.end())
            isas.push_back(e.isa);
    }
    return isas;
}

} // namespace

int main(int argc, char** argv)
{
    {
        int rc = handle_standard_options(kInfo, argc, argv);
        if (rc >= 0)
            return rc;
    }
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && !(i == 1 && strcmp(argv[i], "--types") == 0))
            return usage_error(kInfo, "unknown option '" + std::string(argv[i]) + "'");
    if (argc > 2 && strcmp(argv[1], "--types") == 0)
        return usage_error(kInfo, "--types takes no other argument");
    if (argc < 2 || (argc < 3 && strcmp(argv[1], "--types") != 0))
        return usage_error(kInfo, "expected MODEL.param MODEL.bin|random");
    set_log_sink(log_sink, nullptr);
    if (argc == 2 && strcmp(argv[1], "--types") == 0)
    {
        // the ncnn layer type indices (a .param.bin refers to types by them)
        for (int i = 0; i < 1024; i++)
        {
            const char* t = layer_type_name(i);
            if (t && *t)
                printf("%s %d\n", t, i);
        }
        return 0;
    }
    const std::string param_path = argv[1], bin_arg = argv[2];
    std::vector<std::string> shape_args;
    std::vector<std::string> backends = {"reference", "cpu", "vulkan", "opencl"};
    int fp16 = 0, threads = 1;
    long long seed = 1;
    for (int i = 3; i < argc; i++)
    {
        std::string a = argv[i];
        size_t eq = a.find('=');
        if (eq == std::string::npos)
            return usage_error(kInfo, "bad argument '" + a + "' (expected key=value)");
        std::string k = a.substr(0, eq), v = a.substr(eq + 1);
        long long n = 0;
        if (k == "shape")
            shape_args.push_back(v);
        else if (k == "backends")
        {
            backends.clear();
            size_t p = 0;
            while (p <= v.size())
            {
                size_t c = v.find(',', p);
                std::string b = v.substr(p, c == std::string::npos ? std::string::npos : c - p);
                if (b != "reference" && b != "cpu" && b != "vulkan" && b != "opencl")
                    return usage_error(kInfo, "backends=" + v + ": unknown backend '" + b + "' (reference, cpu, vulkan, opencl)");
                backends.push_back(b);
                if (c == std::string::npos)
                    break;
                p = c + 1;
            }
        }
        else if (k == "fp16" && parse_int_arg(v, n) && n >= 0 && n <= 2)
            fp16 = (int)n;
        else if (k == "seed" && parse_int_arg(v, n))
            seed = n;
        else if (k == "threads" && parse_int_arg(v, n) && n >= 1 && n <= 1024)
            threads = (int)n;
        else
            return usage_error(kInfo, "bad argument '" + a + "'");
    }

    // the weights as a .bin file (random ones are written to a temporary file
    // so that the per-layer nets and the reference read the same values)
    // a missing file: named with the OS reason, before anything else
    for (int i = 1; i <= 2; i++)
    {
        if (i == 2 && bin_arg == "random")
            continue;
        FILE* fp = fopen(argv[i], "rb");
        if (!fp)
            return fail(file_error("cannot open", argv[i]));
        fclose(fp);
    }
    std::string bin_path = bin_arg, tmp_bin;
    if (bin_arg == "random")
    {
        Net net;
        net.opt.use_packing_layout = false;
        if (net.load_param(param_path.c_str()) != 0)
            return fail("cannot load param '" + param_path + "'");
        RandomModelBin rmb((uint64_t)seed);
        ModelBinRecorder rec(rmb);
        if (net.load_model(rec) != 0)
            return fail("cannot create random weights");
        const char* tmpdir = getenv("TMPDIR");
        tmp_bin = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/kitecheck." + std::to_string((long)getpid()) + ".bin";
        FILE* fp = fopen(tmp_bin.c_str(), "wb");
        if (!fp)
            return fail("cannot create '" + tmp_bin + "'");
        int wr = rec.write(fp);
        if (fclose(fp) != 0 || wr != 0)
        {
            unlink(tmp_bin.c_str());
            return fail("write error on '" + tmp_bin + "'");
        }
        bin_path = tmp_bin;
    }
    struct TmpRemover
    {
        std::string path;
        ~TmpRemover()
        {
            if (!path.empty())
                unlink(path.c_str());
        }
    } tmp_remover{tmp_bin};

    // the graph with every layer's weights
    convert::Graph g;
    {
        std::string err;
        if (convert::read_model(param_path, bin_path, g, err) != 0)
            return fail(err);
    }

    // 1. the reference run, every blob kept
    Net ref;
    ref.opt.num_threads = threads;
    ref.opt.max_cpu_isa = CPU_ISA_NONE;
    ref.opt.use_packing_layout = false;
    ref.opt.use_fp16_storage = false;
    ref.opt.use_fp16_arithmetic = false;
    if (ref.load_param(param_path.c_str()) != 0)
        return fail("cannot load param '" + param_path + "'");
    if (ref.load_model(bin_path.c_str()) != 0)
        return fail("cannot load model '" + bin_arg + "'");
    if (ref.layers().size() != g.layers.size())
        return fail("internal: the graph read back has " + std::to_string(g.layers.size()) + " layers, the net " +
                    std::to_string(ref.layers().size()));

    const std::vector<int> input_indexes = ref.input_indexes();
    std::vector<std::string> input_names;
    for (int i : input_indexes)
        input_names.push_back(ref.blobs()[i].name);
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
            default_shape = s;
        else if (std::find(input_names.begin(), input_names.end(), blob) == input_names.end())
            return fail("shape=" + a + ": '" + blob + "' is not an Input blob of the model");
        else
            named_shapes[blob] = s;
    }

    std::vector<Mat> blob_ref(ref.blobs().size());
    std::vector<char> blob_int8(ref.blobs().size(), 0); // stored as int8 in the full run
    {
        Extractor ex = ref.create_extractor();
        ex.set_light_mode(false);
        for (size_t i = 0; i < input_names.size(); i++)
        {
            const std::string& name = input_names[i];
            std::vector<int> s = named_shapes.count(name) ? named_shapes[name] : !default_shape.empty() ? default_shape : declared_input_shape(ref, input_indexes[i]);
            if (s.empty())
                return fail("input blob '" + name + "' has no shape in the param: give shape=" + name + ":[w,h,c]");
            const std::string misfit = input_shape_misfit(name, declared_input_shape(ref, input_indexes[i]), s);
            if (!misfit.empty())
                return usage_error(kInfo, misfit);
            Mat m = make_shape_mat(s);
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
            if (ex.input(input_indexes[i], m) != 0)
                return fail("cannot set input '" + name + "'");
        }
        for (size_t b = 0; b < ref.blobs().size(); b++)
        {
            Mat m;
            if (ex.extract((int)b, m, 1) != 0)
                return fail("the reference run failed computing blob '" + ref.blobs()[b].name + "'");
            blob_int8[b] = !m.empty() && m.elempack > 0 && m.elemsize / m.elempack == 1;
            blob_ref[b] = to_fp32(m);
        }
    }

    const double fp_rel = fp16 ? 3e-2 : 1e-3;
    const double fp_cos = fp16 ? 0.999 : 0.99999;
    std::string break_layer, break_backend;
    if (const char* bk = getenv("KITECHECK_BREAK"))
    {
        std::string s = bk;
        size_t at = s.rfind('@');
        if (at != std::string::npos)
        {
            break_layer = s.substr(0, at);
            break_backend = s.substr(at + 1);
        }
    }

    // 2. every layer alone on every backend
    std::string first_bad_layer, first_bad_backend;
    int checked = 0;
    for (size_t li = 0; li < g.layers.size(); li++)
    {
        const convert::Layer& L = g.layers[li];
        if (L.type == "Input")
            continue;

        // the one-layer graph: an Input per distinct bottom, then the layer
        convert::Graph mini;
        std::vector<std::string> seen;
        for (const std::string& b : L.bottoms)
            if (std::find(seen.begin(), seen.end(), b) == seen.end())
            {
                seen.push_back(b);
                mini.add_input(b);
            }
        mini.layers.push_back(L);
        const std::string text = convert::param_text(mini);
        const std::vector<unsigned char> bin = convert::bin_bytes(mini);

        std::vector<BackendRun> runs;
        for (const std::string& b : backends)
        {
            if (b == "reference")
                runs.push_back({"reference", BACKEND_CPU, CPU_ISA_NONE});
            else if (b == "cpu")
                for (int isa : cpu_isa_rows(L.type))
                    runs.push_back({std::string("cpu-") + cpu_isa_name(isa), BACKEND_CPU, isa});
            else if (b == "vulkan")
                runs.push_back({"vulkan", BACKEND_VULKAN, -1});
            else if (b == "opencl")
                runs.push_back({"opencl", BACKEND_OPENCL, -1});
        }

        // run the layer alone on one backend row: its tops as fp32, where the layer ran
        auto run_one = [&](const BackendRun& r, std::vector<Mat>& outs, int& ran) -> int {
            Net net;
            net.opt.num_threads = threads;
            net.opt.max_cpu_isa = r.isa;
            const bool reduced = fp16 != 0 && r.isa != CPU_ISA_NONE;
            net.opt.use_fp16_storage = reduced;
            net.opt.use_fp16_arithmetic = reduced && fp16 == 2;
            net.opt.use_vulkan_compute = r.backend == BACKEND_VULKAN;
            net.opt.use_opencl = r.backend == BACKEND_OPENCL;
            g_first_error.clear();
            if (net.load_param_mem(text.c_str()) != 0)
                return -2;
            if (!bin.empty() ? net.load_model(bin.data(), bin.size()) == 0 : net.load_model_empty() != 0)
                return -3;
            Extractor ex = net.create_extractor();
            ex.set_light_mode(false);
            for (const std::string& b : seen)
                if (ex.input(b.c_str(), blob_ref[ref.find_blob_index_by_name(b.c_str())]) != 0)
                    return -1;
            outs.assign(L.tops.size(), Mat());
            for (size_t t = 0; t < L.tops.size(); t++)
            {
                Mat m;
                if (ex.extract(L.tops[t].c_str(), m) != 0)
                    return -1;
                outs[t] = to_fp32(m);
            }
            ran = ex.layer_backend((int)net.layers().size() - 1);
            return 0;
        };

        // the baseline: this layer alone on the reference implementation. The
        // full reference run's tops are compared on the `reference` row only:
        // a blob the full run stores as int8 (between int8 layers) reaches the
        // one-layer net as plain numbers, so that row is not judged there.
        std::vector<Mat> base;
        int base_ran = -1;
        const int base_ret = run_one({"reference", BACKEND_CPU, CPU_ISA_NONE}, base, base_ran);
        if (base_ret == -2)
            return fail("layer " + std::to_string(li) + " '" + L.name + "' (" + L.type + "): cannot load it alone");
        if (base_ret == -3)
            return fail("layer " + std::to_string(li) + " '" + L.name + "' (" + L.type + "): cannot load its weights alone");
        // int8 layers (int8 weights) or int8-stored inputs: the full run's
        // quantisation context differs from a one-layer net's
        bool int8_input = false;
        for (const std::string& b : seen)
            int8_input = int8_input || blob_int8[ref.find_blob_index_by_name(b.c_str())];
        for (const convert::Weight& w : L.weights)
            int8_input = int8_input || w.storage == convert::Weight::INT8;
        // int8_scale_term of the convolution / inner-product family (the same id in both)
        static_assert((int)Convolution::PARAM_INT8_SCALE_TERM == (int)InnerProduct::PARAM_INT8_SCALE_TERM, "int8 ids");
        if ((L.type.find("Convolution") != std::string::npos || L.type == "InnerProduct")
            && L.params.get_int(Convolution::PARAM_INT8_SCALE_TERM, 0) != 0)
            int8_input = true;
        if (L.type == "Quantize" || L.type == "Dequantize" || L.type == "Requantize")
            int8_input = true;

        for (const BackendRun& r : runs)
        {
            const bool is_ref = r.isa == CPU_ISA_NONE && r.backend == BACKEND_CPU;
            std::vector<Mat> outs;
            int ran = -1;
            int ret = base_ret;
            if (is_ref)
                outs = base;
            else if (base_ret == 0)
                ret = run_one(r, outs, ran);
            if (ret == -2 || ret == -3)
                return fail("layer " + std::to_string(li) + " '" + L.name + "' (" + L.type + "): cannot load it alone on " + r.label);
            const bool ok = ret == 0;
            Diff d;
            for (size_t t = 0; ok && t < L.tops.size(); t++)
            {
                Mat m = outs[t];
                if (!break_layer.empty() && break_layer == L.name && r.label.compare(0, break_backend.size(), break_backend) == 0 && !m.empty())
                {
                    // KITECHECK_BREAK: what a broken kernel would return
                    Mat c = m.clone();
                    float* p = (float*)c.data;
                    const size_t n = c.dims >= 3 ? c.cstep * c.c : (size_t)c.w * c.h * c.d;
                    for (size_t j = 0; j < n; j++)
                        p[j] += 0.05f * (float)std::sin((double)j * 0.7) * (1.f + std::fabs(p[j]));
                    m = c;
                }
                accumulate(d, is_ref ? blob_ref[ref.find_blob_index_by_name(L.tops[t].c_str())] : base[t], m);
            }
            const bool fell_back = ok && r.backend != BACKEND_CPU && ran == BACKEND_CPU;
            const bool unjudged = fell_back || (ok && d.ref_nonfinite && !d.shape_mismatch) || (is_ref && int8_input);
            const double mr = ok ? max_rel(d) : INFINITY;
            const double cs = ok ? cosine(d) : 0;
            printf("check %zu %s %s %s max_rel=%.3g cosine=%.8f%s%s%s%s\n", li, L.type.c_str(), L.name.c_str(), r.label.c_str(), mr, cs,
                   fell_back ? " ran_on=cpu" : "", ok && d.ref_nonfinite ? " ref_nonfinite" : "", is_ref && int8_input ? " int8" : "",
                   ok ? "" : " error=run_failed");
            checked++;
            const bool bad = !ok || (!unjudged && (!(mr <= fp_rel) || !(cs >= fp_cos)));
            if (bad && first_bad_layer.empty())
            {
                first_bad_layer = L.name;
                first_bad_backend = r.label;
            }
        }
    }
    fflush(stdout);
    if (!first_bad_layer.empty())
    {
        printf("first bad layer: %s on %s\n", first_bad_layer.c_str(), first_bad_backend.c_str());
        return 1;
    }
    printf("all layers agree\n");
    fprintf(stderr, "kitecheck: %d checks\n", checked);
    return 0;
}
