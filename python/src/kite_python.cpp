// The `kite` Python module (import name kite, extension kite._kite).
//
// Errors: every kite call that fails raises RuntimeError with
// kite::last_error(); bad Python arguments raise ValueError / TypeError.
// The GIL is released while models load and while extract() runs, so
// several threads can run their own Extractors of one Net at once.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "cpu.h"
#include "datareader.h"
#include "gpu/gpu.h"
#include "log.h"
#include "mat.h"
#include "net.h"
#include "device_choice.h"
#include "option.h"
#include "platform.h"

#if KITE_PY_ONNX
#include "onnx_convert.h"
#endif
#if KITE_PY_CAFFE
#include "caffe_parser.h"
#endif
#if KITE_PY_TF
#include "tf_convert.h"
#endif
#if KITE_PY_TFLITE
#include "tflite_convert.h"
#endif
#if KITE_PY_ONNX || KITE_PY_CAFFE || KITE_PY_TF || KITE_PY_TFLITE
#include "report.h"
#include "writer.h"
#endif
#if KITE_PY_VULKAN
#include "gpu/vulkan/vk_runtime.h"
#endif
#if KITE_PY_OPENCL
#include "gpu/opencl/cl_runtime.h"
#endif

#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace py = pybind11;

#if KITE_PY_BENCH
int kite_benchkite_main(int argc, char** argv);
#endif

