#include "net.h"
#include "gpu/cpu_fallback.h"
#include "gpu/recording.h"

#include "cpu.h"
#include "log.h"
#include "memory_limit.h"

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

static const int kParamMagic = 7767517;
static const int kMaxLayers = 1 << 20;
static const int kMaxBlobsPerLayer = 1 << 16;
static const size_t kMaxParamTextBytes = (size_t)64 << 20;

Net::Net() : model_loaded_(false), declared_blob_count_(0), mmap_(nullptr), recordings_(std::make_shared<GpuRecordingCache>())
{
}

Net::~Net()
{
    clear();
}

int Net::register_custom_layer(const char* type, layer_creator_func creator, layer_destroyer_func destroyer, void* userdata)
{
    if (!type || !creator)
    {
        KITE_LOGE("register_custom_layer: type and creator are required");
        return -1;
    }
    for (auto& c : custom_layers_)
    {
        if (c.type == type)
        {
            c.creator = creator;
            c.destroyer = destroyer;
            c.userdata = userdata;
            return 0;
        }
    }
    custom_layers_.push_back(CustomLayer{type, creator, destroyer, userdata});
    return 0;
}

int Net::destroy_layer(Layer* layer)
{
    int ret = layer->destroy_pipeline(opt);
    for (size_t i = 0; i < layers_.size(); i++)
    {
        if (layers_[i] == layer && layer_custom_index_[i] >= 0)
        {
            const CustomLayer& c = custom_layers_[layer_custom_index_[i]];
            if (c.destroyer)
            {
                c.destroyer(layer, c.userdata);
                return ret;
            }
        }
    }
    delete layer;
    return ret;
}

void Net::clear()
{
    {
        // recorded forwards hold the layers' blobs and pipelines
        std::lock_guard<std::mutex> lock(recordings_->lock);
        recordings_->idle.clear();
    }
    for (Layer* l : layers_)
        destroy_layer(l);
    layers_.clear();
    layer_params_.clear();
    layer_custom_index_.clear();
    blobs_.clear();
    model_loaded_ = false;
    declared_blob_count_ = 0;
    delete mmap_;
    mmap_ = nullptr;
}

// Choose the implementation: custom layers first, then the registry rows of
// this type that the options and CPU allow (best ISA first), the reference last.
Layer* Net::create_layer_for(const std::string& type, int typeindex, const ParamDict& pd, const std::string& name, int& err)
{
    err = 0;
    for (size_t i = 0; i < custom_layers_.size(); i++)
    {
        if (custom_layers_[i].type == type || (typeindex >= 0x100 && (size_t)(typeindex & 0xff) == i))
        {
            Layer* l = custom_layers_[i].creator(custom_layers_[i].userdata);
            if (!l)
            {
                err = -1;
                return nullptr;
            }
            l->type = custom_layers_[i].type;
            l->typeindex = typeindex;
            l->userdata = custom_layers_[i].userdata;
            l->name = name;
            layer_custom_index_.push_back((int)i);
            if (l->load_param(pd) != 0)
            {
                KITE_LOGE("layer '%s' (%s): invalid parameters", name.c_str(), type.c_str());
                layer_custom_index_.pop_back();
                delete l;
                err = -1;
                return nullptr;
            }
            layer_custom_index_.pop_back();
            if (l->backend != BACKEND_CPU && !gpu_backend_usable(l->backend, opt))
            {
                KITE_LOGE("custom layer '%s' (%s) runs on GPU backend %d, which is not usable with these options", name.c_str(), type.c_str(), l->backend);
                delete l;
                err = -1;
                return nullptr;
            }
            layer_custom_index_.push_back((int)i);
            return l;
        }
    }
    int count = 0;
    const LayerRegistryEntry* rows = layer_registry(&count);
    int max_isa = opt.max_cpu_isa;
    bool found_type = false;
    for (int r = 0; r < count; r++)
    {
        const LayerRegistryEntry& e = rows[r];
        if (type != e.type)
            continue;
        found_type = true;
        if (e.backend != BACKEND_CPU && !gpu_backend_usable(e.backend, opt))
            continue;
        if (e.backend == BACKEND_CPU && e.isa != CPU_ISA_NONE)
        {
            if (!cpu_support_isa(e.isa))
                continue;
            if (max_isa >= 0 && e.isa > max_isa)
                continue;
        }
        Layer* l = e.creator(nullptr);
        if (!l)
            continue;
        l->type = e.type;
        l->typeindex = e.typeindex;
        l->backend = e.backend;
        l->isa = e.isa;
        l->name = name;
        int ret = l->load_param(pd);
        if (ret != 0)
        {
            delete l;
            KITE_LOGE("layer '%s' (%s): invalid parameters", name.c_str(), type.c_str());
            err = ret;
            return nullptr;
        }
        if (!l->accept())
        {
            delete l;
            continue;
        }
        layer_custom_index_.push_back(-1);
        return l;
    }
    if (!found_type)
        err = 1; // unknown type: the caller collects these
    else
        err = -1;
    return nullptr;
}

