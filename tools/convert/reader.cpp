#include "reader.h"

#include "datareader.h"
#include "layer.h"
#include "log.h"
#include "modelbin.h"
#include "net.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace kite {
namespace convert {

static bool looks_float(const std::string& s)
{
    return s.find_first_of(".eE") != std::string::npos || s.find("nan") != std::string::npos || s.find("inf") != std::string::npos;
}

static bool parse_int(const std::string& s, int& v)
{
    if (s.empty())
        return false;
    char* end = nullptr;
    errno = 0;
    long long x = strtoll(s.c_str(), &end, 10);
    if (*end != '\0' || errno != 0 || x < INT_MIN || x > INT_MAX)
        return false;
    v = (int)x;
    return true;
}

static bool parse_float(const std::string& s, float& v)
{
    if (s.empty())
        return false;
    char* end = nullptr;
    v = strtof(s.c_str(), &end);
    return *end == '\0';
}

static std::vector<std::string> split_commas(const std::string& s)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (;;)
    {
        size_t p = s.find(',', start);
        out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
        if (p == std::string::npos)
            return out;
        start = p + 1;
    }
}

// one k=v token into the layer's params
static bool parse_kv(const std::string& tok, ParamSet& ps, std::string& why)
{
    size_t eq = tok.find('=');
    int key;
    if (eq == std::string::npos || !parse_int(tok.substr(0, eq), key))
    {
        why = "parameter '" + tok + "' is not id=value";
        return false;
    }
    std::string val = tok.substr(eq + 1);
    bool is_array = key <= -23300;
    int id = is_array ? -key - 23300 : key;
    if (id < 0 || id > 31)
    {
        why = "parameter id out of range in '" + tok + "'";
        return false;
    }
    if (!is_array && val.size() >= 2 && val.front() == '"' && val.back() == '"')
    {
        ps.set_string(id, val.substr(1, val.size() - 2));
        return true;
    }
    std::vector<std::string> items = split_commas(val);
    if (is_array)
    {
        int n;
        if (!parse_int(items[0], n) || n < 0 || n != (int)items.size() - 1)
        {
            why = "array parameter '" + tok + "' has a bad count";
            return false;
        }
        items.erase(items.begin());
    }
    if (!is_array && items.size() == 1)
    {
        if (looks_float(val))
        {
            float f;
            if (!parse_float(val, f))
            {
                why = "bad number in '" + tok + "'";
                return false;
            }
            ps.set(id, f);
            return true;
        }
        int v;
        if (!parse_int(val, v))
        {
            // an unquoted string (newer files)
            ps.set_string(id, val);
            return true;
        }
        ps.set(id, v);
        return true;
    }
    bool any_float = false;
    for (const std::string& it : items)
        any_float = any_float || looks_float(it);
    std::vector<int> ints;
    std::vector<float> floats;
    for (const std::string& it : items)
    {
        float f;
        int v;
        if (any_float ? !parse_float(it, f) : !parse_int(it, v))
        {
            why = "bad array value '" + it + "' in '" + tok + "'";
            return false;
        }
        if (any_float)
            floats.push_back(f);
        else
            ints.push_back(v);
    }
    if (any_float)
        ps.set_floats(id, floats);
    else
        ps.set_ints(id, ints);
    return true;
}

int parse_param_text(const std::string& text, Graph& g, std::string& error)
{
    std::istringstream in(text);
    std::string line;
    int lineno = 0;
    int layer_count = -1, blob_count = -1;
    bool magic = false;
    while (std::getline(in, line))
    {
        lineno++;
        std::istringstream ls(line);
        std::vector<std::string> tok;
        std::string t;
        while (ls >> t)
            tok.push_back(t);
        if (tok.empty())
            continue;
        std::string where = "param line " + std::to_string(lineno);
        if (!magic)
        {
            if (tok[0] != "7767517")
            {
                error = where + ": not a text .param (magic 7767517 expected)";
                return -1;
            }
            magic = true;
            continue;
        }
        if (layer_count < 0)
        {
            if (tok.size() != 2 || !parse_int(tok[0], layer_count) || !parse_int(tok[1], blob_count) || layer_count <= 0 || blob_count <= 0)
            {
                error = where + ": expected '<layer count> <blob count>'";
                return -1;
            }
            continue;
        }
        if ((int)g.layers.size() == layer_count)
            break; // as the runtime: lines past the declared count are ignored
        int nin, nout;
        if (tok.size() < 4 || !parse_int(tok[2], nin) || !parse_int(tok[3], nout) || nin < 0 || nout < 0
            || (size_t)nin + nout > tok.size() - 4)
        {
            error = where + ": expected '<type> <name> <inputs> <outputs> <blobs...> <params...>'";
            return -1;
        }
        Layer l;
        l.type = tok[0];
        l.name = tok[1];
        l.bottoms.assign(tok.begin() + 4, tok.begin() + 4 + nin);
        l.tops.assign(tok.begin() + 4 + nin, tok.begin() + 4 + nin + nout);
        for (size_t i = 4 + nin + nout; i < tok.size(); i++)
        {
            std::string why;
            if (!parse_kv(tok[i], l.params, why))
            {
                error = where + " (layer '" + l.name + "'): " + why;
                return -1;
            }
        }
        g.layers.push_back(std::move(l));
    }
    if (!magic || layer_count < 0)
    {
        error = "param: empty or truncated header";
        return -1;
    }
    if ((int)g.layers.size() != layer_count)
    {
        error = "param: declares " + std::to_string(layer_count) + " layers but holds " + std::to_string(g.layers.size());
        return -1;
    }
    return 0;
}

