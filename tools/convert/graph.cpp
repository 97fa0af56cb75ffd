#include "graph.h"
#include "emit.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace kite {
namespace convert {

uint64_t Weight::values_hash() const
{
    if (dropped)
        return dropped_hash;
    const unsigned char* p = storage == INT8 ? (const unsigned char*)i8.data() : (const unsigned char*)data.data();
    const size_t n = storage == INT8 ? i8.size() : data.size() * sizeof(float);
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < n; k++)
        h = (h ^ p[k]) * 1099511628211ull;
    return h;
}

// ---------------------------------------------------------------- ParamSet

void ParamSet::set(int id, int v)
{
    ParamValue p;
    p.type = ParamValue::INT;
    p.i = v;
    values[id] = p;
}

void ParamSet::set(int id, float v)
{
    ParamValue p;
    p.type = ParamValue::FLOAT;
    p.f = v;
    values[id] = p;
}

void ParamSet::set_ints(int id, const std::vector<int>& v)
{
    ParamValue p;
    p.type = ParamValue::INT_ARRAY;
    p.ints = v;
    values[id] = p;
}

void ParamSet::set_floats(int id, const std::vector<float>& v)
{
    ParamValue p;
    p.type = ParamValue::FLOAT_ARRAY;
    p.floats = v;
    values[id] = p;
}

void ParamSet::set_string(int id, const std::string& v)
{
    ParamValue p;
    p.type = ParamValue::STRING;
    p.s = v;
    values[id] = p;
}

const ParamValue* ParamSet::find(int id) const
{
    auto it = values.find(id);
    return it == values.end() ? nullptr : &it->second;
}

int ParamSet::get_int(int id, int def) const
{
    const ParamValue* p = find(id);
    if (!p)
        return def;
    if (p->type == ParamValue::INT)
        return p->i;
    if (p->type == ParamValue::FLOAT)
        return (int)p->f;
    return def;
}

float ParamSet::get_float(int id, float def) const
{
    const ParamValue* p = find(id);
    if (!p)
        return def;
    if (p->type == ParamValue::FLOAT)
        return p->f;
    if (p->type == ParamValue::INT)
        return (float)p->i;
    return def;
}

std::vector<int> ParamSet::get_ints(int id) const
{
    const ParamValue* p = find(id);
    if (!p)
        return {};
    if (p->type == ParamValue::INT_ARRAY)
        return p->ints;
    if (p->type == ParamValue::FLOAT_ARRAY)
    {
        std::vector<int> r;
        for (float f : p->floats)
            r.push_back((int)f);
        return r;
    }
    return {};
}

std::vector<float> ParamSet::get_floats(int id) const
{
    const ParamValue* p = find(id);
    if (!p)
        return {};
    if (p->type == ParamValue::FLOAT_ARRAY)
        return p->floats;
    if (p->type == ParamValue::INT_ARRAY)
        return std::vector<float>(p->ints.begin(), p->ints.end());
    return {};
}

std::string format_float(float v)
{
    // the text loader reads a value as float only when it holds '.', 'e' or 'E'
    if (std::isnan(v))
        v = 0.f;
    if (std::isinf(v))
        v = v > 0 ? FLT_MAX : -FLT_MAX;
    char buf[64];
    snprintf(buf, sizeof(buf), "%.9g", v);
    // shortest text that reads back to the same float
    for (int prec = 1; prec <= 9; prec++)
    {
        char t[64];
        snprintf(t, sizeof(t), "%.*g", prec, v);
        if (strtof(t, nullptr) == v)
        {
            memcpy(buf, t, sizeof(t));
            break;
        }
    }
    std::string s = buf;
    if (s.find_first_of(".eE") == std::string::npos)
        s += ".0";
    return s;
}

// ---------------------------------------------------------------- Graph

// `base`, or `base_N` with the smallest N not in `used`
static std::string first_free(const std::string& base, const std::set<std::string>& used)
{
    if (!used.count(base) && !base.empty())
        return base;
    for (int i = 1;; i++)
    {
        std::string n = base + "_" + std::to_string(i);
        if (!used.count(n))
            return n;
    }
}

std::string Graph::unique_layer_name(const std::string& base) const
{
    std::set<std::string> used;
    for (const Layer& l : layers)
        used.insert(l.name);
    return first_free(base, used);
}

std::string Graph::unique_blob_name(const std::string& base) const
{
    std::set<std::string> used;
    for (const Layer& l : layers)
    {
        used.insert(l.bottoms.begin(), l.bottoms.end());
        used.insert(l.tops.begin(), l.tops.end());
    }
    return first_free(base, used);
}

Layer& Graph::add(const std::string& type, const std::string& name, const std::vector<std::string>& bottoms,
                  const std::vector<std::string>& tops)
{
    Layer l;
    l.type = type;
    l.name = unique_layer_name(name.empty() ? type : name);
    l.bottoms = bottoms;
    l.tops = tops;
    layers.push_back(std::move(l));
    return layers.back();
}

