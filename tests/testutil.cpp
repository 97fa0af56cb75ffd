#include "testutil.h"

#include "gpu/cpu_fallback.h"

#include "cpu.h"
#include "gpu/cpu_fallback.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <sstream>

#include "platform.h"
#if KITE_VULKAN
namespace kite {
namespace vk {
int validation_error_count(); // src/gpu/vulkan (KITE_VULKAN_VALIDATION=1)
}
} // namespace kite
#endif

namespace kite {
namespace test {

static uint64_t g_seed = 0;
static std::mt19937_64 g_rng;

uint64_t seed()
{
    if (g_seed == 0)
    {
        const char* s = getenv("KITE_TEST_SEED");
        g_seed = s ? strtoull(s, nullptr, 10) : 7;
        if (g_seed == 0)
            g_seed = 7;
        g_rng.seed(g_seed);
    }
    return g_seed;
}

void reseed(uint64_t salt)
{
    g_rng.seed(seed() * 1000003ull + salt);
}

float rand_float(float lo, float hi)
{
    seed();
    std::uniform_real_distribution<float> d(lo, hi);
    return d(g_rng);
}

int rand_int(int lo, int hi)
{
    seed();
    std::uniform_int_distribution<int> d(lo, hi);
    return d(g_rng);
}

static Mat fill_random(Mat m, float lo, float hi)
{
    const int channels = m.dims >= 3 ? m.c : 1;
    const size_t n = (size_t)m.w * m.h * m.d;
    for (int q = 0; q < channels; q++)
    {
        float* p = (float*)m.data + (m.dims >= 3 ? m.cstep * q : 0);
        for (size_t i = 0; i < n; i++)
            p[i] = rand_float(lo, hi);
    }
    return m;
}

Mat RandomMat(int w, float lo, float hi) { return fill_random(Mat(w), lo, hi); }
Mat RandomMat(int w, int h, float lo, float hi) { return fill_random(Mat(w, h), lo, hi); }
Mat RandomMat(int w, int h, int c, float lo, float hi) { return fill_random(Mat(w, h, c), lo, hi); }
Mat RandomMat(int w, int h, int d, int c, float lo, float hi) { return fill_random(Mat(w, h, d, c), lo, hi); }

Mat RandomS8Mat(int w, int lo, int hi)
{
    Mat m(w, (size_t)1u);
    for (int i = 0; i < w; i++)
        ((signed char*)m.data)[i] = (signed char)rand_int(lo, hi);
    return m;
}

Mat IntArrayMat(const std::vector<int>& v)
{
    Mat m((int)v.size());
    for (size_t i = 0; i < v.size(); i++)
        ((int*)m.data)[i] = v[i];
    return m;
}

Mat FloatArrayMat(const std::vector<float>& v)
{
    Mat m((int)v.size());
    for (size_t i = 0; i < v.size(); i++)
        ((float*)m.data)[i] = v[i];
    return m;
}

Mat to_fp32_pack1(const Mat& m, bool is_bf16)
{
    Mat f;
    cast_to_float32(m, f, is_bf16);
    Mat u;
    convert_packing(f, u, 1);
    return u;
}

std::string shape_string(const Mat& m)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "[dims=%d w=%d h=%d d=%d c=%d elempack=%d elemsize=%zu]", m.dims, m.w, m.h, m.d, m.c, m.elempack, m.elemsize);
    return buf;
}

std::string compare_mat(const Mat& a0, const Mat& b0, float epsilon)
{
    if (a0.empty() || b0.empty())
        return a0.empty() && b0.empty() ? "" : "one of the outputs is empty";
    Mat a = to_fp32_pack1(a0);
    Mat b = to_fp32_pack1(b0);
    if (a.dims != b.dims || a.w != b.w || a.h != b.h || a.d != b.d || a.c != b.c)
        return "shape " + shape_string(a) + " != reference " + shape_string(b);
    const int channels = a.dims >= 3 ? a.c : 1;
    const size_t n = (size_t)a.w * a.h * a.d;
    for (int q = 0; q < channels; q++)
    {
        const float* pa = (const float*)a.data + (a.dims >= 3 ? a.cstep * q : 0);
        const float* pb = (const float*)b.data + (b.dims >= 3 ? b.cstep * q : 0);
        for (size_t i = 0; i < n; i++)
        {
            float x = pa[i], y = pb[i];
            if (std::isnan(x) && std::isnan(y))
                continue;
            if (std::isinf(x) && std::isinf(y) && (x > 0) == (y > 0))
                continue;
            float tol = epsilon * std::max(1.f, std::fabs(y));
            if (!(std::fabs(x - y) <= tol))
            {
                char buf[256];
                snprintf(buf, sizeof(buf), "value mismatch at c=%d i=%zu: got %.8g, reference %.8g (tolerance %.3g)", q, i, x, y, tol);
                return buf;
            }
        }
    }
    return "";
}