namespace {

// hands each buffer through and keeps a copy per layer
class RecordingModelBin : public ModelBin
{
public:
    explicit RecordingModelBin(const ModelBin& inner)
        : inner(inner)
    {
    }
    using ModelBin::load;
    Mat load(int w, int type) const override
    {
        Mat m = inner.load(w, type);
        if (!m.empty() && current)
            (*records)[current->name].push_back(std::make_pair(type, m.clone()));
        return m;
    }
    void begin_layer(const kite::Layer* layer, const ParamDict& pd) const override
    {
        current = layer;
        inner.begin_layer(layer, pd);
    }
    std::map<std::string, std::vector<std::pair<int, Mat> > >* records = nullptr;

private:
    const ModelBin& inner;
    mutable const kite::Layer* current = nullptr;
};

} // namespace

int read_model(const std::string& param_path, const std::string& bin_path, Graph& g, std::string& error)
{
    std::ifstream f(param_path, std::ios::binary);
    if (!f)
    {
        error = "cannot open '" + param_path + "': " + strerror(errno);
        return -1;
    }
    std::ostringstream ss;
    ss << f.rdbuf();
    if (parse_param_text(ss.str(), g, error) != 0)
    {
        error = param_path + ": " + error;
        return -1;
    }

    Net net;
    net.opt.use_packing_layout = false;
    net.opt.num_threads = 1;
    if (net.load_param(param_path.c_str()) != 0)
    {
        error = "kite cannot load '" + param_path + "': " + last_error();
        return -1;
    }
    std::map<std::string, std::vector<std::pair<int, Mat> > > records;
    int ret;
    FILE* fp = fopen(bin_path.c_str(), "rb");
    if (!fp)
    {
        error = "cannot open '" + bin_path + "': " + strerror(errno);
        return -1;
    }
    {
        DataReaderFromStdio dr(fp);
        ModelBinFromDataReader mb(dr);
        RecordingModelBin rec(mb);
        rec.records = &records;
        ret = net.load_model(rec);
        if (ret == 0 && dr.remaining() != SIZE_MAX && dr.remaining() > 0)
            fprintf(stderr, "warning: %zu bytes of '%s' left over after the last layer\n", dr.remaining(), bin_path.c_str());
    }
    fclose(fp);
    if (ret != 0)
    {
        error = "kite cannot load '" + bin_path + "': " + last_error();
        return -1;
    }
    for (Layer& l : g.layers)
    {
        auto it = records.find(l.name);
        if (it == records.end())
            continue;
        for (const auto& r : it->second)
        {
            const Mat& m = r.second;
            size_t n = (size_t)m.w * m.h * m.d * m.c;
            Weight w;
            w.tagged = r.first == 0;
            if (m.elemsize == 1)
            {
                w.storage = Weight::INT8;
                w.i8.assign((const int8_t*)m.data, (const int8_t*)m.data + n);
            }
            else if (m.elemsize == 4)
            {
                w.data.assign((const float*)m.data, (const float*)m.data + n);
            }
            else
            {
                error = "layer '" + l.name + "': weight buffer of element size " + std::to_string(m.elemsize) + " not supported";
                return -1;
            }
            l.weights.push_back(std::move(w));
        }
    }
    return 0;
}

} // namespace convert
} // namespace kite