Layer& Graph::add_input(const std::string& blob, int w, int h, int c)
{
    InputSpec s;
    if (w > 0)
        s.w = w;
    if (h > 0)
        s.h = h;
    if (c > 0)
        s.c = c;
    return emit(*this, s, blob, {}, {blob});
}

int Graph::producer(const std::string& blob) const
{
    for (int i = (int)layers.size() - 1; i >= 0; i--)
        for (const std::string& t : layers[i].tops)
            if (t == blob)
                return i;
    return -1;
}

int Graph::consumer_count(const std::string& blob) const
{
    int n = 0;
    for (const Layer& l : layers)
        for (const std::string& b : l.bottoms)
            n += b == blob;
    return n;
}

std::vector<std::string> Graph::unconsumed_blobs() const
{
    std::set<std::string> consumed;
    for (const Layer& l : layers)
        consumed.insert(l.bottoms.begin(), l.bottoms.end());
    std::vector<std::string> out;
    for (const Layer& l : layers)
        for (const std::string& t : l.tops)
            if (!consumed.count(t) && std::find(out.begin(), out.end(), t) == out.end())
                out.push_back(t);
    return out;
}

void Graph::rename_blob(const std::string& from, const std::string& to)
{
    for (Layer& l : layers)
    {
        for (std::string& b : l.bottoms)
            if (b == from)
                b = to;
        for (std::string& t : l.tops)
            if (t == from)
                t = to;
    }
}

void Graph::rename_bottoms(const std::string& from, const std::string& to, size_t begin, size_t end)
{
    end = std::min(end, layers.size());
    for (size_t i = begin; i < end; i++)
        for (std::string& b : layers[i].bottoms)
            if (b == from)
                b = to;
}