int Net::add_layer(const std::string& type, int typeindex, const std::string& name,
                   const std::vector<std::string>& bottom_names, const std::vector<std::string>& top_names,
                   const ParamDict& pd, const std::vector<Mat>& top_shapes, const char* where)
{
    for (const Layer* l : layers_)
    {
        if (l->name == name)
        {
            KITE_LOGE("%s: layer name '%s' is used twice", where, name.c_str());
            return -1;
        }
    }
    // sizes past Option::memory_limit fail here, before anything is allocated
    int err = check_declared_shapes(type, name, pd, top_shapes, opt.memory_limit, where);
    if (err != 0)
        return err;
    Layer* layer = create_layer_for(type, typeindex, pd, name, err);
    if (!layer)
        return err;
    // a one-blob layer takes one input and one output; a source layer (Input)
    // takes none
    const bool source = layer->type == "Input" && bottom_names.empty();
    if (layer->one_blob_only && ((bottom_names.size() != 1 && !source) || top_names.size() != 1))
    {
        KITE_LOGE("%s: layer '%s' (%s) takes one input and one output, has %d and %d", where, name.c_str(), type.c_str(),
                  (int)bottom_names.size(), (int)top_names.size());
        layer_custom_index_.pop_back();
        delete layer;
        return -1;
    }
    int layer_index = (int)layers_.size();
    for (const std::string& b : bottom_names)
    {
        int bi = find_blob_index_by_name(b.c_str());
        if (bi < 0)
        {
            KITE_LOGE("%s: layer '%s' input blob '%s' is not produced by any earlier layer", where, name.c_str(), b.c_str());
            layer_custom_index_.pop_back();
            delete layer;
            return -1;
        }
        blobs_[bi].consumers.push_back(layer_index);
        layer->bottoms.push_back(bi);
    }
    for (size_t t = 0; t < top_names.size(); t++)
    {
        const std::string& tn = top_names[t];
        int bi = find_blob_index_by_name(tn.c_str());
        if (bi >= 0)
        {
            const int p = blobs_[bi].producer;
            KITE_LOGE("%s: blob '%s' is produced twice (layers '%s' and '%s')", where, tn.c_str(),
                      p >= 0 && p < (int)layers_.size() ? layers_[p]->name.c_str() : name.c_str(), name.c_str());
            // undo the consumer links added above
            for (int b : layer->bottoms)
                blobs_[b].consumers.pop_back();
            layer_custom_index_.pop_back();
            delete layer;
            return -1;
        }
        Blob blob;
        blob.name = tn;
        blob.producer = layer_index;
        if (t < top_shapes.size())
            blob.shape = top_shapes[t];
        blobs_.push_back(blob);
        layer->tops.push_back((int)blobs_.size() - 1);
        layer->top_shapes.push_back(blob.shape);
    }
    for (int b : layer->bottoms)
        layer->bottom_shapes.push_back(blobs_[b].shape);
    layers_.push_back(layer);
    layer_params_.push_back(pd);
    return 0;
}