namespace {

[[noreturn]] void raise_kite(const std::string& what)
{
    const char* e = kite::last_error();
    std::string msg = what;
    if (e && *e)
        msg += ": " + std::string(e);
    throw std::runtime_error(msg);
}

// A kite::Mat and, when it uses a numpy array's memory in place, that array.
struct PyMat
{
    kite::Mat m;
    py::object owner; // keeps borrowed memory alive (None when the Mat owns its data)
};

std::string format_for(size_t elemsize)
{
    if (elemsize == 4)
        return py::format_descriptor<float>::format();
    if (elemsize == 2)
        return "e";
    if (elemsize == 1)
        return py::format_descriptor<int8_t>::format();
    throw py::value_error("kite.Mat: elemsize " + std::to_string(elemsize) + " has no buffer format");
}

// numpy (float32, any of 1..4 dims: (w), (h,w), (c,h,w), (c,d,h,w)) -> Mat.
// In place when the array is float32, C-contiguous and the channel planes are
// 16-byte multiples (kite's cstep rule) or there is one channel; a copy otherwise.
PyMat mat_from_array(py::handle obj)
{
    py::array arr = py::array::ensure(obj);
    if (!arr)
        throw py::type_error("kite.Mat: expected a numpy array or buffer, got " + std::string(py::str(py::type::of(obj).attr("__name__"))));
    char kind = arr.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
        throw py::type_error("kite.Mat: expected a numeric array, got dtype " + std::string(py::str(arr.dtype())));
    int nd = (int)arr.ndim();
    if (nd < 1 || nd > 4)
        throw py::value_error("kite.Mat: array has " + std::to_string(nd) + " dimensions; kite takes 1 to 4 ((w), (h,w), (c,h,w), (c,d,h,w); no batch axis)");
    for (int i = 0; i < nd; i++)
        if (arr.shape(i) < 1 || arr.shape(i) > (1 << 28))
            throw py::value_error("kite.Mat: array axis " + std::to_string(i) + " has size " + std::to_string(arr.shape(i)));
    int w = (int)arr.shape(nd - 1);
    int h = nd >= 2 ? (int)arr.shape(nd - 2) : 1;
    int d = nd == 4 ? (int)arr.shape(1) : 1;
    int c = nd >= 3 ? (int)arr.shape(0) : 1;
    size_t plane = (size_t)w * h * d * 4;
    bool is_f32 = arr.dtype().is(py::dtype::of<float>());
    bool contiguous = (arr.flags() & py::array::c_style) != 0;
    PyMat r;
    if (is_f32 && contiguous && (nd <= 2 || c == 1 || plane % 16 == 0))
    {
        void* data = const_cast<void*>(arr.data());
        if (nd == 1)
            r.m = kite::Mat(w, data, 4u);
        else if (nd == 2)
            r.m = kite::Mat(w, h, data, 4u);
        else if (nd == 3)
            r.m = kite::Mat(w, h, c, data, 4u);
        else
            r.m = kite::Mat(w, h, d, c, data, 4u);
        r.owner = arr;
        return r;
    }
    py::array_t<float, py::array::c_style | py::array::forcecast> f(arr);
    if (nd == 1)
        r.m.create(w, (size_t)4);
    else if (nd == 2)
        r.m.create(w, h, (size_t)4);
    else if (nd == 3)
        r.m.create(w, h, c, (size_t)4);
    else
        r.m.create(w, h, d, c, (size_t)4);
    if (r.m.empty())
        throw std::runtime_error("kite.Mat: out of memory");
    const float* src = f.data();
    size_t per = (size_t)w * h * d;
    for (int q = 0; q < c; q++)
        memcpy((float*)r.m.data + r.m.cstep * q, src + per * q, per * 4);
    return r;
}

py::buffer_info mat_buffer(PyMat& pm)
{
    kite::Mat& m = pm.m;
    if (m.empty())
        return py::buffer_info(nullptr, 4, "f", 1, {0}, {4});
    if (m.elempack != 1)
        throw py::value_error("kite.Mat: elempack " + std::to_string(m.elempack) + " has no numpy view (extract() returns elempack 1)");
    ssize_t es = (ssize_t)m.elemsize;
    std::string fmt = format_for(m.elemsize);
    ssize_t cs = (ssize_t)m.cstep * es;
    switch (m.dims)
    {
    case 1:
        return py::buffer_info(m.data, es, fmt, 1, {(ssize_t)m.w}, {es});
    case 2:
        return py::buffer_info(m.data, es, fmt, 2, {(ssize_t)m.h, (ssize_t)m.w}, {(ssize_t)m.w * es, es});
    case 3:
        return py::buffer_info(m.data, es, fmt, 3, {(ssize_t)m.c, (ssize_t)m.h, (ssize_t)m.w}, {cs, (ssize_t)m.w * es, es});
    default:
        return py::buffer_info(m.data, es, fmt, 4, {(ssize_t)m.c, (ssize_t)m.d, (ssize_t)m.h, (ssize_t)m.w},
                               {cs, (ssize_t)m.w * m.h * es, (ssize_t)m.w * es, es});
    }
}

// HxWxC uint8 array -> (pointer, w, h, stride); checks the channel count of `type`
const unsigned char* pixels_of(const py::array& a, int type, int& w, int& h, int& stride, py::array& keep)
{
    int fmt = type & kite::Mat::PIXEL_FORMAT_MASK;
    int want = fmt == kite::Mat::PIXEL_GRAY ? 1 : (fmt == kite::Mat::PIXEL_RGBA || fmt == kite::Mat::PIXEL_BGRA) ? 4 : (fmt == kite::Mat::PIXEL_RGB || fmt == kite::Mat::PIXEL_BGR) ? 3 : 0;
    if (want == 0)
        throw py::value_error("kite: unknown pixel type " + std::to_string(type));
    keep = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>::ensure(a);
    if (!keep)
        throw py::type_error("kite: pixels must be a uint8 array");
    if (!a.dtype().is(py::dtype::of<uint8_t>()))
        throw py::type_error("kite: pixels must be uint8, got " + std::string(py::str(a.dtype())));
    int nd = (int)keep.ndim();
    int ch = nd == 3 ? (int)keep.shape(2) : 1;
    if (!(nd == 3 || (nd == 2 && want == 1)) || ch != want)
        throw py::value_error("kite: pixels must be an H x W x " + std::to_string(want) + " uint8 array for this pixel type, got shape " + std::string(py::str(py::tuple(py::cast(std::vector<ssize_t>(keep.shape(), keep.shape() + nd))))));
    h = (int)keep.shape(0);
    w = (int)keep.shape(1);
    stride = w * want;
    if (w < 1 || h < 1)
        throw py::value_error("kite: empty image");
    return (const unsigned char*)keep.data();
}

int dst_channels(int type)
{
    int dst = (type & kite::Mat::PIXEL_CONVERT_MASK) >> kite::Mat::PIXEL_CONVERT_SHIFT;
    int fmt = dst ? dst : (type & kite::Mat::PIXEL_FORMAT_MASK);
    return fmt == kite::Mat::PIXEL_GRAY ? 1 : (fmt == kite::Mat::PIXEL_RGBA || fmt == kite::Mat::PIXEL_BGRA) ? 4 : 3;
}

std::string read_path(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw py::value_error("kite: cannot open '" + path + "': " + std::string(strerror(errno)));
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

bool is_bytes_like(py::handle h)
{
    return py::isinstance<py::bytes>(h) || py::isinstance<py::bytearray>(h) || py::isinstance<py::memoryview>(h);
}

std::string bytes_of(py::handle h)
{
    if (py::isinstance<py::bytes>(h))
        return std::string(py::reinterpret_borrow<py::bytes>(h));
    py::bytes b = py::reinterpret_steal<py::bytes>(PyBytes_FromObject(h.ptr()));
    if (!b)
        throw py::error_already_set();
    return std::string(b);
}

std::string path_of(py::handle h)
{
    return py::str(py::module_::import("os").attr("fspath")(h));
}

struct PyNet
{
    kite::Net net;
    std::vector<std::unique_ptr<std::vector<unsigned char> > > weights; // load_model(bytes) memory, used in place
};

struct PyExtractor
{
    py::object net_ref; // keeps the Net (and its weights) alive
    kite::Extractor ex;
    std::vector<py::object> inputs_keep; // numpy arrays whose memory an input uses
    std::mutex lock;                     // one extract() at a time on this Extractor
    PyExtractor(py::object n, const kite::Net& net) : net_ref(std::move(n)), ex(net.create_extractor()) {}
};

int blob_index(const PyNet* net, py::handle key, bool input)
{
    if (py::isinstance<py::int_>(key))
    {
        int i = key.cast<int>();
        if (i < 0 || i >= (int)net->net.blobs().size())
            throw py::index_error("kite: blob index " + std::to_string(i) + " out of range (the net has " + std::to_string(net->net.blobs().size()) + " blobs)");
        return i;
    }
    std::string name = key.cast<std::string>();
    int i = net->net.find_blob_index_by_name(name.c_str());
    if (i < 0)
    {
        std::string names;
        for (const std::string& s : input ? net->net.input_names() : net->net.output_names())
            names += (names.empty() ? "" : ", ") + s;
        throw py::key_error("kite: no blob named '" + name + "' (" + (input ? "inputs: " : "outputs: ") + names + ")");
    }
    return i;
}

std::vector<std::string> gpu_devices(int backend)
{
    std::vector<std::string> out;
#if KITE_PY_VULKAN
    if (backend == kite::BACKEND_VULKAN)
    {
        kite::Option o;
        o.use_vulkan_compute = true;
        // probing past the last device logs a warning: keep it out of stderr
        kite::set_log_sink([](int level, const char* msg, void*) {
            if (level == kite::LOG_ERROR)
                fprintf(stderr, "kite: error: %s\n", msg);
        }, nullptr);
        struct Restore { ~Restore() { kite::set_log_sink(nullptr, nullptr); } } restore;
        for (int i = 0; i < 16; i++)
        {
            o.vulkan_device = i;
            kite::GpuBackend* b = kite::gpu_backend(kite::BACKEND_VULKAN);
            if (!b || !b->available(o))
                break;
            kite::vk::VulkanDevice* d = kite::vk::VulkanDevice::get(i);
            out.push_back(d ? std::string(d->props.deviceName) : std::string("device ") + std::to_string(i));
        }
    }
#endif
#if KITE_PY_OPENCL
    if (backend == kite::BACKEND_OPENCL)
    {
        int n = kite::cl::Context::device_count();
        for (int i = 0; i < n; i++)
        {
            kite::cl::Context* d = kite::cl::Context::get(i);
            out.push_back(d ? d->device_name : std::string("device ") + std::to_string(i));
        }
    }
#endif
    (void)backend;
    return out;
}

#if KITE_PY_ONNX || KITE_PY_CAFFE || KITE_PY_TF || KITE_PY_TFLITE
py::object finish_conversion(kite::convert::Graph& g, const kite::convert::FinalizeOptions& fo, bool fp16, py::object param_path,
                             py::object bin_path, const char* tool)
{
    if (fp16)
        kite::convert::use_fp16_storage(g);
    if (!param_path.is_none() || !bin_path.is_none())
    {
        if (param_path.is_none() || bin_path.is_none())
            throw py::value_error(std::string(tool) + ": give both param_path and bin_path, or neither");
        std::string pp = path_of(param_path), bp = path_of(bin_path), err;
        int r;
        {
            py::gil_scoped_release nogil;
            r = kite::convert::finalize(g, fo);
            if (r == 0)
                r = kite::convert::write_files(g, pp, bp, err);
            else
                err = g.error;
        }
        if (r != 0)
            throw std::runtime_error(std::string(tool) + ": " + err);
        return py::none();
    }
    std::string param;
    std::vector<unsigned char> bin;
    {
        py::gil_scoped_release nogil;
        if (kite::convert::finalize(g, fo) == 0)
        {
            param = kite::convert::param_text(g);
            bin = kite::convert::bin_bytes(g);
        }
    }
    if (param.empty())
        throw std::runtime_error(std::string(tool) + ": " + g.error);
    return py::make_tuple(py::bytes(param), py::bytes((const char*)bin.data(), bin.size()));
}

std::string source_bytes(py::handle src)
{
    return is_bytes_like(src) ? bytes_of(src) : read_path(path_of(src));
}
#endif

} // namespace

PYBIND11_MODULE(_kite, m)
{
    m.doc() = "kite: neural-network inference (ncnn-compatible param/bin models)";

    py::class_<kite::Option>(m, "Option", "Run-time switches; set Net.opt before load_param")
        .def(py::init<>())
        .def_readwrite("lightmode", &kite::Option::lightmode)
        .def_readwrite("num_threads", &kite::Option::num_threads)
        .def_readwrite("use_packing_layout", &kite::Option::use_packing_layout)
        .def_readwrite("use_fp16_storage", &kite::Option::use_fp16_storage)
        .def_readwrite("use_fp16_arithmetic", &kite::Option::use_fp16_arithmetic)
        .def_readwrite("use_fp16_weights", &kite::Option::use_fp16_weights, "InnerProduct keeps fp16 weights on the CPU (F16C / aarch64)")
        .def_readwrite("use_bf16_storage", &kite::Option::use_bf16_storage)
        .def_readwrite("use_int8_inference", &kite::Option::use_int8_inference)
        .def_readwrite("use_winograd_convolution", &kite::Option::use_winograd_convolution)
        .def_readwrite("use_sgemm_convolution", &kite::Option::use_sgemm_convolution)
        .def_readwrite("use_vulkan_compute", &kite::Option::use_vulkan_compute)
        .def_readwrite("vulkan_device", &kite::Option::vulkan_device)
        .def_readwrite("use_opencl", &kite::Option::use_opencl)
        .def_readwrite("opencl_device", &kite::Option::opencl_device)
        .def_readwrite("max_cpu_isa", &kite::Option::max_cpu_isa)
        .def_readwrite("memory_limit", &kite::Option::memory_limit, "bytes a model may declare (default: physical memory, 0: no limit)")
        .def("__repr__", [](const kite::Option& o) {
            std::ostringstream s;
            s << "kite.Option(num_threads=" << o.num_threads << ", use_packing_layout=" << o.use_packing_layout
              << ", use_fp16_storage=" << o.use_fp16_storage << ", use_fp16_arithmetic=" << o.use_fp16_arithmetic
              << ", use_vulkan_compute=" << o.use_vulkan_compute << ", vulkan_device=" << o.vulkan_device
              << ", use_opencl=" << o.use_opencl << ", opencl_device=" << o.opencl_device << ")";
            return s.str();
        });

    py::class_<PyMat> mat(m, "Mat", py::buffer_protocol(), "A kite tensor (w, h, d, c; no batch axis)");
    mat.def(py::init([](int w, int h, int d, int c) {
                 if (w < 1 || h < 0 || d < 0 || c < 0)
                     throw py::value_error("kite.Mat: sizes must be positive");
                 PyMat r;
                 if (c == 0 && d == 0 && h == 0)
                     r.m.create(w, (size_t)4);
                 else if (c == 0 && d == 0)
                     r.m.create(w, h, (size_t)4);
                 else if (d == 0)
                     r.m.create(w, h ? h : 1, c ? c : 1, (size_t)4);
                 else
                     r.m.create(w, h ? h : 1, d, c ? c : 1, (size_t)4);
                 if (r.m.empty())
                     throw std::runtime_error("kite.Mat: out of memory");
                 r.m.fill(0.f);
                 return r;
             }),
             py::arg("w").noconvert(), py::arg("h") = 0, py::arg("d") = 0, py::arg("c") = 0, "zero-filled float32 Mat (h, d, c = 0: that axis absent)")
        .def(py::init([](py::object a) { return mat_from_array(a); }), py::arg("array"),
            "Mat from a numpy array of 1..4 dims ((w), (h,w), (c,h,w), (c,d,h,w)); shares the array's memory "
            "when it is float32, C-contiguous and each channel plane is a multiple of 16 bytes (or c == 1), copies otherwise")
        .def_buffer(&mat_buffer)
        .def_property_readonly("dims", [](const PyMat& p) { return p.m.dims; })
        .def_property_readonly("w", [](const PyMat& p) { return p.m.w; })
        .def_property_readonly("h", [](const PyMat& p) { return p.m.h; })
        .def_property_readonly("d", [](const PyMat& p) { return p.m.d; })
        .def_property_readonly("c", [](const PyMat& p) { return p.m.c; })
        .def_property_readonly("elemsize", [](const PyMat& p) { return p.m.elemsize; })
        .def_property_readonly("elempack", [](const PyMat& p) { return p.m.elempack; })
        .def_property_readonly("cstep", [](const PyMat& p) { return p.m.cstep; })
        .def_property_readonly("shape", [](const PyMat& p) -> py::tuple {
            const kite::Mat& x = p.m;
            if (x.dims == 1) return py::make_tuple(x.w);
            if (x.dims == 2) return py::make_tuple(x.h, x.w);
            if (x.dims == 3) return py::make_tuple(x.c, x.h, x.w);
            if (x.dims == 4) return py::make_tuple(x.c, x.d, x.h, x.w);
            return py::make_tuple();
        }, "numpy-order shape: (w), (h,w), (c,h,w) or (c,d,h,w)")
        .def("empty", [](const PyMat& p) { return p.m.empty(); })
        .def("shares_memory_with_numpy", [](const PyMat& p) { return !p.owner.is_none() && p.owner.ptr() != nullptr; },
             "whether this Mat uses a numpy array's memory in place")
        .def("numpy", [](py::object self) { return py::array(py::buffer(self)); },
             "a numpy view of the data (no copy; keeps the Mat alive)")
        .def("clone", [](const PyMat& p) { PyMat r; r.m = p.m.clone(); return r; })
        .def("fill", [](PyMat& p, float v) { p.m.fill(v); })
        .def("substract_mean_normalize", [](PyMat& p, py::object mean, py::object norm) {
                 std::vector<float> mv, nv;
                 if (!mean.is_none()) mv = mean.cast<std::vector<float> >();
                 if (!norm.is_none()) nv = norm.cast<std::vector<float> >();
                 if ((!mv.empty() && (int)mv.size() != p.m.c) || (!nv.empty() && (int)nv.size() != p.m.c))
                     throw py::value_error("kite.Mat.substract_mean_normalize: give one mean / norm value per channel (" + std::to_string(p.m.c) + ")");
                 if (p.m.elemsize != 4 || p.m.elempack != 1)
                     throw py::value_error("kite.Mat.substract_mean_normalize: needs a float32 Mat of elempack 1");
                 p.m.substract_mean_normalize(mv.empty() ? nullptr : mv.data(), nv.empty() ? nullptr : nv.data());
             },
             py::arg("mean"), py::arg("norm"), "in place: (x - mean[c]) * norm[c] (None skips that step)")
        .def_static("from_pixels", [](py::array pixels, int type) {
                 int w, h, stride;
                 py::array keep;
                 const unsigned char* p = pixels_of(pixels, type, w, h, stride, keep);
                 PyMat r;
                 r.m = kite::Mat::from_pixels(p, type, w, h, stride);
                 if (r.m.empty())
                     raise_kite("kite.Mat.from_pixels failed");
                 return r;
             },
             py::arg("pixels"), py::arg("type"), "H x W x C uint8 image -> c x h x w float Mat (values 0..255)")
        .def_static("from_pixels_resize", [](py::array pixels, int type, int target_width, int target_height) {
                 int w, h, stride;
                 py::array keep;
                 const unsigned char* p = pixels_of(pixels, type, w, h, stride, keep);
                 if (target_width < 1 || target_height < 1)
                     throw py::value_error("kite.Mat.from_pixels_resize: target size must be positive");
                 PyMat r;
                 r.m = kite::Mat::from_pixels_resize(p, type, w, h, stride, target_width, target_height);
                 if (r.m.empty())
                     raise_kite("kite.Mat.from_pixels_resize failed");
                 return r;
             },
             py::arg("pixels"), py::arg("type"), py::arg("target_width"), py::arg("target_height"),
             "like from_pixels, bilinear resize to target_width x target_height on the way")
        .def("to_pixels", [](const PyMat& p, int type) {
                 if (p.m.dims != 3 || p.m.elempack != 1 || p.m.elemsize != 4)
                     throw py::value_error("kite.Mat.to_pixels: needs a 3-dim float32 Mat");
                 int ch = dst_channels(type);
                 py::array_t<uint8_t> out({(ssize_t)p.m.h, (ssize_t)p.m.w, (ssize_t)ch});
                 p.m.to_pixels(out.mutable_data(), type);
                 return out;
             },
             py::arg("type"), "c x h x w float Mat -> H x W x C uint8 array (values clamped to 0..255)")
        .def("to_pixels_resize", [](const PyMat& p, int type, int target_width, int target_height) {
                 if (p.m.dims != 3 || p.m.elempack != 1 || p.m.elemsize != 4)
                     throw py::value_error("kite.Mat.to_pixels_resize: needs a 3-dim float32 Mat");
                 if (target_width < 1 || target_height < 1)
                     throw py::value_error("kite.Mat.to_pixels_resize: target size must be positive");
                 int ch = dst_channels(type);
                 py::array_t<uint8_t> out({(ssize_t)target_height, (ssize_t)target_width, (ssize_t)ch});
                 p.m.to_pixels_resize(out.mutable_data(), type, target_width, target_height);
                 return out;
             },
             py::arg("type"), py::arg("target_width"), py::arg("target_height"))
        .def("__repr__", [](const PyMat& p) {
            std::ostringstream s;
            s << "kite.Mat(dims=" << p.m.dims << ", w=" << p.m.w << ", h=" << p.m.h << ", d=" << p.m.d << ", c=" << p.m.c
              << ", elemsize=" << p.m.elemsize << ", elempack=" << p.m.elempack << ")";
            return s.str();
        });
    py::enum_<kite::Mat::PixelType> pt(mat, "PixelType", py::arithmetic());
    // every PIXEL_* constant, also as Mat.PixelType.RGB2BGR etc.
#define KITE_PIXEL(n) pt.value(#n, kite::Mat::PIXEL_##n);
    KITE_PIXEL(RGB) KITE_PIXEL(BGR) KITE_PIXEL(GRAY) KITE_PIXEL(RGBA) KITE_PIXEL(BGRA)
    KITE_PIXEL(RGB2BGR) KITE_PIXEL(RGB2GRAY) KITE_PIXEL(RGB2RGBA) KITE_PIXEL(RGB2BGRA)
    KITE_PIXEL(BGR2RGB) KITE_PIXEL(BGR2GRAY) KITE_PIXEL(BGR2RGBA) KITE_PIXEL(BGR2BGRA)
    KITE_PIXEL(GRAY2RGB) KITE_PIXEL(GRAY2BGR) KITE_PIXEL(GRAY2RGBA) KITE_PIXEL(GRAY2BGRA)
    KITE_PIXEL(RGBA2RGB) KITE_PIXEL(RGBA2BGR) KITE_PIXEL(RGBA2GRAY) KITE_PIXEL(RGBA2BGRA)
    KITE_PIXEL(BGRA2RGB) KITE_PIXEL(BGRA2BGR) KITE_PIXEL(BGRA2GRAY) KITE_PIXEL(BGRA2RGBA)
#undef KITE_PIXEL

    py::class_<PyExtractor>(m, "Extractor", "One inference session of a Net (create one per thread)")
        .def("input", [](PyExtractor& e, py::object key, py::object value) {
                 PyMat pm = py::isinstance<PyMat>(value) ? value.cast<PyMat>() : mat_from_array(value);
                 const PyNet* net = e.net_ref.cast<const PyNet*>();
                 int i = blob_index(net, key, true);
                 std::lock_guard<std::mutex> g(e.lock);
                 if (e.ex.input(i, pm.m) != 0)
                     raise_kite("kite.Extractor.input failed");
                 if (!pm.owner.is_none())
                     e.inputs_keep.push_back(pm.owner);
             },
             py::arg("blob"), py::arg("mat"), "set an input blob (name or index) from a Mat or numpy array")
        .def("extract", [](PyExtractor& e, py::object key) {
                 const PyNet* net = e.net_ref.cast<const PyNet*>();
                 int i = blob_index(net, key, false);
                 PyMat r;
                 int ret;
                 {
                     py::gil_scoped_release nogil;
                     std::lock_guard<std::mutex> g(e.lock);
                     kite::clear_last_error();
                     ret = e.ex.extract(i, r.m, 0);
                 }
                 if (ret != 0)
                     raise_kite("kite.Extractor.extract('" + net->net.blobs()[i].name + "') failed");
                 return r;
             },
             py::arg("blob"), "run what the blob needs and return it (fp32, elempack 1); releases the GIL")
        .def("layer_backends", [](PyExtractor& e) {
                 std::lock_guard<std::mutex> g(e.lock);
                 const PyNet* net = e.net_ref.cast<const PyNet*>();
                 std::vector<int> r;
                 for (int i = 0; i < (int)net->net.layers().size(); i++)
                     r.push_back(e.ex.layer_backend(i));
                 return r;
             },
             "per layer, where it last ran: 0 CPU, kite.BACKEND_VULKAN, kite.BACKEND_OPENCL (-1: not run)")
        .def("set_num_threads", [](PyExtractor& e, int n) { e.ex.set_num_threads(n); })
        .def("set_light_mode", [](PyExtractor& e, bool b) { e.ex.set_light_mode(b); })
        .def("clear", [](PyExtractor& e) { std::lock_guard<std::mutex> g(e.lock); e.ex.clear(); e.inputs_keep.clear(); })
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](PyExtractor& e, py::args) { std::lock_guard<std::mutex> g(e.lock); e.ex.clear(); e.inputs_keep.clear(); });

    py::class_<PyNet>(m, "Net", "A model: load_param then load_model, then create_extractor()")
        .def(py::init<>())
        .def_property("opt", [](PyNet& n) -> kite::Option& { return n.net.opt; },
                      [](PyNet& n, const kite::Option& o) { n.net.opt = o; }, py::return_value_policy::reference_internal,
                      "the Option used by layers created from now on (set before load_param)")
        .def("load_param", [](PyNet& n, py::object src) {
                 int r;
                 if (is_bytes_like(src))
                 {
                     std::string text = bytes_of(src);
                     py::gil_scoped_release nogil;
                     r = n.net.load_param_mem(text.c_str());
                 }
                 else
                 {
                     std::string p = path_of(src);
                     py::gil_scoped_release nogil;
                     r = n.net.load_param(p.c_str());
                 }
                 if (r != 0)
                     raise_kite("kite.Net.load_param failed");
             },
             py::arg("param"), "text .param from a path or from bytes")
        .def("load_param_bin", [](PyNet& n, py::object src) {
                 int r;
                 if (is_bytes_like(src))
                 {
                     std::string b = bytes_of(src);
                     py::gil_scoped_release nogil;
                     kite::DataReaderFromMemory dr((const unsigned char*)b.data(), b.size());
                     r = n.net.load_param_bin(dr);
                 }
                 else
                 {
                     std::string p = path_of(src);
                     py::gil_scoped_release nogil;
                     r = n.net.load_param_bin(p.c_str());
                 }
                 if (r != 0)
                     raise_kite("kite.Net.load_param_bin failed");
             },
             py::arg("param_bin"), "binary .param.bin from a path or from bytes")
        .def("load_model", [](PyNet& n, py::object src) {
                 if (is_bytes_like(src))
                 {
                     std::string b = bytes_of(src);
                     // the weights are used in place: keep an aligned copy as long as the Net
                     n.weights.emplace_back(new std::vector<unsigned char>(b.begin(), b.end()));
                     std::vector<unsigned char>& w = *n.weights.back();
                     size_t used;
                     {
                         py::gil_scoped_release nogil;
                         used = n.net.load_model(w.data(), w.size());
                     }
                     if (used == 0)
                         raise_kite("kite.Net.load_model failed");
                     return;
                 }
                 std::string p = path_of(src);
                 int r;
                 {
                     py::gil_scoped_release nogil;
                     r = n.net.load_model(p.c_str());
                 }
                 if (r != 0)
                     raise_kite("kite.Net.load_model failed");
             },
             py::arg("model"), "weights (.bin) from a path or from bytes")
        .def("load_model_empty", [](PyNet& n) {
            if (n.net.load_model_empty() != 0)
                raise_kite("kite.Net.load_model_empty failed");
        }, "zero weights (for benchmarks)")
        .def("create_extractor", [](py::object self) {
                 PyNet& n = self.cast<PyNet&>();
                 if (!n.net.model_loaded())
                     throw std::runtime_error("kite.Net.create_extractor: load_param and load_model first");
                 return std::unique_ptr<PyExtractor>(new PyExtractor(self, n.net));
             })
        .def("input_names", [](const PyNet& n) { return n.net.input_names(); })
        .def("output_names", [](const PyNet& n) { return n.net.output_names(); })
        .def("blob_names", [](const PyNet& n) {
            std::vector<std::string> r;
            for (const kite::Blob& b : n.net.blobs())
                r.push_back(b.name);
            return r;
        })
        .def("clear", [](PyNet& n) { n.net.clear(); n.weights.clear(); });

    m.def("gpu_devices", &gpu_devices, py::arg("backend"),
          "names of the devices of a GPU backend (kite.BACKEND_VULKAN / kite.BACKEND_OPENCL); empty when not built in or none found");
    m.attr("BACKEND_VULKAN") = (int)kite::BACKEND_VULKAN;
    m.attr("BACKEND_OPENCL") = (int)kite::BACKEND_OPENCL;
    m.attr("HAS_VULKAN") = bool(KITE_PY_VULKAN);
    m.attr("HAS_OPENCL") = bool(KITE_PY_OPENCL);
    m.def("cpu_count", []() { return kite::get_cpu_count(); });
    m.def("last_error", []() { return std::string(kite::last_error()); });

    // device=auto (device_choice.h): the fastest backend for a model, cached
    m.def("choose_device", [](py::object param, py::object bin, const kite::Option& opt, py::object inputs, py::object cache_dir, bool refresh) {
        std::vector<std::pair<std::string, kite::Mat> > in;
        std::vector<PyMat> keep; // the arrays stay alive while timed
        if (!inputs.is_none())
        {
            for (auto kv : inputs.cast<py::dict>())
            {
                keep.push_back(py::isinstance<PyMat>(kv.second) ? kv.second.cast<PyMat>() : mat_from_array(kv.second));
                in.push_back(std::make_pair(py::str(kv.first).cast<std::string>(), keep.back().m));
            }
        }
        kite::DeviceChoiceSettings ds;
        if (!cache_dir.is_none())
            ds.cache_dir = py::str(cache_dir).cast<std::string>();
        ds.refresh = refresh;
        const std::string pp = py::str(param).cast<std::string>();
        const std::string bp = bin.is_none() ? std::string() : py::str(bin).cast<std::string>();
        kite::DeviceChoice c;
        int r;
        {
            py::gil_scoped_release nogil;
            r = kite::choose_device(pp.c_str(), bp.c_str(), opt, in, c, ds);
        }
        if (r != 0)
            throw std::runtime_error("choose_device: " + std::string(kite::last_error()));
        py::list cands;
        for (const kite::DeviceCandidate& d : c.candidates)
        {
            py::dict e;
            e["backend"] = d.backend;
            e["device"] = d.device;
            e["description"] = d.description;
            e["ms"] = d.ms < 0 ? py::object(py::none()) : py::object(py::float_(d.ms));
            e["status"] = d.status;
            cands.append(e);
        }
        py::dict out;
        out["backend"] = c.backend;
        out["device"] = c.device;
        out["from_cache"] = c.from_cache;
        out["cache_file"] = c.cache_file;
        out["summary"] = c.summary();
        out["candidates"] = cands;
        return out; }, py::arg("param"), py::arg("bin") = py::none(), py::arg("opt") = kite::Option(), py::arg("inputs") = py::none(),
          py::arg("cache_dir") = py::none(), py::arg("refresh") = false,
          "time the model on the CPU and each GPU backend (zero weights when bin is None) and return the fastest as a dict "
          "(backend: 0 CPU, kite.BACKEND_VULKAN, kite.BACKEND_OPENCL; device; from_cache; candidates); cached by model, inputs, "
          "options, devices and kite version. Apply with kite.apply_device_choice(choice, net.opt) before load_param");
    m.def("apply_device_choice", [](py::dict choice, kite::Option& opt) {
        kite::DeviceChoice c;
        c.backend = choice["backend"].cast<int>();
        c.device = choice["device"].cast<int>();
        kite::apply_device_choice(c, opt); }, py::arg("choice"), py::arg("opt"));

