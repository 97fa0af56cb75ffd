// The Extractor: one forward of a Net (blob bookkeeping, layout conversion
// between layers, CPU and GPU layer runs, the placement report). Net's loading
// and graph building are in net.cpp.
#include "net.h"
#include "gpu/cpu_fallback.h"
#include "gpu/layer_note.h"
#include "gpu/recording.h"

#include "cpu.h"
#include "log.h"
#include "input.h"
#include "memory_limit.h"
#include "layer_work.h"

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#if defined(__GLIBC__)
#include <malloc.h> // malloc_trim
#endif

namespace kite {

// ---------------------------------------------------------------------------
// Extractor

Extractor::Extractor(const Net* _net) : net(_net), opt(_net->opt), observer(nullptr), observer_userdata(nullptr)
{
    blob_mats.resize(net->blobs_.size());
    blob_gpu.resize(net->blobs_.size());
    consumed.assign(net->blobs_.size(), 0);
    computed.assign(net->blobs_.size(), 0);
    ran_on.assign(net->layers_.size(), -1);
    ran_isa.assign(net->layers_.size(), 0);
    ran_fallback.assign(net->layers_.size(), 0);
}

static thread_local int g_gpu_layers_on_cpu = 0;

void note_gpu_layer_on_cpu()
{
    g_gpu_layers_on_cpu++;
}

int gpu_layers_on_cpu()
{
    return g_gpu_layers_on_cpu;
}

static thread_local int g_cpu_layers_on_reference = 0;

void note_cpu_layer_on_reference()
{
    g_cpu_layers_on_reference++;
}

int cpu_layers_on_reference()
{
    return g_cpu_layers_on_reference;
}

LayerPlacement Net::layer_placement(int layer_index) const
{
    LayerPlacement p;
    if (layer_index < 0 || layer_index >= (int)layers_.size())
        return p;
    const Layer* l = layers_[layer_index];
    p.backend = l->backend;
    p.isa = l->backend == BACKEND_CPU ? l->isa : 0;
    p.custom = layer_index < (int)layer_custom_index_.size() && layer_custom_index_[layer_index] >= 0;
    p.row = p.custom && p.backend == BACKEND_CPU ? "custom" : layer_row_name(p.backend, p.isa);
    p.path = l->kernel_path();
    return p;
}

LayerPlacement Extractor::layer_placement(int layer_index) const
{
    LayerPlacement p;
    if (layer_index < 0 || layer_index >= (int)ran_on.size() || ran_on[layer_index] < 0)
        return p;
    const Layer* l = net->layers_[layer_index];
    p.ran = true;
    p.backend = ran_on[layer_index];
    p.isa = p.backend == BACKEND_CPU ? ran_isa[layer_index] : 0;
    p.custom = layer_index < (int)net->layer_custom_index_.size() && net->layer_custom_index_[layer_index] >= 0;
    p.row = p.custom && p.backend == BACKEND_CPU ? "custom" : layer_row_name(p.backend, p.isa);
    // the kernel the layer chose, unless the run went to other code (a GPU
    // layer on the CPU, a CPU driver handing it to its reference)
    if (!ran_fallback[layer_index])
        p.path = l->kernel_path();
    return p;
}

std::vector<LayerPlacement> Extractor::placement() const
{
    std::vector<LayerPlacement> all(ran_on.size());
    for (size_t i = 0; i < all.size(); i++)
        all[i] = layer_placement((int)i);
    return all;
}

int Extractor::layer_backend(int layer_index) const
{
    if (layer_index < 0 || layer_index >= (int)ran_on.size())
        return -1;
    if (net->layers_[layer_index]->type == "Input")
        return BACKEND_CPU;
    return ran_on[layer_index];
}

Extractor::~Extractor()
{
    clear();
}

Extractor::Extractor(const Extractor& rhs)
    : net(rhs.net), opt(rhs.opt), blob_mats(rhs.blob_mats), consumed(rhs.consumed), computed(rhs.computed), blob_gpu(rhs.blob_gpu), ran_on(rhs.ran_on), ran_isa(rhs.ran_isa), ran_fallback(rhs.ran_fallback), observer(rhs.observer), observer_userdata(rhs.observer_userdata),
      rec(rhs.rec), chapter(rhs.chapter), recording(false), ran_any(rhs.ran_any), no_recording(rhs.no_recording), stats(rhs.stats)
{
    for (int b = 0; b < 3; b++)
        sessions[b] = rhs.sessions[b];
    // two Extractors on one recording: neither replays it again
    if (rec)
        rec->taint();
}

Extractor& Extractor::operator=(const Extractor& rhs)
{
    if (this == &rhs)
        return *this;
    net = rhs.net;
    opt = rhs.opt;
    blob_mats = rhs.blob_mats;
    consumed = rhs.consumed;
    computed = rhs.computed;
    blob_gpu = rhs.blob_gpu;
    ran_on = rhs.ran_on;
    ran_isa = rhs.ran_isa;
    ran_fallback = rhs.ran_fallback;
    for (int b = 0; b < 3; b++)
        sessions[b] = rhs.sessions[b];
    observer = rhs.observer;
    observer_userdata = rhs.observer_userdata;
    give_back_recording();
    rec = rhs.rec;
    chapter = rhs.chapter;
    recording = false;
    ran_any = rhs.ran_any;
    no_recording = rhs.no_recording;
    stats = rhs.stats;
    if (rec)
        rec->taint();
    return *this;
}

void Extractor::clear()
{
    for (Mat& m : blob_mats)
        m.release();
    for (GpuBlobPtr& g : blob_gpu)
        g.reset();
    std::fill(consumed.begin(), consumed.end(), 0);
    std::fill(computed.begin(), computed.end(), 0);
    give_back_recording();
    ran_any = false;
    no_recording = false;
    stats = GpuRunStats();
}

Extractor::GpuRunStats Extractor::gpu_run_stats() const
{
    return stats;
}

// KITE_GPU_REPLAY=0: every forward runs layer by layer (for comparisons)
static bool replay_enabled()
{
    static const bool on = [] {
        const char* e = getenv("KITE_GPU_REPLAY");
        return !(e && e[0] == '0');
    }();
    return on;
}

void Extractor::give_back_recording()
{
    if (!rec)
        return;
    const bool keep = !rec->tainted && !recording && !rec->chapters.empty();
    for (int b = 0; b < 3; b++)
        if (sessions[b] && sessions[b] == rec->sessions[b])
            sessions[b].reset();
    if (keep)
    {
        // a few per Net: one per input shape in use, or per thread
        std::lock_guard<std::mutex> lock(net->recordings_->lock);
        std::vector<std::shared_ptr<GpuRecording> >& idle = net->recordings_->idle;
        idle.push_back(rec);
        if (idle.size() > 4)
            idle.erase(idle.begin());
    }
    rec.reset();
    chapter = 0;
    recording = false;
}

void Extractor::stop_replaying()
{
    if (rec && !rec->tainted)
        rec->taint();
    recording = false;
}

void Extractor::record_event(int kind, int backend, int index, int slot, int quant_layer)
{
    if (recording && rec && !rec->tainted)
        rec->events.push_back(GpuRecording::Event{kind, backend, index, slot, quant_layer});
}

// Before the layers of an extract run: 1 when a recorded chapter was
// replayed (the target is computed), 0 to run the layers (recording them
// when `recording` is set), < 0 on error.
int Extractor::begin_chapter(int target)
{
    recording = false;
    if (rec && rec->tainted)
        return 0;
    if (!rec)
    {
        if (ran_any || no_recording || observer || !replay_enabled())
            return 0;
        // only where a GPU layer may run: CPU-only nets pay nothing
        bool gpu = false;
        for (const Layer* l : net->layers_)
            gpu = gpu || l->backend != BACKEND_CPU;
        if (!gpu)
            return 0;
        std::vector<long long> key;
        key.push_back(opt.lightmode ? 1 : 0);
        key.push_back(target);
        for (size_t bi = 0; bi < blob_mats.size(); bi++)
        {
            if (!computed[bi])
                continue;
            const Mat& m = blob_mats[bi];
            const long long k[] = {(long long)bi, m.dims, m.w, m.h, m.d, m.c, m.elempack, (long long)m.elemsize};
            key.insert(key.end(), k, k + 8);
        }
        {
            std::lock_guard<std::mutex> lock(net->recordings_->lock);
            std::vector<std::shared_ptr<GpuRecording> >& idle = net->recordings_->idle;
            for (size_t i = idle.size(); i-- > 0;)
            {
                if (idle[i]->key == key)
                {
                    rec = idle[i];
                    idle.erase(idle.begin() + i);
                    break;
                }
            }
        }
        if (!rec)
        {
            rec = std::make_shared<GpuRecording>();
            rec->key = key;
        }
        for (int b = 0; b < 3; b++)
            sessions[b] = rec->sessions[b];
        chapter = 0;
    }
    if (chapter < (int)rec->chapters.size())
    {
        if (rec->chapters[chapter].target != target)
        {
            stop_replaying(); // extracted in another order than recorded
            return 0;
        }
        int ret = replay_chapter();
        if (ret == 0)
        {
            stats.replayed++;
            stats.segments = rec->segments();
            return 1;
        }
        stop_replaying();
        return ret == KITE_GPU_REPLAY_MISMATCH ? 0 : ret;
    }
    recording = true;
    return 0;
}

// After the layers of a recorded extract: the target on the CPU, the work
// left on a session submitted, the Extractor's state kept for the replays.
int Extractor::end_chapter(int target)
{
    int ret = blob_on_cpu(target);
    for (int b = 1; b < 3 && ret == 0; b++)
    {
        GpuSession* s = sessions[b].get();
        if (s && s == rec->sessions[b].get() && s->pending())
        {
            ret = s->finish();
            record_event(GpuRecording::SEGMENT, b, -1, s->segments() - 1);
        }
    }
    if (ret != 0 || !recording || rec->tainted)
    {
        stop_replaying();
        return ret;
    }
    GpuRecording::Chapter c;
    c.target = target;
    c.end = rec->events.size();
    c.blob_gpu = blob_gpu;
    c.consumed = consumed;
    c.computed = computed;
    c.mat_alive.resize(blob_mats.size());
    for (size_t i = 0; i < blob_mats.size(); i++)
        c.mat_alive[i] = !blob_mats[i].empty();
    c.ran_on = ran_on;
    c.ran_isa = ran_isa;
    c.ran_fallback = ran_fallback;
    rec->chapters.push_back(c);
    chapter++;
    stats.recorded++;
    stats.segments = rec->segments();
    recording = false;
    return 0;
}

int Extractor::replay_chapter()
{
    GpuRecording& r = *rec;
    const GpuRecording::Chapter& c = r.chapters[chapter];
    const size_t first = chapter == 0 ? 0 : r.chapters[chapter - 1].end;
    // where a CPU layer's output comes out in another shape than recorded,
    // the extract runs layer by layer from here
    const std::vector<Mat> mats0 = blob_mats;
    const std::vector<GpuBlobPtr> gpu0 = blob_gpu;
    const std::vector<int> consumed0 = consumed;
    const std::vector<char> computed0 = computed;
    int ret = 0;
    for (size_t i = first; i < c.end && ret == 0; i++)
    {
        const GpuRecording::Event& e = r.events[i];
        GpuSession* s = e.kind == GpuRecording::CPU_LAYER ? nullptr : r.sessions[e.backend].get();
        if (e.kind != GpuRecording::CPU_LAYER && !s)
            return -1;
        if (e.kind == GpuRecording::UPLOAD)
        {
            Mat m = blob_mats[e.index];
            if (!m.empty() && e.quant_layer >= 0)
            {
                Mat q;
                ret = net->layers_[e.quant_layer]->quantize_input(m, q, opt);
                m = ret == 0 ? q : Mat();
                if (ret > 0)
                    ret = 0; // (not quantized: an input of another shape or type than recorded)
            }
            if (ret == 0)
                ret = m.empty() ? KITE_GPU_REPLAY_MISMATCH : s->replay_upload(e.slot, m, opt);
        }
        else if (e.kind == GpuRecording::DOWNLOAD)
        {
            Mat m;
            ret = s->replay_download(e.slot, m, opt);
            if (ret == 0)
                blob_mats[e.index] = m;
            else
                KITE_LOGE("replay: download of blob '%s' from the GPU failed (%d)", net->blobs_[e.index].name.c_str(), ret);
        }
        else if (e.kind == GpuRecording::SEGMENT)
        {
            ret = s->replay_segment(e.slot);
        }
        else
        {
            ret = run_layer_cpu(e.index);
        }
    }
    if (ret == KITE_GPU_REPLAY_MISMATCH)
    {
        blob_mats = mats0;
        blob_gpu = gpu0;
        consumed = consumed0;
        computed = computed0;
    }
    if (ret != 0)
        return ret;
    blob_gpu = c.blob_gpu;
    consumed = c.consumed;
    computed = c.computed;
    for (size_t i = 0; i < blob_mats.size(); i++)
        if (!c.mat_alive[i])
            blob_mats[i].release();
    ran_on = c.ran_on;
    ran_isa = c.ran_isa;
    ran_fallback = c.ran_fallback;
    chapter++;
    return 0;
}

void Extractor::set_light_mode(bool enable) { opt.lightmode = enable; }
void Extractor::set_num_threads(int num_threads) { opt.num_threads = num_threads > 0 ? num_threads : 1; }
void Extractor::set_blob_allocator(Allocator* allocator) { opt.blob_allocator = allocator; }
void Extractor::set_workspace_allocator(Allocator* allocator) { opt.workspace_allocator = allocator; }

void Extractor::set_layer_observer(layer_observer_func f, void* userdata)
{
    if (f)
        stop_replaying(); // the observer times each layer
    observer = f;
    observer_userdata = userdata;
}

// A model converted at one input size that computes correctly only there
// (Input's fixed_size, written by the converters) refuses another shape
// instead of giving wrong output or failing deep inside the graph.
static bool refused_by_fixed_input(const Layer* producer, bool custom_input, const std::string& blob_name, const Mat& in)
{
    if (!producer || producer->type != "Input" || custom_input) // custom_input: an application's own Input layer
        return false;
    const Input* decl = static_cast<const Input*>(producer);
    if (!decl->fixed_size)
        return false;
    // the declared extents against the Mat's, the packed axis unpacked
    const int ep = in.elempack;
    const int iw = in.dims == 1 ? in.w * ep : in.w;
    const int ih = in.dims == 2 ? in.h * ep : in.h;
    const int ic = in.dims >= 3 ? in.c * ep : 0;
    const int id = in.dims == 4 ? in.d : 0;
    const bool differs = (decl->w && iw != decl->w) || (decl->h && in.dims >= 2 && ih != decl->h)
                         || (decl->c && ic != decl->c) || (decl->d && id != decl->d)
                         || (decl->h && in.dims < 2) || (decl->c && in.dims < 3);
    if (!differs)
        return false;
    KITE_LOGE("input: blob '%s' is [w=%d h=%d d=%d c=%d], but this model runs only at its declared input size "
              "[w=%d h=%d d=%d c=%d] (the converter found that it computes correctly only at that size: see its note)",
              blob_name.c_str(), iw, in.dims >= 2 ? ih : 1, id ? id : 1, ic ? ic : 1,
              decl->w, decl->h, decl->d ? decl->d : 1, decl->c);
    return true;
}

int Extractor::input(int blob_index, const Mat& in)
{
    if (blob_index < 0 || blob_index >= (int)blob_mats.size())
    {
        KITE_LOGE("input: blob index %d out of range 0..%d", blob_index, (int)blob_mats.size() - 1);
        return -1;
    }
    if (in.empty())
    {
        KITE_LOGE("input: empty Mat for blob '%s'", net->blobs_[blob_index].name.c_str());
        return -1;
    }
    {
        const int p = net->blobs_[blob_index].producer;
        bool custom_input = false;
        for (const auto& cl : net->custom_layers_)
            custom_input = custom_input || cl.type == "Input";
        if (refused_by_fixed_input(p >= 0 ? net->layers_[p] : nullptr, custom_input, net->blobs_[blob_index].name, in))
            return -1;
    }
    if (ran_any)
    {
        // a new value after an extract: the rest runs layer by layer
        no_recording = true;
        stop_replaying();
    }
    blob_mats[blob_index] = in;
    blob_gpu[blob_index].reset();
    computed[blob_index] = 1;
    // the Input layer that declares this blob "ran": its value is set
    const int producer = net->blobs_[blob_index].producer;
    if (producer >= 0 && net->layers_[producer]->type == "Input")
    {
        ran_on[producer] = BACKEND_CPU;
        ran_isa[producer] = (signed char)net->layers_[producer]->isa;
        ran_fallback[producer] = 0;
    }
    return 0;
}

int Extractor::input(const char* blob_name, const Mat& in)
{
    int bi = net->find_blob_index_by_name(blob_name);
    if (bi < 0)
    {
        KITE_LOGE("input: no blob named '%s'", blob_name);
        return -1;
    }
    return input(bi, in);
}

int Extractor::extract(const char* blob_name, Mat& feat, int type)
{
    int bi = net->find_blob_index_by_name(blob_name);
    if (bi < 0)
    {
        KITE_LOGE("extract: no blob named '%s'", blob_name);
        return -1;
    }
    return extract(bi, feat, type);
}

// the elempack a layer compiled for `isa` wants along an axis of `scalars`
static int preferred_elempack(int isa, int scalars, int elembits)
{
    // int8 blobs stay planar: the CPU int8 kernels read and write planar
    // int8 (packing them for a packing layer meant unpacking them again)
    if (elembits == 8)
        return 1;
    int best = cpu_isa_vector_floats(isa);
    if (isa == CPU_ISA_ARM82 && elembits == 16) // fp16 arithmetic: 8 halves per register
        best = 8;
    // 4 is the narrowest vector: an axis of 2 or 6 scalars stays unpacked
    for (int p = best; p >= 4; p /= 2)
        if (scalars % p == 0)
            return p;
    return 1;
}

int preferred_elempack_for(const Layer* layer, int scalars, int elembits)
{
    return preferred_elempack(layer->isa, scalars, elembits);
}

// Matrices of rows (elempack 1, dims >= 2, rows of w >= 16 scalars: the
// [E, tokens] blobs of transformers, convnext's channels-last MLP, what an
// InnerProduct or MatMul writes and reads) stay unpacked into the CPU drivers
// that run them unpacked as well and pass the layout on: Reshape (its first
// input; it keeps rows unpacked, see reshape_cpu.cpp), GELU (element-wise),
// BinaryOp where every input is such a matrix or one that packing would leave
// unpacked anyway (a bias row [w,1,1]). Packing them there costs a copy of the
// blob each way around the next matrix product (convnext_tiny: three copies of
// its 384-wide MLP activations per block); the drivers vectorise along the rows.
static bool is_rows_blob(const Mat& m)
{
    return !m.empty() && m.elempack == 1 && m.dims >= 2 && m.w >= 16 && m.elembits() != 8;
}

static bool keeps_rows_unpacked(const Layer* layer, const std::vector<Mat>& bottoms)
{
    if (layer->backend != BACKEND_CPU || layer->isa == CPU_ISA_NONE || bottoms.empty())
        return false;
    const std::string& t = layer->type;
    if (t == "Reshape" || t == "GELU")
        return is_rows_blob(bottoms[0]);
    if (t != "BinaryOp")
        return false;
    bool any = false;
    for (const Mat& m : bottoms)
    {
        if (is_rows_blob(m))
        {
            any = true;
            continue;
        }
        const int axis = m.dims == 1 ? m.w : m.dims == 2 ? m.h : m.c;
        if (m.empty() || m.elempack != 1 || preferred_elempack(layer->isa, axis, m.elembits()) != 1)
            return false;
    }
    return any;
}

// Make a blob what the layer accepts: storage precision, then packing
// (none where keep_unpacked).
static int convert_blob_for_layer_impl(Mat& m, const Layer* layer, const Option& opt, bool keep_unpacked)
{
    if (m.empty())
        return 0;
    const int bits = m.elembits();
    // precision
    bool want16 = (opt.use_fp16_storage && layer->support_fp16_storage) || (opt.use_bf16_storage && layer->support_bf16_storage);
    if (bits == 16 && !want16)
    {
        Mat f;
        cast_to_float32(m, f, opt.use_bf16_storage && !opt.use_fp16_storage, opt);
        if (f.empty())
            return -100;
        m = f;
    }
    else if (bits == 32 && want16 && layer->isa != CPU_ISA_NONE)
    {
        Mat h;
        if (opt.use_fp16_storage && layer->support_fp16_storage)
            cast_float32_to_float16(m, h, opt);
        else
            cast_float32_to_bfloat16(m, h, opt);
        if (h.empty())
            return -100;
        m = h;
    }
    else if (bits == 8 && !layer->support_int8_storage)
    {
        Mat f;
        cast_int8_to_float32(m, f, opt);
        if (f.empty())
            return -100;
        m = f;
    }
    // packing
    if (layer->support_packing && opt.use_packing_layout)
    {
        if (layer->isa == CPU_ISA_NONE || keep_unpacked)
            return 0; // a layout-agnostic reference layer takes any packing
        int axis = m.dims == 1 ? m.w : m.dims == 2 ? m.h : m.c;
        int want = preferred_elempack(layer->isa, axis * m.elempack, m.elembits());
        if (want != m.elempack)
        {
            Mat p;
            convert_packing(m, p, want, opt);
            if (p.empty())
                return -100;
            m = p;
        }
    }
    else if (m.elempack != 1)
    {
        Mat p;
        convert_packing(m, p, 1, opt);
        if (p.empty())
            return -100;
        m = p;
    }
    return 0;
}

int convert_blob_for_layer(Mat& m, const Layer* layer, const Option& opt)
{
    return convert_blob_for_layer_impl(m, layer, opt, false);
}

int Extractor::run_layer(int li)
{
    const Layer* layer = net->layers_[li];
    if (layer->type == "Input")
    {
        KITE_LOGE("input blob '%s' is not set: call Extractor::input first (in light mode an input is also released "
                  "once its consumers ran; extract what you need in one pass or call set_light_mode(false))",
                  net->blobs_[layer->tops.empty() ? 0 : layer->tops[0]].name.c_str());
        return -1;
    }
    if (layer->backend != BACKEND_CPU)
    {
        // GPU blobs hold fp32/fp16 values: an int8 blob (the requantized
        // output of a CPU int8 layer) stays on the CPU, and the GPU layer's
        // reference class (its base) runs it there
        bool int8_input = false;
        for (int bi : layer->bottoms)
            int8_input = int8_input || (!blob_gpu[bi] && !blob_mats[bi].empty() && blob_mats[bi].elembits() == 8);
        if (!int8_input)
        {
            int ret = run_layer_gpu(li);
            if (ret != KITE_GPU_CANNOT_HOLD)
                return ret;
            // a blob of this layer does not fit the device's storage, or
            // its driver has no kernel for these shapes: the layer's
            // reference base class runs it on the CPU (nothing of the failed
            // attempt was kept), its consumers upload the result again
            // where they can
            static std::mutex told_mutex;
            static std::set<std::string> told;
            std::lock_guard<std::mutex> lock(told_mutex);
            if (told.insert(layer->name).second)
                KITE_LOGW("layer '%s' (%s) runs on the CPU: the GPU device cannot hold one of its blobs or has no kernel "
                          "for these shapes", layer->name.c_str(), layer->type.c_str());
        }
    }
    return run_layer_cpu(li);
}

// A layer on the CPU: its inputs downloaded where they are only on a GPU.
int Extractor::run_layer_cpu(int li)
{
    const Layer* layer = net->layers_[li];
    std::chrono::steady_clock::time_point t0;
    if (observer)
        t0 = std::chrono::steady_clock::now();

    std::vector<Mat> bottoms(layer->bottoms.size());
    for (size_t i = 0; i < layer->bottoms.size(); i++)
    {
        int dret = blob_on_cpu(layer->bottoms[i]);
        if (dret != 0)
            return dret;
        bottoms[i] = blob_mats[layer->bottoms[i]];
    }
    const bool keep_rows = opt.use_packing_layout && keeps_rows_unpacked(layer, bottoms);
    for (size_t i = 0; i < layer->bottoms.size(); i++)
    {
        int bi = layer->bottoms[i];
        int dret = blob_on_cpu(bi);
        if (dret != 0)
            return dret;
        if (blob_mats[bi].empty())
        {
            KITE_LOGE("layer '%s' (%s): input blob '%s' is empty", layer->name.c_str(), layer->type.c_str(), net->blobs_[bi].name.c_str());
            return -1;
        }
        bottoms[i] = blob_mats[bi];
        int ret = convert_blob_for_layer_impl(bottoms[i], layer, opt, keep_rows && is_rows_blob(bottoms[i]));
        if (ret != 0)
            return ret;
        consumed[bi]++;
        // light mode: drop our reference once every consumer has used the blob
        if (opt.lightmode && consumed[bi] >= (int)net->blobs_[bi].consumers.size())
            release_blob(bi);
    }

    std::vector<Mat> tops(layer->tops.size());
    if (layer->one_blob_only && (bottoms.size() != 1 || tops.size() != 1))
    {
        KITE_LOGE("layer '%s' (%s) takes one input and one output", layer->name.c_str(), layer->type.c_str());
        return -1;
    }
    int ret = 0;
    const int references = cpu_layers_on_reference();
    // a small layer runs on fewer threads (layer_work.h; off unless
    // KITE_THREAD_MIN_WORK is set: no work estimate per layer then)
    Option lopt = opt;
    const int64_t min_work = thread_min_work();
    if (min_work > 0 && opt.num_threads > 1)
    {
        const bool custom = li < (int)net->layer_custom_index_.size() && net->layer_custom_index_[li] >= 0;
        lopt.num_threads = threads_for_work(opt.num_threads, layer_forward_work(layer, custom, bottoms), min_work);
    }
    if (layer->support_inplace)
    {
        // in place only on data nobody else holds
        for (Mat& b : bottoms)
        {
            if (!b.refcount || *b.refcount > 1)
            {
                b = b.clone(opt.blob_allocator);
                if (b.empty())
                    return -100;
            }
        }
        if (layer->one_blob_only)
            ret = layer->forward_inplace(bottoms[0], lopt);
        else
            ret = layer->forward_inplace(bottoms, lopt);
        if (ret == 0)
        {
            if (layer->one_blob_only)
                tops[0] = bottoms[0];
            else
                for (size_t i = 0; i < tops.size() && i < bottoms.size(); i++)
                    tops[i] = bottoms[i];
        }
    }
    else if (layer->one_blob_only)
    {
        ret = layer->forward(bottoms[0], tops[0], lopt);
    }
    else
    {
        ret = layer->forward(bottoms, tops, lopt);
    }
    ran_on[li] = BACKEND_CPU;
    // a GPU layer here runs its reference base class; a CPU driver may hand
    // the run to its reference too (note_cpu_layer_on_reference)
    ran_fallback[li] = (char)(layer->backend != BACKEND_CPU || cpu_layers_on_reference() != references);
    ran_isa[li] = (signed char)(ran_fallback[li] ? CPU_ISA_NONE : layer->isa);
    if (ret != 0)
    {
        KITE_LOGE("layer '%s' (%s) failed with %d", layer->name.c_str(), layer->type.c_str(), ret);
        return ret;
    }
    if (tops.size() != layer->tops.size())
    {
        KITE_LOGE("layer '%s' (%s) produced %d outputs, expected %d", layer->name.c_str(), layer->type.c_str(), (int)tops.size(), (int)layer->tops.size());
        return -1;
    }
    for (size_t i = 0; i < tops.size(); i++)
    {
        // an empty output is legitimate (a detection layer that found nothing);
        // a consumer of it reports the error
        blob_mats[layer->tops[i]] = tops[i];
        blob_gpu[layer->tops[i]].reset();
        consumed[layer->tops[i]] = 0;
        computed[layer->tops[i]] = 1;
    }
    record_event(GpuRecording::CPU_LAYER, BACKEND_CPU, li, -1);
    if (observer)
    {
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        observer(layer, li, ms, tops, observer_userdata);
    }
    return 0;
}

GpuSession* Extractor::session_for(int backend)
{
    if (backend <= BACKEND_CPU || backend > BACKEND_OPENCL)
        return nullptr;
    if (!sessions[backend])
    {
        GpuBackend* b = gpu_backend(backend);
        GpuSession* s = b ? b->create_session(opt) : nullptr;
        if (!s)
        {
            KITE_LOGE("could not start a %s session", b ? b->name() : "GPU");
            return nullptr;
        }
        sessions[backend].reset(s);
        if (rec)
        {
            // a recording's sessions record from their start
            rec->sessions[backend] = sessions[backend];
            if (!rec->tainted && !s->start_recording())
                stop_replaying(); // the backend cannot replay: layer by layer as before
        }
    }
    return sessions[backend].get();
}

void Extractor::release_blob(int bi)
{
    blob_mats[bi].release();
    blob_gpu[bi].reset();
    computed[bi] = 0;
}

int Extractor::blob_on_cpu(int bi)
{
    if (!blob_mats[bi].empty() || !blob_gpu[bi])
        return 0;
    GpuSession* s = session_for(blob_gpu[bi]->backend);
    if (!s)
        return -1;
    Mat m;
    int ret = s->download(blob_gpu[bi], m, opt);
    if (ret != 0)
    {
        KITE_LOGE("download of blob '%s' from the GPU failed (%d)", net->blobs_[bi].name.c_str(), ret);
        return ret;
    }
    blob_mats[bi] = m;
    record_event(GpuRecording::DOWNLOAD, blob_gpu[bi]->backend, bi, s->download_slots() - 1);
    return 0;
}

// Blob bi about to be uploaded: the index of an int8 layer whose
// Layer::quantize_input should make the uploaded blob, or -1. Only with fp16
// storage, for an fp32 blob that no layer reads as floats: every reader,
// through Splits (their outputs are the same device blob), quantizes it with
// the same scale, or is a PriorBox (it reads only the shape). The uploaded
// int8 blob (integers, exact in fp16) then serves them all, where an fp16
// copy would move values near a quantization step by one.
int Extractor::upload_quantizer(int bi) const
{
    const Mat& m = blob_mats[bi];
    if (!opt.use_fp16_storage || m.empty() || m.elemsize / m.elempack != 4u)
        return -1;
    int quantizer = -1;
    float scale = 0.f;
    std::vector<int> blobs(1, bi);
    for (size_t k = 0; k < blobs.size(); k++)
    {
        for (int c : net->blobs_[blobs[k]].consumers)
        {
            const Layer* l = net->layers_[c];
            const float sc = l->int8_input_scale();
            if (sc != 0.f && (quantizer < 0 || sc == scale))
            {
                if (quantizer < 0)
                    quantizer = c, scale = sc;
            }
            else if (l->type == "Split" && blobs.size() < 64)
                blobs.insert(blobs.end(), l->tops.begin(), l->tops.end());
            else if (l->type != "PriorBox")
                return -1;
        }
    }
    return quantizer;
}

// A layer of a GPU backend: inputs are uploaded (or moved between backends)
// where needed; the outputs stay on the GPU until a CPU layer or extract()
// asks for them.
int Extractor::run_layer_gpu(int li)
{
    const Layer* layer = net->layers_[li];
    GpuSession* s = session_for(layer->backend);
    if (!s)
        return -1;
    std::chrono::steady_clock::time_point t0;
    if (observer)
        t0 = std::chrono::steady_clock::now();

    std::vector<GpuBlobPtr> bottoms(layer->bottoms.size());
    for (size_t i = 0; i < layer->bottoms.size(); i++)
    {
        int bi = layer->bottoms[i];
        if (blob_gpu[bi] && blob_gpu[bi]->backend != layer->backend)
        {
            int ret = blob_on_cpu(bi); // from another GPU backend: through the CPU
            if (ret != 0)
                return ret;
            blob_gpu[bi].reset();
        }
        if (!blob_gpu[bi])
        {
            if (blob_mats[bi].empty())
            {
                KITE_LOGE("layer '%s' (%s): input blob '%s' is empty", layer->name.c_str(), layer->type.c_str(), net->blobs_[bi].name.c_str());
                return -1;
            }
            // fp16 storage: a float blob only int8 layers read goes up
            // quantized on the host from fp32 (upload_quantizer)
            int quant_layer = upload_quantizer(bi);
            Mat up = blob_mats[bi];
            if (quant_layer >= 0)
            {
                Mat q;
                int qret = net->layers_[quant_layer]->quantize_input(up, q, opt);
                if (qret < 0)
                    return qret;
                if (qret == 0)
                    up = q;
                else
                    quant_layer = -1;
            }
            int ret = s->upload(up, blob_gpu[bi], layer, opt);
            if (ret == KITE_GPU_CANNOT_HOLD)
            {
                blob_gpu[bi].reset();
                return ret; // too large for the device: the layer runs on the CPU
            }
            if (ret != 0 || !blob_gpu[bi])
            {
                KITE_LOGE("layer '%s' (%s): upload of blob '%s' failed", layer->name.c_str(), layer->type.c_str(), net->blobs_[bi].name.c_str());
                return ret != 0 ? ret : -1;
            }
            record_event(GpuRecording::UPLOAD, layer->backend, bi, s->upload_slots() - 1, quant_layer);
        }
        bottoms[i] = blob_gpu[bi];
        int ret = s->convert_for_layer(bottoms[i], layer, opt);
        if (ret != 0)
            return ret;
    }
    std::vector<GpuBlobPtr> tops(layer->tops.size());
    const int fallbacks = gpu_layers_on_cpu();
    const int syncs = s->syncs;
    set_gpu_layer_type(layer->type.c_str());
    int ret = layer->forward_gpu(bottoms, tops, *s, opt);
    set_gpu_layer_type(nullptr);
    // a layer that waited on the host (downloaded, ran something on the CPU)
    // cannot be replayed without running it
    if (recording && (s->syncs != syncs || gpu_layers_on_cpu() != fallbacks))
        stop_replaying();
    if (ret == KITE_GPU_CANNOT_HOLD)
        return ret; // the caller runs the layer on the CPU; the inputs are kept for it
    // inputs consumed only now, so that a layer handed to the CPU still finds them
    for (int bi : layer->bottoms)
    {
        consumed[bi]++;
        if (opt.lightmode && consumed[bi] >= (int)net->blobs_[bi].consumers.size())
            release_blob(bi);
    }
    ran_on[li] = (signed char)(gpu_layers_on_cpu() != fallbacks ? BACKEND_CPU : layer->backend);
    ran_fallback[li] = (char)(ran_on[li] != layer->backend);
    ran_isa[li] = CPU_ISA_NONE; // (on the CPU after all: the GPU layer's reference base class ran)
    bottoms.clear();
    if (ret != 0)
    {
        KITE_LOGE("layer '%s' (%s) failed on the GPU with %d", layer->name.c_str(), layer->type.c_str(), ret);
        return ret;
    }
    if (tops.size() != layer->tops.size())
    {
        KITE_LOGE("layer '%s' (%s) produced %d outputs, expected %d", layer->name.c_str(), layer->type.c_str(), (int)tops.size(), (int)layer->tops.size());
        return -1;
    }
    for (size_t i = 0; i < tops.size(); i++)
    {
        int ti = layer->tops[i];
        blob_mats[ti].release();
        blob_gpu[ti] = tops[i];
        consumed[ti] = 0;
        computed[ti] = 1;
    }
    if (observer)
    {
        // time the layer itself: wait for it, then hand the observer CPU copies
        s->finish();
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::vector<Mat> shapes(tops.size());
        for (size_t i = 0; i < tops.size(); i++)
            if (tops[i])
                shapes[i] = tops[i]->shape;
        observer(layer, li, ms, shapes, observer_userdata);
    }
    return 0;
}

int Extractor::extract(int blob_index, Mat& feat, int type)
{
    if (blob_index < 0 || blob_index >= (int)blob_mats.size())
    {
        KITE_LOGE("extract: blob index %d out of range", blob_index);
        return -1;
    }
    if (!net->model_loaded_)
    {
        KITE_LOGE("extract: the model weights are not loaded");
        return -1;
    }
    if (!computed[blob_index])
    {
        // find every layer needed, walking producers back from the blob
        const size_t nl = net->layers_.size();
        std::vector<char> needed(nl, 0);
        std::vector<int> stack;
        int p = net->blobs_[blob_index].producer;
        if (p < 0)
        {
            KITE_LOGE("extract: blob '%s' has no producer", net->blobs_[blob_index].name.c_str());
            return -1;
        }
        stack.push_back(p);
        needed[p] = 1;
        while (!stack.empty())
        {
            int li = stack.back();
            stack.pop_back();
            for (int bi : net->layers_[li]->bottoms)
            {
                if (computed[bi])
                    continue;
                int pp = net->blobs_[bi].producer;
                if (pp >= 0 && !needed[pp])
                {
                    needed[pp] = 1;
                    stack.push_back(pp);
                }
            }
        }
        int replayed = begin_chapter(blob_index);
        ran_any = true;
        if (replayed < 0)
            return replayed;
        // layers appear after their inputs' producers, so index order is a valid schedule
        for (size_t li = 0; li < nl && !replayed; li++)
        {
            if (!needed[li])
                continue;
            int ret = run_layer((int)li);
            if (ret != 0)
            {
                stop_replaying();
                return ret;
            }
        }
        if (recording)
        {
            int ret = end_chapter(blob_index);
            if (ret != 0)
                return ret;
        }
    }

    int dret = blob_on_cpu(blob_index);
    if (dret != 0)
        return dret;
    Mat m = blob_mats[blob_index];
    if (m.empty())
    {
        // computed but empty: a detection layer with no detections (as ncnn)
        feat.release();
        return 0;
    }
    if (type == 0)
    {
        if (m.elembits() != 32)
        {
            Mat f;
            cast_to_float32(m, f, opt.use_bf16_storage && !opt.use_fp16_storage, opt);
            m = f;
        }
        if (m.elempack != 1)
        {
            Mat u;
            convert_packing(m, u, 1, opt);
            m = u;
        }
        if (m.empty())
            return -100;
    }
    feat = m;
    return 0;
}

} // namespace kite