int Net::finish_param()
{
    if (declared_blob_count_ >= 0 && (int)blobs_.size() > declared_blob_count_)
    {
        KITE_LOGE("param: header declares %d blobs but the layers name %d", declared_blob_count_, (int)blobs_.size());
        return -1;
    }
    return 0;
}

int Net::find_blob_index_by_name(const char* name) const
{
    for (size_t i = 0; i < blobs_.size(); i++)
        if (blobs_[i].name == name)
            return (int)i;
    return -1;
}

int Net::find_layer_index_by_name(const char* name) const
{
    for (size_t i = 0; i < layers_.size(); i++)
        if (layers_[i]->name == name)
            return (int)i;
    return -1;
}

std::vector<int> Net::input_indexes() const
{
    std::vector<int> v;
    for (const Layer* l : layers_)
        if (l->type == "Input")
            for (int t : l->tops)
                v.push_back(t);
    return v;
}

std::vector<int> Net::output_indexes() const
{
    std::vector<int> v;
    for (size_t i = 0; i < blobs_.size(); i++)
        if (blobs_[i].consumers.empty())
            v.push_back((int)i);
    return v;
}

std::vector<std::string> Net::input_names() const
{
    std::vector<std::string> v;
    for (int i : input_indexes())
        v.push_back(blobs_[i].name);
    return v;
}

std::vector<std::string> Net::output_names() const
{
    std::vector<std::string> v;
    for (int i : output_indexes())
        v.push_back(blobs_[i].name);
    return v;
}

// ---------------------------------------------------------------------------
// text param

namespace {

std::vector<std::string> split_ws(const std::string& line)
{
    std::vector<std::string> out;
    size_t i = 0;
    while (i < line.size())
    {
        while (i < line.size() && isspace((unsigned char)line[i]))
            i++;
        size_t j = i;
        while (j < line.size() && !isspace((unsigned char)line[j]))
            j++;
        if (j > i)
            out.push_back(line.substr(i, j - i));
        i = j;
    }
    return out;
}

bool parse_int(const std::string& s, int& v)
{
    if (s.empty())
        return false;
    char* end = nullptr;
    long x = strtol(s.c_str(), &end, 10);
    if (*end != 0 || x < INT32_MIN || x > INT32_MAX)
        return false;
    v = (int)x;
    return true;
}

// the -23330 shape hint's values (after the array length): dims,w,h,(d,)c per blob
std::vector<Mat> shapes_of_hint(const std::vector<int>& v)
{
    std::vector<Mat> shapes;
    {
        size_t k = 0;
        while (k < v.size())
        {
            int dims = v[k];
            if (dims < 1 || dims > 4 || k + 1 + dims > v.size())
                break;
            Mat m;
            m.dims = dims;
            m.w = v[k + 1];
            m.h = dims >= 2 ? v[k + 2] : 1;
            m.d = dims == 4 ? v[k + 3] : 1;
            m.c = dims >= 3 ? v[k + dims] : 1;
            shapes.push_back(m);
            k += 1 + dims;
        }
    }
    return shapes;
}

// the -23330 token of a text layer line
std::vector<Mat> parse_shape_hint(const std::vector<std::string>& tokens)
{
    for (const std::string& t : tokens)
    {
        if (t.compare(0, 7, "-23330=") != 0)
            continue;
        std::vector<int> v;
        size_t start = 7;
        while (start <= t.size())
        {
            size_t p = t.find(',', start);
            int x;
            if (!parse_int(t.substr(start, p == std::string::npos ? std::string::npos : p - start), x))
                return std::vector<Mat>();
            v.push_back(x);
            if (p == std::string::npos)
                break;
            start = p + 1;
        }
        if (!v.empty())
            v.erase(v.begin()); // the array length
        return shapes_of_hint(v);
    }
    return std::vector<Mat>();
}

} // namespace

