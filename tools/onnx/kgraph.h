// In-memory kite graph built by onnx2kite and its param/bin writer.
// (Stand-in until the shared tools/convert library lands; kept minimal.)
#ifndef KITE_TOOLS_ONNX_KGRAPH_H
#define KITE_TOOLS_ONNX_KGRAPH_H

#include <map>
#include <string>
#include <vector>

namespace kite_onnx {

struct KParam
{
    enum Kind { INT, FLOAT, INTS, FLOATS } kind = INT;
    int i = 0;
    float f = 0.f;
    std::vector<int> ia;
    std::vector<float> fa;
};

struct KWeight
{
    bool tagged = false; // read with ModelBin type 0: a 4-byte fp32 tag first
    std::vector<float> data;
};

struct KLayer
{
    std::string type;
    std::string name;
    std::vector<std::string> bottoms;
    std::vector<std::string> tops;
    std::map<int, KParam> params;
    std::vector<KWeight> weights;

    void set(int id, int v) { KParam& p = params[id]; p.kind = KParam::INT; p.i = v; }
    void setf(int id, float v) { KParam& p = params[id]; p.kind = KParam::FLOAT; p.f = v; }
    void seti(int id, const std::vector<int>& v) { KParam& p = params[id]; p.kind = KParam::INTS; p.ia = v; }
    void setfa(int id, const std::vector<float>& v) { KParam& p = params[id]; p.kind = KParam::FLOATS; p.fa = v; }
};

struct KGraph
{
    std::vector<KLayer> layers;
    std::vector<std::string> outputs; // blobs that must stay alive

    // drops layers no output depends on, inserts Split for blobs read more
    // than once, then writes both files (to temporaries renamed at the end).
    // Returns an empty string or the reason it failed.
    std::string write(const std::string& param_path, const std::string& bin_path);
    void finalize();
    std::string param_text() const;
    std::vector<char> bin_bytes() const;
};

} // namespace kite_onnx

#endif
