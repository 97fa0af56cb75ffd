#include "kgraph.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

namespace kite_onnx {

void KGraph::finalize()
{
    // dead-layer removal: keep what the outputs need
    std::map<std::string, int> producer;
    for (size_t i = 0; i < layers.size(); i++)
        for (const std::string& t : layers[i].tops)
            producer[t] = (int)i;
    std::vector<bool> keep(layers.size(), false);
    std::vector<std::string> stack(outputs.begin(), outputs.end());
    while (!stack.empty())
    {
        std::string b = stack.back();
        stack.pop_back();
        auto it = producer.find(b);
        if (it == producer.end() || keep[it->second])
            continue;
        keep[it->second] = true;
        for (const std::string& x : layers[it->second].bottoms)
            stack.push_back(x);
    }
    std::vector<KLayer> kept;
    for (size_t i = 0; i < layers.size(); i++)
        if (keep[i] || layers[i].type == "Input") // inputs stay, used or not
            kept.push_back(std::move(layers[i]));
    layers.swap(kept);

    // Split for blobs consumed more than once (outputs are extracted by their own
    // name, which stays the producer's top)
    std::map<std::string, int> uses;
    for (const KLayer& l : layers)
        for (const std::string& b : l.bottoms)
            uses[b]++;
    std::vector<KLayer> out;
    for (KLayer& l : layers)
    {
        out.push_back(l);
        for (const std::string& t : l.tops)
        {
            int n = uses.count(t) ? uses[t] : 0;
            if (n < 2)
                continue;
            KLayer s;
            s.type = "Split";
            s.name = "splitncnn_" + t;
            s.bottoms.push_back(t);
            for (int k = 0; k < n; k++)
                s.tops.push_back(t + "_splitncnn_" + std::to_string(k));
            out.push_back(s);
        }
    }
    // rename consumers of split blobs, in order; outputs keep the last copy
    std::map<std::string, int> next;
    for (KLayer& l : out)
    {
        if (l.type == "Split" && l.name.compare(0, 10, "splitncnn_") == 0)
            continue;
        for (std::string& b : l.bottoms)
            if (uses.count(b) && uses[b] >= 2)
                b = b + "_splitncnn_" + std::to_string(next[b]++);
    }
    layers.swap(out);
}

static std::string fmt_float(float v)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%e", v);
    return buf;
}

std::string KGraph::param_text() const
{
    std::set<std::string> blobs;
    for (const KLayer& l : layers)
    {
        for (const std::string& b : l.bottoms)
            blobs.insert(b);
        for (const std::string& t : l.tops)
            blobs.insert(t);
    }
    std::string s = "7767517\n" + std::to_string(layers.size()) + " " + std::to_string(blobs.size()) + "\n";
    for (const KLayer& l : layers)
    {
        char head[64];
        snprintf(head, sizeof(head), "%-16s", l.type.c_str());
        s += head;
        s += " " + l.name + " " + std::to_string(l.bottoms.size()) + " " + std::to_string(l.tops.size());
        for (const std::string& b : l.bottoms)
            s += " " + b;
        for (const std::string& t : l.tops)
            s += " " + t;
        for (const auto& kv : l.params)
        {
            const KParam& p = kv.second;
            if (p.kind == KParam::INT)
                s += " " + std::to_string(kv.first) + "=" + std::to_string(p.i);
            else if (p.kind == KParam::FLOAT)
                s += " " + std::to_string(kv.first) + "=" + fmt_float(p.f);
            else if (p.kind == KParam::INTS)
            {
                s += " " + std::to_string(-23300 - kv.first) + "=" + std::to_string(p.ia.size());
                for (int v : p.ia)
                    s += "," + std::to_string(v);
            }
            else
            {
                s += " " + std::to_string(-23300 - kv.first) + "=" + std::to_string(p.fa.size());
                for (float v : p.fa)
                    s += "," + fmt_float(v);
            }
        }
        s += "\n";
    }
    return s;
}

std::vector<char> KGraph::bin_bytes() const
{
    std::vector<char> b;
    for (const KLayer& l : layers)
        for (const KWeight& w : l.weights)
        {
            if (w.tagged)
                b.insert(b.end(), 4, 0);
            const char* p = (const char*)w.data.data();
            b.insert(b.end(), p, p + w.data.size() * sizeof(float));
        }
    return b;
}

static std::string write_file(const std::string& path, const char* data, size_t size)
{
    std::string tmp = path + ".tmp";
    FILE* f = fopen(tmp.c_str(), "wb");
    if (!f)
        return "cannot write " + tmp + ": " + strerror(errno);
    bool ok = fwrite(data, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok)
    {
        remove(tmp.c_str());
        return "write failed: " + tmp;
    }
    return std::string();
}

std::string KGraph::write(const std::string& param_path, const std::string& bin_path)
{
    finalize();
    std::string text = param_text();
    std::vector<char> bin = bin_bytes();
    std::string err = write_file(param_path, text.data(), text.size());
    if (err.empty())
        err = write_file(bin_path, bin.data(), bin.size());
    if (!err.empty())
    {
        remove((param_path + ".tmp").c_str());
        return err;
    }
    if (rename((param_path + ".tmp").c_str(), param_path.c_str()) != 0 || rename((bin_path + ".tmp").c_str(), bin_path.c_str()) != 0)
        return "cannot rename the output files into place";
    return std::string();
}

} // namespace kite_onnx