int Net::load_param(const DataReader& dr)
{
    clear();
    std::string text;
    char buf[4096];
    while (true)
    {
        size_t n = dr.read(buf, sizeof(buf));
        text.append(buf, n);
        if (n < sizeof(buf))
            break;
        if (text.size() > kMaxParamTextBytes)
        {
            KITE_LOGE("param: file larger than %zu bytes, not a param file?", kMaxParamTextBytes);
            return -1;
        }
    }
    return load_param_mem(text.c_str());
}

int Net::load_param_mem(const char* mem)
{
    clear();
    if (!mem)
    {
        KITE_LOGE("param: null text");
        return -1;
    }
    // split into lines, skipping blank ones
    std::vector<std::pair<int, std::string> > lines;
    {
        const char* p = mem;
        int lineno = 0;
        while (*p)
        {
            const char* e = strchr(p, '\n');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            lineno++;
            std::string line(p, len);
            if (line.find_first_not_of(" \t\r") != std::string::npos)
                lines.push_back(std::make_pair(lineno, line));
            if (!e)
                break;
            p = e + 1;
        }
    }
    if (lines.empty())
    {
        KITE_LOGE("param: empty file");
        return -1;
    }
    int magic = 0;
    {
        std::vector<std::string> t = split_ws(lines[0].second);
        if (t.size() != 1 || !parse_int(t[0], magic) || magic != kParamMagic)
        {
            KITE_LOGE("param line %d: bad magic '%s' (expected %d; is this a binary .param.bin?)", lines[0].first,
                      lines[0].second.substr(0, 32).c_str(), kParamMagic);
            return -1;
        }
    }
    if (lines.size() < 2)
    {
        KITE_LOGE("param: truncated after the magic number");
        return -1;
    }
    int layer_count = 0, blob_count = 0;
    {
        std::vector<std::string> t = split_ws(lines[1].second);
        if (t.size() != 2 || !parse_int(t[0], layer_count) || !parse_int(t[1], blob_count))
        {
            KITE_LOGE("param line %d: expected '<layer count> <blob count>'", lines[1].first);
            return -1;
        }
        if (layer_count <= 0 || layer_count > kMaxLayers || blob_count <= 0 || blob_count > kMaxLayers * 4)
        {
            KITE_LOGE("param line %d: layer count %d / blob count %d out of range", lines[1].first, layer_count, blob_count);
            return -1;
        }
    }
    if ((int)lines.size() - 2 < layer_count)
    {
        KITE_LOGE("param: truncated: header declares %d layers, file has %d", layer_count, (int)lines.size() - 2);
        return -1;
    }
    if ((int)lines.size() - 2 > layer_count)
    {
        // ncnn reads exactly layer_count layers and ignores the rest (its own
        // nanodet_m.param has a trailing line beyond the count)
        KITE_LOGW("param: header declares %d layers, file has %d lines more; they are ignored", layer_count,
                  (int)lines.size() - 2 - layer_count);
        lines.resize((size_t)layer_count + 2);
    }
    // the file has a line for each of the layer_count layers: room for them at
    // once (a ParamDict holds 32 Mats; growing the vector copied them all again)
    layers_.reserve(layers_.size() + (size_t)layer_count);
    layer_params_.reserve(layer_params_.size() + (size_t)layer_count);
    declared_blob_count_ = blob_count;

    // unknown layer types are collected and reported together
    std::unordered_map<std::string, std::pair<int, std::string> > unknown;
    std::vector<std::string> unknown_order;
    int ret = 0;
    for (int i = 0; i < layer_count; i++)
    {
        const int lineno = lines[i + 2].first;
        char where[64];
        snprintf(where, sizeof(where), "param line %d", lineno);
        std::vector<std::string> t = split_ws(lines[i + 2].second);
        int nin = 0, nout = 0;
        if (t.size() < 4 || !parse_int(t[2], nin) || !parse_int(t[3], nout))
        {
            KITE_LOGE("%s: expected '<type> <name> <inputs> <outputs> ...'", where);
            ret = -1;
            break;
        }
        if (nin < 0 || nout < 0 || nin > kMaxBlobsPerLayer || nout > kMaxBlobsPerLayer || t.size() < (size_t)(4 + nin + nout))
        {
            KITE_LOGE("%s: layer '%s' declares %d inputs and %d outputs but lists fewer blob names", where, t[1].c_str(), nin, nout);
            ret = -1;
            break;
        }
        std::vector<std::string> bottoms(t.begin() + 4, t.begin() + 4 + nin);
        std::vector<std::string> tops(t.begin() + 4 + nin, t.begin() + 4 + nin + nout);
        std::vector<std::string> kv(t.begin() + 4 + nin + nout, t.end());
        ParamDict pd;
        int pr = pd.load_param_text(kv.data(), (int)kv.size(), where);
        if (pr != 0)
        {
            ret = pr;
            break;
        }
        std::vector<Mat> shapes = parse_shape_hint(kv);
        int ar = add_layer(t[0], layer_to_index(t[0].c_str()), t[1], bottoms, tops, pd, shapes, where);
        if (ar == 1)
        {
            auto it = unknown.find(t[0]);
            if (it == unknown.end())
            {
                unknown[t[0]] = std::make_pair(1, t[1]);
                unknown_order.push_back(t[0]);
            }
            else
                it->second.first++;
            // keep the graph consistent so later lines still parse: a placeholder
            // is not possible without an implementation, so stop linking here
            for (const std::string& tn : tops)
            {
                Blob b;
                b.name = tn;
                b.producer = -1;
                blobs_.push_back(b);
            }
            continue;
        }
        if (ar != 0)
        {
            ret = ar;
            break;
        }
    }
    if (ret == 0 && !unknown.empty())
    {
        std::string msg;
        for (const std::string& ty : unknown_order)
        {
            char b[256];
            snprintf(b, sizeof(b), "%s%s (%d, first '%s')", msg.empty() ? "" : ", ", ty.c_str(), unknown[ty].first, unknown[ty].second.c_str());
            msg += b;
        }
        KITE_LOGE("param: unknown layer types: %s", msg.c_str());
        ret = -1;
    }
    if (ret == 0)
        ret = finish_param();
    if (ret != 0)
        clear();
    return ret;
}

