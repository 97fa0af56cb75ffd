#include "writer.h"

#include "layer/convolution.h"
#include "layer/embed.h"
#include "layer/gemm.h"
#include "layer/innerproduct.h"
#include "mat.h" // float32_to_float16
#include "layer/multiheadattention.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <unistd.h>

namespace kite {
namespace convert {

static const uint32_t TAG_FP32 = 0x00000000;
static const uint32_t TAG_FP16 = 0x01306B47;
static const uint32_t TAG_INT8 = 0x000D4B38;

std::string param_line(const Layer& l)
{
    char head[512];
    snprintf(head, sizeof(head), "%-24s %-24s %d %d", l.type.c_str(), l.name.c_str(), (int)l.bottoms.size(), (int)l.tops.size());
    std::string s = head;
    for (const std::string& b : l.bottoms)
        s += " " + b;
    for (const std::string& t : l.tops)
        s += " " + t;
    for (const auto& kv : l.params.all())
    {
        int id = kv.first;
        const ParamValue& p = kv.second;
        switch (p.type)
        {
        case ParamValue::INT:
            s += " " + std::to_string(id) + "=" + std::to_string(p.i);
            break;
        case ParamValue::FLOAT:
            s += " " + std::to_string(id) + "=" + format_float(p.f);
            break;
        case ParamValue::INT_ARRAY:
            s += " " + std::to_string(-23300 - id) + "=" + std::to_string(p.ints.size());
            for (int v : p.ints)
                s += "," + std::to_string(v);
            break;
        case ParamValue::FLOAT_ARRAY:
            s += " " + std::to_string(-23300 - id) + "=" + std::to_string(p.floats.size());
            for (float v : p.floats)
                s += "," + format_float(v);
            break;
        case ParamValue::STRING:
            s += " " + std::to_string(id) + "=\"" + p.s + "\"";
            break;
        }
    }
    return s;
}

std::string param_text(const Graph& g)
{
    std::set<std::string> blobs;
    for (const Layer& l : g.layers)
        blobs.insert(l.tops.begin(), l.tops.end());
    std::string s = "7767517\n" + std::to_string(g.layers.size()) + " " + std::to_string(blobs.size()) + "\n";
    for (const Layer& l : g.layers)
        s += param_line(l) + "\n";
    return s;
}

static void put_u32(std::vector<unsigned char>& out, uint32_t v)
{
    unsigned char b[4];
    memcpy(b, &v, 4);
    out.insert(out.end(), b, b + 4);
}

static void pad4(std::vector<unsigned char>& out)
{
    while (out.size() % 4)
        out.push_back(0);
}

// one weight buffer as the .bin holds it (tag, payload, padding to 4 bytes)
static void append_weight(std::vector<unsigned char>& out, const Weight& w)
{
    Weight::Storage st = w.tagged ? w.storage : Weight::FP32;
    if (w.tagged)
        put_u32(out, st == Weight::FP16 ? TAG_FP16 : st == Weight::INT8 ? TAG_INT8 : TAG_FP32);
    if (st == Weight::FP16)
    {
        for (float v : w.data)
        {
            unsigned short h = float32_to_float16(v);
            unsigned char b[2];
            memcpy(b, &h, 2);
            out.insert(out.end(), b, b + 2);
        }
    }
    else if (st == Weight::INT8)
    {
        for (int8_t v : w.i8)
            out.push_back((unsigned char)v);
    }
    else
    {
        size_t at = out.size();
        out.resize(at + w.data.size() * 4);
        if (!w.data.empty())
            memcpy(&out[at], w.data.data(), w.data.size() * 4);
    }
    pad4(out);
}

std::vector<unsigned char> bin_bytes(const Graph& g)
{
    std::vector<unsigned char> out;
    for (const Layer& l : g.layers)
        for (const Weight& w : l.weights)
            append_weight(out, w);
    return out;
}

// int8 layers quantize their fp32 weights with stored scales: fp16 rounding
// would move values across quantization steps, so they keep fp32
static bool int8_layer(const Layer& l)
{
    if (l.type.compare(0, 11, "Convolution") == 0)
        return l.params.get_int(Convolution::PARAM_INT8_SCALE_TERM, 0) != 0;
    if (l.type == "InnerProduct")
        return l.params.get_int(InnerProduct::PARAM_INT8_SCALE_TERM, 0) != 0;
    if (l.type == "Gemm")
        return l.params.get_int(Gemm::PARAM_INT8_SCALE_TERM, 0) != 0;
    if (l.type == "Embed")
        return l.params.get_int(Embed::PARAM_INT8_SCALE_TERM, 0) != 0;
    if (l.type == "MultiHeadAttention")
        return l.params.get_int(MultiHeadAttention::PARAM_INT8_SCALE_TERM, 0) != 0;
    return false;
}

void use_fp16_storage(Graph& g)
{
    for (Layer& l : g.layers)
        for (Weight& w : l.weights)
            if (!int8_layer(l) && w.tagged && w.storage == Weight::FP32)
                w.storage = Weight::FP16;
}

// writes `path` from the chunks `next` fills (it returns false after the last)
template <class Next>
static int write_chunks(const std::string& path, Next next, std::string& error)
{
    FILE* fp = fopen(path.c_str(), "wb");
    if (!fp)
    {
        error = "cannot create '" + path + "': " + strerror(errno);
        return -1;
    }
    bool ok = true;
    int err = 0;
    std::vector<unsigned char> chunk;
    while (ok && next(chunk))
    {
        ok = chunk.empty() || fwrite(chunk.data(), 1, chunk.size(), fp) == chunk.size();
        err = errno;
        chunk.clear();
    }
    if (fclose(fp) != 0 && ok)
    {
        ok = false;
        err = errno;
    }
    if (!ok)
    {
        error = "cannot write '" + path + "': " + strerror(err);
        remove(path.c_str());
        return -1;
    }
    return 0;
}

int write_files(const Graph& g, const std::string& param_path, const std::string& bin_path, std::string& error)
{
    if (param_path == bin_path)
    {
        error = "the .param and .bin outputs are the same file '" + param_path + "'";
        return -1;
    }
    const std::string text = param_text(g);
    std::string suffix = ".tmp." + std::to_string((long)getpid());
    std::string tparam = param_path + suffix, tbin = bin_path + suffix;
    bool text_done = false;
    auto param_chunks = [&](std::vector<unsigned char>& c) {
        if (text_done)
            return false;
        c.assign(text.begin(), text.end());
        return text_done = true;
    };
    if (write_chunks(tparam, param_chunks, error) != 0)
        return -1;
    // the .bin is written one weight buffer at a time: no second copy of all weights
    size_t li = 0, wi = 0;
    auto bin_chunks = [&](std::vector<unsigned char>& c) {
        while (li < g.layers.size() && wi >= g.layers[li].weights.size())
        {
            li++;
            wi = 0;
        }
        if (li >= g.layers.size())
            return false;
        append_weight(c, g.layers[li].weights[wi++]);
        return true;
    };
    if (write_chunks(tbin, bin_chunks, error) != 0)
    {
        remove(tparam.c_str());
        return -1;
    }
    if (rename(tbin.c_str(), bin_path.c_str()) != 0)
    {
        error = "cannot rename '" + tbin + "' to '" + bin_path + "': " + strerror(errno);
        remove(tparam.c_str());
        remove(tbin.c_str());
        return -1;
    }
    if (rename(tparam.c_str(), param_path.c_str()) != 0)
    {
        error = "cannot rename '" + tparam + "' to '" + param_path + "': " + strerror(errno);
        remove(tparam.c_str());
        remove(bin_path.c_str());
        return -1;
    }
    return 0;
}

int finalize(Graph& g, const FinalizeOptions& opt)
{
    g.error.clear();
    g.sanitize_names();
    g.make_single_assignment();
    if (g.check_and_sort() != 0)
        return -1;
    for (const std::string& o : opt.outputs)
        if (g.producer(o) < 0)
        {
            g.error = "requested output '" + o + "' is not a blob of the graph";
            return -1;
        }
    if (opt.remove_dead)
        g.remove_dead(opt.outputs);
    g.insert_splits();
    if (g.check_and_sort() != 0)
        return -1;
    if (g.layers.empty())
    {
        g.error = "the converted graph is empty";
        return -1;
    }
    return 0;
}

int finalize_and_write(Graph& g, const std::string& param_path, const std::string& bin_path, const char* tool,
                       const FinalizeOptions& opt)
{
    if (finalize(g, opt) != 0)
    {
        fprintf(stderr, "%s: error: %s\n", tool, g.error.c_str());
        return -1;
    }
    std::string err;
    if (write_files(g, param_path, bin_path, err) != 0)
    {
        fprintf(stderr, "%s: error: %s\n", tool, err.c_str());
        return -1;
    }
    return 0;
}

} // namespace convert
} // namespace kite
