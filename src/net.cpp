#include "net.h"
#include "gpu/cpu_fallback.h"

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

Net::Net() : model_loaded_(false), declared_blob_count_(0), mmap_(nullptr)
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
    : net(rhs.net), opt(rhs.opt), blob_mats(rhs.blob_mats), consumed(rhs.consumed), computed(rhs.computed), blob_gpu(rhs.blob_gpu), ran_on(rhs.ran_on), ran_isa(rhs.ran_isa), ran_fallback(rhs.ran_fallback), observer(rhs.observer), observer_userdata(rhs.observer_userdata)
{
    for (int b = 0; b < 3; b++)
        sessions[b] = rhs.sessions[b];
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
}

void Extractor::set_light_mode(bool enable) { opt.lightmode = enable; }
void Extractor::set_num_threads(int num_threads) { opt.num_threads = num_threads > 0 ? num_threads : 1; }
void Extractor::set_blob_allocator(Allocator* allocator) { opt.blob_allocator = allocator; }
void Extractor::set_workspace_allocator(Allocator* allocator) { opt.workspace_allocator = allocator; }

void Extractor::set_layer_observer(layer_observer_func f, void* userdata)
{
    observer = f;
    observer_userdata = userdata;
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

// Make a blob what the layer accepts: storage precision, then packing.
int convert_blob_for_layer(Mat& m, const Layer* layer, const Option& opt)
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
        if (layer->isa == CPU_ISA_NONE)
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
    std::chrono::steady_clock::time_point t0;
    if (observer)
        t0 = std::chrono::steady_clock::now();

    std::vector<Mat> bottoms(layer->bottoms.size());
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
        int ret = convert_blob_for_layer(bottoms[i], layer, opt);
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
            ret = layer->forward_inplace(bottoms[0], opt);
        else
            ret = layer->forward_inplace(bottoms, opt);
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
        ret = layer->forward(bottoms[0], tops[0], opt);
    }
    else
    {
        ret = layer->forward(bottoms, tops, opt);
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
    return 0;
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
            int ret = s->upload(blob_mats[bi], blob_gpu[bi], layer, opt);
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
        }
        bottoms[i] = blob_gpu[bi];
        int ret = s->convert_for_layer(bottoms[i], layer, opt);
        if (ret != 0)
            return ret;
    }
    std::vector<GpuBlobPtr> tops(layer->tops.size());
    const int fallbacks = gpu_layers_on_cpu();
    int ret = layer->forward_gpu(bottoms, tops, *s, opt);
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
        // layers appear after their inputs' producers, so index order is a valid schedule
        for (size_t li = 0; li < nl; li++)
        {
            if (!needed[li])
                continue;
            int ret = run_layer((int)li);
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