int Net::load_param(const char* path)
{
    FILE* fp = fopen(path, "rb");
    if (!fp)
    {
        KITE_LOGE("param: cannot open '%s'", path);
        return -1;
    }
    DataReaderFromStdio dr(fp);
    int ret = load_param(dr);
    fclose(fp);
    return ret;
}

// ---------------------------------------------------------------------------
// binary param

int Net::load_param_bin(const DataReader& dr)
{
    clear();
    int header[3];
    if (dr.read(header, sizeof(header)) != sizeof(header))
    {
        KITE_LOGE("param.bin: truncated header");
        return -1;
    }
    if (header[0] != kParamMagic)
    {
        KITE_LOGE("param.bin: bad magic %d (expected %d; is this a text .param?)", header[0], kParamMagic);
        return -1;
    }
    int layer_count = header[1], blob_count = header[2];
    if (layer_count <= 0 || layer_count > kMaxLayers || blob_count <= 0 || blob_count > kMaxLayers * 4)
    {
        KITE_LOGE("param.bin: layer count %d / blob count %d out of range", layer_count, blob_count);
        return -1;
    }
    declared_blob_count_ = blob_count;
    // blobs are referred to by index; names are their decimal index
    int ret = 0;
    for (int i = 0; i < layer_count && ret == 0; i++)
    {
        char where[64];
        snprintf(where, sizeof(where), "param.bin layer %d", i);
        int head[3];
        if (dr.read(head, sizeof(head)) != sizeof(head))
        {
            KITE_LOGE("%s: truncated", where);
            ret = -1;
            break;
        }
        int typeindex = head[0], nin = head[1], nout = head[2];
        if (nin < 0 || nout < 0 || nin > kMaxBlobsPerLayer || nout > kMaxBlobsPerLayer)
        {
            KITE_LOGE("%s: bad input/output counts %d/%d", where, nin, nout);
            ret = -1;
            break;
        }
        std::vector<std::string> bottoms, tops;
        for (int k = 0; k < nin + nout && ret == 0; k++)
        {
            int bi;
            if (dr.read(&bi, 4) != 4)
            {
                KITE_LOGE("%s: truncated blob list", where);
                ret = -1;
                break;
            }
            if (bi < 0 || bi >= blob_count)
            {
                KITE_LOGE("%s: blob index %d out of range 0..%d", where, bi, blob_count - 1);
                ret = -1;
                break;
            }
            (k < nin ? bottoms : tops).push_back(std::to_string(bi));
        }
        if (ret != 0)
            break;
        ParamDict pd;
        ret = pd.load_param_bin(dr, where);
        if (ret != 0)
            break;
        std::string type;
        if (typeindex & 0x100)
        {
            int ci = typeindex & 0xff;
            if (ci >= (int)custom_layers_.size())
            {
                KITE_LOGE("%s: custom layer %d is not registered", where, ci);
                ret = -1;
                break;
            }
            type = custom_layers_[ci].type;
        }
        else
        {
            type = layer_type_name(typeindex);
            if (type.empty())
            {
                KITE_LOGE("%s: unknown layer type index %d", where, typeindex);
                ret = -1;
                break;
            }
        }
        char name[32];
        snprintf(name, sizeof(name), "%d", i);
        ret = add_layer(type, typeindex, name, bottoms, tops, pd, shapes_of_hint(pd.shape_hint), where);
        if (ret == 1)
        {
            KITE_LOGE("%s: layer type %s (%d) is not built into kite", where, type.c_str(), typeindex);
            ret = -1;
        }
    }
    if (ret == 0)
        ret = finish_param();
    if (ret != 0)
        clear();
    return ret;
}