#if KITE_PY_ONNX
    m.def("convert_onnx", [](py::object src, py::object param_path, py::object bin_path, py::object input_shapes, bool fp16) {
              std::string data = source_bytes(src);
              kite_onnx::ConvertOptions opt;
              if (!input_shapes.is_none())
                  for (auto kv : input_shapes.cast<py::dict>())
                  {
                      kite_onnx::Shape s;
                      for (py::handle v : kv.second)
                      {
                          long long x = v.cast<long long>();
                          if (x < 1)
                              throw py::value_error("kite.convert_onnx: input shape of '" + kv.first.cast<std::string>() + "' has a size < 1");
                          s.push_back(x);
                      }
                      opt.input_shapes[kv.first.cast<std::string>()] = s;
                  }
              kite::convert::Graph g;
              kite::convert::FinalizeOptions fo;
              std::string err;
              bool ok;
              {
                  py::gil_scoped_release nogil;
                  ok = kite_onnx::convert_onnx_buffer(data.data(), data.size(), opt, g, fo.outputs, nullptr, err);
              }
              if (!ok)
                  throw std::runtime_error("onnx2kite: " + err);
              return finish_conversion(g, fo, fp16, param_path, bin_path, "onnx2kite");
          },
          py::arg("model"), py::arg("param_path") = py::none(), py::arg("bin_path") = py::none(),
          py::arg("input_shapes") = py::none(), py::arg("fp16") = false,
          "ONNX model (path or bytes) -> (param bytes, bin bytes), or written to param_path / bin_path (returns None)");
    m.def("onnx_supported_ops", []() { return kite_onnx::supported_ops(); });