int run_layer_forward(const Layer* layer, const std::vector<Mat>& inputs, std::vector<Mat>& outputs, const Option& opt)
{
    if (layer->support_inplace)
    {
        std::vector<Mat> io(inputs.size());
        for (size_t i = 0; i < inputs.size(); i++)
            io[i] = inputs[i].clone();
        int ret = layer->one_blob_only ? layer->forward_inplace(io[0], opt) : layer->forward_inplace(io, opt);
        outputs = io;
        return ret;
    }
    if (layer->one_blob_only)
    {
        outputs.resize(1);
        return layer->forward(inputs[0], outputs[0], opt);
    }
    return layer->forward(inputs, outputs, opt);
}

Layer* make_layer(const char* type, int backend, int isa, const ParamDict& pd, const std::vector<Mat>& weights,
                  const Option& opt, std::string* why, bool* declined, const std::vector<Mat>* top_shapes)
{
    if (declined)
        *declined = false;
    Layer* l = create_layer(type, backend, isa);
    if (!l)
    {
        *why = std::string("no implementation of ") + type + " for " + cpu_isa_name(isa);
        return nullptr;
    }
    if (l->load_param(pd) != 0)
    {
        *why = "load_param failed";
        delete l;
        return nullptr;
    }
    if (!l->accept())
    {
        if (declined)
            *declined = true;
        *why = "declined the parameters";
        delete l;
        return nullptr;
    }
    if (top_shapes)
        l->top_shapes = *top_shapes;
    ModelBinFromMatArray mb(weights.data(), (int)weights.size());
    if (l->load_model(mb) != 0)
    {
        *why = "load_model failed";
        delete l;
        return nullptr;
    }
    if (l->create_pipeline(opt) != 0)
    {
        *why = "create_pipeline failed";
        delete l;
        return nullptr;
    }
    return l;
}

static Option base_option()
{
    Option opt;
    opt.num_threads = 1;
    opt.use_packing_layout = false;
    opt.use_fp16_storage = false;
    opt.use_fp16_arithmetic = false;
    opt.use_bf16_storage = false;
    opt.lightmode = false;
    return opt;
}

std::vector<Mat> run_reference(const char* type, const ParamDict& pd, const std::vector<Mat>& weights,
                               const std::vector<Mat>& inputs, std::string* why, int top_count)
{
    Option opt = base_option();
    Layer* l = make_layer(type, BACKEND_CPU, CPU_ISA_NONE, pd, weights, opt, why);
    std::vector<Mat> out;
    if (!l)
        return out;
    out.resize(top_count);
    int ret = run_layer_forward(l, inputs, out, opt);
    l->destroy_pipeline(opt);
    delete l;
    if (ret != 0)
    {
        *why = "reference forward returned " + std::to_string(ret);
        out.clear();
    }
    return out;
}

static std::string describe(const char* type, int isa, const Option& opt, int elempack, const std::string& what)
{
    std::ostringstream os;
    os << type << " [" << cpu_isa_name(isa) << "] threads=" << opt.num_threads << " elempack=" << elempack
       << " fp16_storage=" << opt.use_fp16_storage << (opt.use_fp16_arithmetic ? " fp16_arithmetic=1" : "")
       << (opt.lightmode ? " lightmode=1" : "") << " seed=" << seed() << ": " << what
       << " (replay: KITE_TEST_SEED=" << seed() << ")";
    return os.str();
}