int Net::load_param_bin(const char* path)
{
    FILE* fp = fopen(path, "rb");
    if (!fp)
    {
        KITE_LOGE("param.bin: cannot open '%s'", path);
        return -1;
    }
    DataReaderFromStdio dr(fp);
    int ret = load_param_bin(dr);
    fclose(fp);
    return ret;
}

// ---------------------------------------------------------------------------
// weights

int Net::load_model(const ModelBin& unlimited_mb)
{
    {
        // recorded forwards read the old weights
        std::lock_guard<std::mutex> lock(recordings_->lock);
        recordings_->idle.clear();
    }
    // weights past Option::memory_limit fail before the ModelBin allocates them
    const ModelBinWithLimit mb(unlimited_mb, opt.memory_limit);
    if (layers_.empty())
    {
        KITE_LOGE("load_model: no layers; load the param first");
        return -1;
    }
    if (model_loaded_)
    {
        for (Layer* l : layers_)
            l->destroy_pipeline(opt);
        model_loaded_ = false;
    }
    typedef std::chrono::steady_clock clock;
    auto since = [](clock::time_point t) { return std::chrono::duration<double, std::milli>(clock::now() - t).count(); };
    load_times_ = LoadTimes();
    // KITE_VULKAN_TIMING=1 (or KITE_LOAD_TIMING=1): create_pipeline's time by
    // layer type, printed once all layers are done
    static const bool by_type = (getenv("KITE_VULKAN_TIMING") && atoi(getenv("KITE_VULKAN_TIMING")) != 0)
                                || (getenv("KITE_LOAD_TIMING") && atoi(getenv("KITE_LOAD_TIMING")) != 0);
    std::map<std::string, std::pair<double, int> > type_ms;
    // each layer's weights, then at once its pipeline: in light mode a driver
    // releases the loaded weights once it holds its own packed copy, so the
    // peak is every layer's packed copy plus one layer's loaded weights (as
    // ncnn), not every layer's both
    for (size_t i = 0; i < layers_.size(); i++)
    {
        Layer* l = layers_[i];
        const clock::time_point tw = clock::now();
        mb.begin_layer(l, layer_params_[i]);
        int ret = l->load_model(mb);
        load_times_.weights_ms += since(tw);
        if (ret != 0)
        {
            KITE_LOGE("layer '%s' (%s): loading weights failed", l->name.c_str(), l->type.c_str());
            for (size_t j = 0; j < i; j++)
                layers_[j]->destroy_pipeline(opt);
            return ret;
        }
        const clock::time_point tl = clock::now();
        ret = l->create_pipeline(opt);
#if defined(__GLIBC__)
        // the loaded weights a driver released sit in the middle of malloc's
        // heap, below its (raised) mmap threshold: glibc keeps such free
        // blocks resident until reused; hand their pages back
        if (opt.lightmode)
            malloc_trim(0);
#endif
        const double ms = since(tl);
        load_times_.create_pipeline_ms += ms;
        if (by_type)
        {
            std::pair<double, int>& e = type_ms[l->type];
            e.first += ms;
            e.second++;
        }
        if (ret != 0)
        {
            KITE_LOGE("layer '%s' (%s): create_pipeline failed", l->name.c_str(), l->type.c_str());
            for (size_t j = 0; j < i; j++)
                layers_[j]->destroy_pipeline(opt);
            return ret;
        }
    }
    // what the GPU layers prepared (weights) goes to the device now, one
    // transfer per backend (a session's finish() runs all pending work), not
    // at the first forward
    if (by_type)
    {
        std::string line;
        char buf[96];
        for (const auto& e : type_ms)
        {
            snprintf(buf, sizeof(buf), "%s%s x%d %.1f", line.empty() ? "" : ", ", e.first.c_str(), e.second.second, e.second.first);
            line += buf;
        }
        fprintf(stderr, "create_pipeline %.1f ms by layer type (ms): %s\n", load_times_.create_pipeline_ms, line.c_str());
    }
    clock::time_point t = clock::now();
    bool used[3] = {false, false, false};
    for (const Layer* l : layers_)
        if (l->backend > BACKEND_CPU && l->backend <= BACKEND_OPENCL)
            used[l->backend] = true;
    for (int b = BACKEND_VULKAN; b <= BACKEND_OPENCL; b++)
    {
        GpuBackend* gb = used[b] ? gpu_backend(b) : nullptr;
        GpuSession* s = gb ? gb->create_session(opt) : nullptr;
        int ret = gb && !s ? -1 : s ? s->finish() : 0;
        delete s;
        if (ret != 0)
        {
            KITE_LOGE("load_model: the %s backend could not upload the weights", gb->name());
            for (Layer* l : layers_)
                l->destroy_pipeline(opt);
            return ret;
        }
    }
    load_times_.upload_ms = since(t);
    model_loaded_ = true;
    return 0;
}