static std::string sanitize(const std::string& s, const char* fallback)
{
    std::string r;
    for (char ch : s)
        r += (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f' || ch == '\0') ? '_' : ch;
    if (r.empty())
        r = fallback;
    return r;
}

void Graph::sanitize_names()
{
    for (Layer& l : layers)
    {
        l.name = sanitize(l.name, "layer");
        for (std::string& b : l.bottoms)
            b = sanitize(b, "blob");
        for (std::string& t : l.tops)
            t = sanitize(t, "blob");
    }
    std::set<std::string> used;
    for (size_t i = 0; i < layers.size(); i++)
    {
        if (used.count(layers[i].name))
        {
            std::string base = layers[i].name;
            for (int k = 1;; k++)
            {
                std::string n = base + "_" + std::to_string(k);
                bool taken = used.count(n) != 0;
                for (size_t j = i + 1; j < layers.size() && !taken; j++)
                    taken = layers[j].name == n;
                if (!taken)
                {
                    layers[i].name = n;
                    break;
                }
            }
        }
        used.insert(layers[i].name);
    }
}

void Graph::make_single_assignment(std::vector<std::string>* outputs)
{
    // count the producers of each name; note names first written by an Input
    std::map<std::string, int> writes;
    std::set<std::string> input_first;
    for (const Layer& l : layers)
        for (const std::string& t : l.tops)
            if (writes[t]++ == 0 && l.type == "Input")
                input_first.insert(t);

    std::map<std::string, int> seen; // writes done so far
    for (size_t i = 0; i < layers.size(); i++)
    {
        for (std::string& t : layers[i].tops)
        {
            int total = writes[t];
            int k = seen[t]++;
            // the version that keeps the original name: the input itself (users
            // feed it by name), else the last write (outputs and the final
            // blob names stay as the user knows them); the others get fresh
            // names that their readers follow
            int keep = input_first.count(t) ? 0 : total - 1;
            if (total <= 1 || k == keep)
                continue;
            std::string orig = t;
            std::string fresh = unique_blob_name(orig + "_" + std::to_string(k));
            // readers after this layer, until the next write of `orig`
            size_t next = layers.size();
            for (size_t j = i + 1; j < layers.size() && next == layers.size(); j++)
                for (const std::string& t2 : layers[j].tops)
                    if (t2 == orig)
                        next = j;
            // the next writer itself reads this version (in-place)
            rename_bottoms(orig, fresh, i + 1, next == layers.size() ? next : next + 1);
            t = fresh;
        }
    }
    (void)outputs;
}

void Graph::erase_layers(const std::vector<bool>& dead)
{
    std::vector<Layer> kept;
    for (size_t i = 0; i < layers.size(); i++)
        if (!dead[i])
            kept.push_back(std::move(layers[i]));
    layers.swap(kept);
}

void Graph::remove_dead(const std::vector<std::string>& outputs)
{
    std::vector<std::string> outs = outputs.empty() ? unconsumed_blobs() : outputs;
    std::set<std::string> needed(outs.begin(), outs.end());
    std::vector<bool> dead(layers.size(), true);
    for (int i = (int)layers.size() - 1; i >= 0; i--)
    {
        const Layer& l = layers[i];
        bool live = l.type == "Input";
        for (const std::string& t : l.tops)
            live = live || needed.count(t);
        if (!live)
            continue;
        dead[i] = false;
        needed.insert(l.bottoms.begin(), l.bottoms.end());
    }
    erase_layers(dead);
}

void Graph::bypass(size_t index)
{
    if (index >= layers.size())
        return;
    Layer& l = layers[index];
    if (l.bottoms.size() != 1 || l.tops.size() != 1)
        return;
    std::string in = l.bottoms[0], out = l.tops[0];
    int p = producer(in);
    if (p >= 0 && consumer_count(in) == 1 && layers[p].type != "Input")
    {
        // the producer writes the later name directly (names users see, such
        // as Caffe's in-place tops, are the last ones)
        for (std::string& t : layers[p].tops)
            if (t == in)
                t = out;
        layers.erase(layers.begin() + index);
        return;
    }
    if (consumer_count(out) == 0)
        return; // keep it: the output name must stay and `in` has other readers
    rename_bottoms(out, in);
    layers.erase(layers.begin() + index);
}

void Graph::insert_splits()
{
    std::vector<Layer> out;
    out.reserve(layers.size());
    // blob -> number of readers
    std::map<std::string, int> readers;
    for (const Layer& l : layers)
        for (const std::string& b : l.bottoms)
            readers[b]++;
    std::map<std::string, int> next_use; // blob -> index of the next split output
    // Input-less blobs (no producer) are left alone; check_and_sort reports them
    std::set<std::string> produced;
    for (Layer& l : layers)
    {
        for (std::string& b : l.bottoms)
        {
            if (readers[b] > 1 && produced.count(b))
                b = b + "_splitncnn_" + std::to_string(next_use[b]++);
        }
        out.push_back(std::move(l));
        Layer& cur = out.back();
        std::vector<std::string> tops = cur.tops;
        for (const std::string& t : tops)
        {
            produced.insert(t);
            int n = readers[t];
            if (n <= 1)
                continue;
            Layer s;
            s.type = "Split";
            s.name = "splitncnn_" + t;
            s.bottoms = {t};
            for (int k = 0; k < n; k++)
                s.tops.push_back(t + "_splitncnn_" + std::to_string(k));
            out.push_back(std::move(s));
        }
    }
    layers.swap(out);
    sanitize_names(); // split layer names unique
}

int Graph::check_and_sort()
{
    // names
    std::set<std::string> names;
    std::map<std::string, int> prod;
    for (size_t i = 0; i < layers.size(); i++)
    {
        const Layer& l = layers[i];
        if (l.type.empty() || l.name.empty())
        {
            error = "layer " + std::to_string(i) + " has an empty type or name";
            return -1;
        }
        if (!names.insert(l.name).second)
        {
            error = "layer name '" + l.name + "' is used twice";
            return -1;
        }
        for (const std::string& t : l.tops)
        {
            if (t.empty())
            {
                error = "layer '" + l.name + "' has an empty top blob name";
                return -1;
            }
            if (prod.count(t))
            {
                error = "blob '" + t + "' is produced by both '" + layers[prod[t]].name + "' and '" + l.name + "'";
                return -1;
            }
            prod[t] = (int)i;
        }
    }
    for (const Layer& l : layers)
        for (const std::string& b : l.bottoms)
            if (!prod.count(b))
            {
                error = "layer '" + l.name + "' (" + l.type + ") reads blob '" + b + "' that no layer produces";
                return -1;
            }

    // topological order (stable: keeps the given order where possible)
    std::vector<int> indeg(layers.size(), 0);
    std::vector<std::vector<int> > users(layers.size());
    for (size_t i = 0; i < layers.size(); i++)
        for (const std::string& b : layers[i].bottoms)
        {
            int p = prod[b];
            users[p].push_back((int)i);
            indeg[i]++;
        }
    std::set<int> ready;
    for (size_t i = 0; i < layers.size(); i++)
        if (indeg[i] == 0)
            ready.insert((int)i);
    std::vector<int> order;
    while (!ready.empty())
    {
        int i = *ready.begin();
        ready.erase(ready.begin());
        order.push_back(i);
        for (int u : users[i])
            if (--indeg[u] == 0)
                ready.insert(u);
    }
    if (order.size() != layers.size())
    {
        for (size_t i = 0; i < layers.size(); i++)
            if (indeg[i] > 0)
            {
                error = "the graph has a cycle through layer '" + layers[i].name + "'";
                return -1;
            }
    }
    std::vector<Layer> sorted;
    sorted.reserve(layers.size());
    for (int i : order)
        sorted.push_back(std::move(layers[i]));
    layers.swap(sorted);
    return 0;
}

} // namespace convert
} // namespace kite