#endif
#if KITE_PY_CAFFE
    m.def("convert_caffe", [](py::object prototxt, py::object caffemodel, py::object param_path, py::object bin_path, bool fp16) {
              std::string proto = source_bytes(prototxt), model = source_bytes(caffemodel);
              if (model.empty())
                  throw py::value_error("caffe2kite: the caffemodel is empty");
              kite::convert::Graph g;
              kite::convert::UnsupportedOps unsupported;
              std::string err;
              int r;
              {
                  py::gil_scoped_release nogil;
                  r = kite::caffe::convert_caffe(proto, model, g, unsupported, err);
              }
              if (r < 0)
                  throw std::runtime_error("caffe2kite: " + err);
              if (r > 0)
                  throw std::runtime_error("caffe2kite: " + unsupported.text());
              kite::convert::FinalizeOptions fo;
              return finish_conversion(g, fo, fp16, param_path, bin_path, "caffe2kite");
          },
          py::arg("prototxt"), py::arg("caffemodel"), py::arg("param_path") = py::none(), py::arg("bin_path") = py::none(),
          py::arg("fp16") = false, "Caffe deploy prototxt + caffemodel (paths or bytes) -> (param, bin) bytes or files");
#endif
#if KITE_PY_TF
    m.def("convert_tensorflow", [](py::object pb, py::object param_path, py::object bin_path, py::object inputs, py::object outputs) {
              std::string data = source_bytes(pb);
              kite::tf::ConvertOptions opt;
              if (!inputs.is_none())
                  opt.inputs = inputs.cast<std::vector<std::string> >();
              if (!outputs.is_none())
                  opt.outputs = outputs.cast<std::vector<std::string> >();
              kite::convert::Graph g;
              kite::convert::UnsupportedOps unsupported;
              std::vector<std::string> outs;
              std::string err;
              int r;
              {
                  py::gil_scoped_release nogil;
                  r = kite::tf::convert_graphdef(std::move(data), opt, g, unsupported, outs, err);
              }
              if (r != 0)
                  throw std::runtime_error("tensorflow2kite: " + err);
              if (!unsupported.empty())
                  throw std::runtime_error("tensorflow2kite: " + unsupported.text());
              kite::convert::FinalizeOptions fo;
              fo.outputs = outs;
              return finish_conversion(g, fo, false, param_path, bin_path, "tensorflow2kite");
          },
          py::arg("graphdef"), py::arg("param_path") = py::none(), py::arg("bin_path") = py::none(),
          py::arg("inputs") = py::none(), py::arg("outputs") = py::none(),
          "frozen TensorFlow GraphDef (.pb path or bytes, NHWC inputs) -> (param, bin) bytes or files");