// A GPU row: upload the inputs (elempack 1/4/8, fp32 and fp16), run
// forward_gpu on a fresh session, download and compare. Vulkan also runs with
// fp16 arithmetic (the fp16a shader variants where the device has
// shaderFloat16); OpenCL where its device computes in half
// (GpuBackend::fp16_arithmetic: cl_khr_fp16), at twice the fp16 tolerance.
// Skipped with a notice when the backend has no usable device.
static std::string test_gpu_row(const char* type, const LayerRegistryEntry& e, const ParamDict& pd,
                                const std::vector<Mat>& weights, const std::vector<Mat>& inputs,
                                const std::vector<Mat>& ref, const TestLayerFlags& flags)
{
    const char* bname = e.backend == BACKEND_VULKAN ? "vulkan" : "opencl";
    for (int fp16 = 0; fp16 < 3; fp16++)
    {
        if (fp16 && !flags.test_fp16)
            break;
        Option opt = base_option();
        opt.use_vulkan_compute = e.backend == BACKEND_VULKAN;
        opt.use_opencl = e.backend == BACKEND_OPENCL;
        opt.use_fp16_storage = fp16 != 0;
        opt.use_fp16_arithmetic = fp16 == 2;
        if (fp16 == 2 && e.backend == BACKEND_OPENCL && !gpu_backend(e.backend)->fp16_arithmetic(opt))
            break;
        opt.use_packing_layout = true;
        if (!gpu_backend_usable(e.backend, opt))
        {
            static bool noticed[3] = {false, false, false};
            if (!noticed[e.backend])
                printf("%s: no usable device, GPU rows skipped\n", bname);
            noticed[e.backend] = true;
            return "";
        }
        std::string why;
        bool declined = false;
        Layer* l = make_layer(type, e.backend, e.isa, pd, weights, opt, &why, &declined, &flags.top_shapes);
        if (!l)
        {
            if (declined)
                return "";
            return describe(type, e.isa, opt, 1, std::string(bname) + ": " + why);
        }
        std::unique_ptr<GpuSession> s(gpu_backend(e.backend)->create_session(opt));
        std::string fail;
        for (int pack : {1, 4, 8})
        {
            if (!s)
            {
                fail = "no session";
                break;
            }
            // the device layout follows the row: elempack `pack` where the
            // shape and the layer allow it (Vulkan: 1, 4 and 8 in fp32 and fp16)
            s->limit_elempack(pack);
            std::vector<GpuBlobPtr> bottoms(inputs.size());
            bool packable = true, cannot_hold = false;
            for (size_t i = 0; i < inputs.size() && fail.empty() && !cannot_hold; i++)
            {
                Mat m = inputs[i];
                if (pack > 1)
                {
                    Mat p;
                    convert_packing(m, p, pack, opt);
                    packable = packable && p.elempack == pack;
                    m = p;
                }
                if (fp16 && m.elembits() == 32)
                {
                    Mat h;
                    cast_float32_to_float16(m, h, opt);
                    m = h;
                }
                const int ur = s->upload(m, bottoms[i], l, opt);
                cannot_hold = ur == KITE_GPU_CANNOT_HOLD;
                if (ur != 0 && !cannot_hold)
                    fail = "upload failed";
            }
            if (!fail.empty())
                break;
            if ((!packable && pack > 1) || cannot_hold)
                continue;
            std::vector<GpuBlobPtr> tops(flags.top_count);
            int ret = l->forward_gpu(bottoms, tops, *s, opt);
            if (ret == KITE_GPU_CANNOT_HOLD)
                continue; // the GPU fallback rule: the Extractor runs the reference (tested above) for this shape
            if (ret != 0)
            {
                fail = "forward_gpu returned " + std::to_string(ret);
                break;
            }
            float eps = fp16 ? flags.epsilon_fp16 : (flags.epsilon_gpu >= 0.f ? flags.epsilon_gpu : flags.epsilon);
            if (fp16 == 2 && e.backend == BACKEND_OPENCL)
                eps = 2 * flags.epsilon_fp16;
            for (size_t i = 0; i < ref.size() && fail.empty(); i++)
            {
                Mat out;
                if (i >= tops.size() || !tops[i] || s->download(tops[i], out, opt) != 0)
                {
                    fail = "download of output " + std::to_string(i) + " failed";
                    break;
                }
                std::string c = compare_mat(out, ref[i], eps);
                if (!c.empty())
                    fail = "output " + std::to_string(i) + ": " + c + " (input elempack " + std::to_string(pack) + ")";
            }
            if (!fail.empty())
                break;
        }
        s.reset();
        l->destroy_pipeline(opt);
        delete l;
        if (!fail.empty())
            return describe(type, e.isa, opt, 1, std::string(bname) + ": " + fail);
    }
    return "";
}