int Net::load_model(const DataReader& dr)
{
    ModelBinFromDataReader mb(dr);
    int ret = load_model(mb);
    if (ret == 0)
    {
        size_t left = dr.remaining();
        if (left != SIZE_MAX && left > 0)
            KITE_LOGW("model bin: %zu bytes left over after the last layer (weights do not match the param?)", left);
    }
    return ret;
}

int Net::load_model(const char* path)
{
    FILE* fp = fopen(path, "rb");
    if (!fp)
    {
        KITE_LOGE("model: cannot open '%s'", path);
        return -1;
    }
    DataReaderFromStdio dr(fp);
    int ret = load_model(dr);
    fclose(fp);
    return ret;
}

int Net::load_model_mmap(const char* path)
{
    // the mapping stays alive until clear(): layers reference weights in it
    DataReaderFromMmap* dr = new DataReaderFromMmap(path);
    if (!dr->ok())
    {
        delete dr;
        KITE_LOGE("model: cannot map '%s'", path);
        return -1;
    }
    int ret = load_model(*dr);
    delete mmap_;
    mmap_ = dr;
    return ret;
}

size_t Net::load_model(const unsigned char* mem, size_t size)
{
    DataReaderFromMemory dr(mem, size);
    if (load_model(dr) != 0)
        return 0;
    return dr.consumed();
}

int Net::load_model_empty()
{
    DataReaderFromEmpty dr;
    ModelBinFromDataReader mb(dr);
    return load_model(mb);
}

Extractor Net::create_extractor() const
{
    return Extractor(this);
}

} // namespace kite