#endif
#if KITE_PY_TFLITE
    m.def("convert_tflite", [](py::object model, py::object param_path, py::object bin_path, bool int8, py::object fp16) {
              std::string data = source_bytes(model);
              kite::convert::tflite::ConvertOptions opt;
              opt.int8_layers = int8;
              kite::convert::Graph g;
              kite::convert::UnsupportedOps unsupported;
              kite::convert::tflite::ConvertStats stats;
              std::string err;
              int r;
              {
                  py::gil_scoped_release nogil;
                  r = kite::convert::tflite::convert_model(reinterpret_cast<const uint8_t*>(data.data()), data.size(), opt, g,
                                                           unsupported, stats, err);
              }
              if (r != 0)
                  throw std::runtime_error("tflite2kite: " + err);
              if (!unsupported.empty())
                  throw std::runtime_error("tflite2kite: " + unsupported.text());
              // default: fp16 storage when the model's weights were fp16 (exact)
              const bool f16 = fp16.is_none() ? stats.fp16_weights > 0 && stats.float_weights == 0 : fp16.cast<bool>();
              kite::convert::FinalizeOptions fo;
              fo.outputs = stats.outputs;
              return finish_conversion(g, fo, f16, param_path, bin_path, "tflite2kite");
          },
          py::arg("model"), py::arg("param_path") = py::none(), py::arg("bin_path") = py::none(), py::arg("int8") = true,
          py::arg("fp16") = py::none(),
          "TensorFlow Lite model (.tflite path or bytes: fp32, fp16 or int8; NHWC inputs) -> (param, bin) bytes or files");
#endif
#if KITE_PY_BENCH
    m.def("_benchkite", [](std::vector<std::string> args) {
        std::vector<std::string> a = args;
        a.insert(a.begin(), "benchkite");
        std::vector<char*> argv;
        for (std::string& s : a)
            argv.push_back(&s[0]);
        argv.push_back(nullptr);
        int r;
        {
            py::gil_scoped_release nogil;
            fflush(stdout);
            r = kite_benchkite_main((int)a.size(), argv.data());
            fflush(stdout);
            fflush(stderr);
        }
        return r;
    });
#endif
}