std::string gpu_kernel_path(const char* type, int backend, const ParamDict& pd, const std::vector<Mat>& weights)
{
    Option opt = base_option();
    opt.use_vulkan_compute = backend == BACKEND_VULKAN;
    opt.use_opencl = backend == BACKEND_OPENCL;
    opt.use_packing_layout = true;
    if (!gpu_backend_usable(backend, opt))
        return "-";
    int count = 0;
    const LayerRegistryEntry* rows = layer_registry(&count);
    for (int r = 0; r < count; r++)
    {
        if (std::string(rows[r].type) != type || rows[r].backend != backend)
            continue;
        std::string why;
        Layer* l = make_layer(type, backend, rows[r].isa, pd, weights, opt, &why);
        if (!l)
            return "-";
        const char* p = l->kernel_path();
        std::string path = p ? p : "";
        l->destroy_pipeline(opt);
        delete l;
        return path;
    }
    return "-";
}

std::string test_layer(const char* type, const ParamDict& pd, const std::vector<Mat>& weights,
                       const std::vector<Mat>& inputs, const TestLayerFlags& flags, std::vector<Mat>* outputs_ref)
{
    std::string why;
    std::vector<Mat> ref = run_reference(type, pd, weights, inputs, &why, flags.top_count);
    if (ref.empty())
        return describe(type, CPU_ISA_NONE, base_option(), 1, "reference failed: " + why);
    for (const Mat& r : ref)
        if (r.empty())
            return describe(type, CPU_ISA_NONE, base_option(), 1, "reference produced an empty output");
    if (outputs_ref)
        *outputs_ref = ref;

    // the reference with 2 threads must give the same answer
    {
        Option opt = base_option();
        opt.num_threads = 2;
        Layer* l = make_layer(type, BACKEND_CPU, CPU_ISA_NONE, pd, weights, opt, &why, nullptr, &flags.top_shapes);
        if (!l)
            return describe(type, CPU_ISA_NONE, opt, 1, why);
        std::vector<Mat> out(flags.top_count);
        int ret = run_layer_forward(l, inputs, out, opt);
        l->destroy_pipeline(opt);
        delete l;
        if (ret != 0)
            return describe(type, CPU_ISA_NONE, opt, 1, "forward returned " + std::to_string(ret));
        for (size_t i = 0; i < ref.size(); i++)
        {
            std::string c = compare_mat(out[i], ref[i], flags.epsilon);
            if (!c.empty())
                return describe(type, CPU_ISA_NONE, opt, 1, "output " + std::to_string(i) + ": " + c);
        }
    }

    int count = 0;
    const LayerRegistryEntry* rows = layer_registry(&count);
    for (int r = 0; r < count; r++)
    {
        const LayerRegistryEntry& e = rows[r];
        if (std::string(e.type) == type && e.backend != BACKEND_CPU)
        {
            std::string g = test_gpu_row(type, e, pd, weights, inputs, ref, flags);
            if (!g.empty())
                return g;
#if KITE_VULKAN
            if (e.backend == BACKEND_VULKAN && kite::vk::validation_error_count() != 0)
                return describe(type, e.isa, base_option(), 1, "vulkan: the validation layer reported errors (see the log)");
#endif
            continue;
        }
        if (std::string(e.type) != type || e.backend != BACKEND_CPU || e.isa == CPU_ISA_NONE || !cpu_support_isa(e.isa))
            continue;
        // fp16 0: fp32, 1: fp16 storage, 2 (arm82 only): fp16 storage and
        // arithmetic, at twice the fp16 tolerance (fp16 accumulation). The
        // arm82 layers with an fp16-arithmetic path (Convolution,
        // ConvolutionDepthWise) take fp16 storage only with fp16 arithmetic;
        // the others take it either way and compute alike, so pass 2 runs only
        // for layers that declined fp16 storage in pass 1 (it doubled
        // element-wise tests under qemu otherwise)
        const int fp16_variants = e.isa == CPU_ISA_ARM82 ? 3 : 2;
        bool fp16_storage_without_arith = false;
        for (int fp16 = 0; fp16 < fp16_variants; fp16++)
        {
            if (fp16 == 2 && fp16_storage_without_arith)
                break;
            for (int threads = 1; threads <= 2; threads++)
            {
                Option opt = base_option();
                opt.num_threads = threads;
                // light mode (a Net's default) with 2 threads: the drivers then
                // release their loaded weights for their packed copies and may
                // take other paths (Convolution: Winograd on every map)
                opt.lightmode = threads == 2;
                opt.use_packing_layout = true;
                opt.use_fp16_storage = fp16 >= 1;
                opt.use_fp16_arithmetic = fp16 == 2;
                bool declined = false;
                Layer* l = make_layer(type, e.backend, e.isa, pd, weights, opt, &why, &declined, &flags.top_shapes);
                if (!l)
                {
                    if (declined)
                        break;
                    return describe(type, e.isa, opt, 1, why);
                }
                if (fp16 == 1 && l->support_fp16_storage)
                    fp16_storage_without_arith = true;
                if (fp16 && (!flags.test_fp16 || !l->support_fp16_storage))
                {
                    l->destroy_pipeline(opt);
                    delete l;
                    break;
                }
                // every elempack the implementation can be handed
                std::vector<int> packs = {1};
                if (l->support_packing)
                {
                    int maxpack = (e.isa == CPU_ISA_ARM82 && fp16) ? 8 : cpu_isa_vector_floats(e.isa);
                    for (int p = 4; p <= maxpack; p *= 2)
                        packs.push_back(p);
                }
                for (int pack : packs)
                {
                    std::vector<Mat> in(inputs.size());
                    bool packable = true;
                    for (size_t i = 0; i < inputs.size(); i++)
                    {
                        Mat m = inputs[i];
                        if (m.elembits() == 32 && opt.use_fp16_storage && l->support_fp16_storage)
                        {
                            Mat h;
                            cast_float32_to_float16(m, h, opt);
                            m = h;
                        }
                        if (pack > 1)
                        {
                            Mat p;
                            convert_packing(m, p, pack, opt);
                            if (p.elempack != pack)
                                packable = false;
                            m = p;
                        }
                        in[i] = m;
                    }
                    if (!packable && pack > 1)
                        continue;
                    std::vector<Mat> out(flags.top_count);
                    const int references = cpu_layers_on_reference();
                    int ret = run_layer_forward(l, in, out, opt);
                    if (ret != 0)
                    {
                        l->destroy_pipeline(opt);
                        delete l;
                        return describe(type, e.isa, opt, pack, "forward returned " + std::to_string(ret));
                    }
                    if (flags.forbid_reference && cpu_layers_on_reference() != references)
                    {
                        l->destroy_pipeline(opt);
                        delete l;
                        return describe(type, e.isa, opt, pack, "the driver handed the run to its reference (note_cpu_layer_on_reference)");
                    }
                    float eps = opt.use_fp16_storage ? flags.epsilon_fp16 : flags.epsilon;
                    if (opt.use_fp16_arithmetic)
                        eps = 2 * flags.epsilon_fp16;
                    for (size_t i = 0; i < ref.size(); i++)
                    {
                        std::string c = compare_mat(out[i], ref[i], eps);
                        if (!c.empty())
                        {
                            l->destroy_pipeline(opt);
                            delete l;
                            return describe(type, e.isa, opt, pack, "output " + std::to_string(i) + ": " + c);
                        }
                    }
                }
                l->destroy_pipeline(opt);
                delete l;
            }
        }
    }
    return "";
}

} // namespace test
} // namespace kite
