#ifndef KITE_CONVERT_GRAPH_H
#define KITE_CONVERT_GRAPH_H

// The converters' in-memory graph (caffe2kite, onnx2kite, tensorflow2kite,
// kiteoptimize): layers with their ncnn type name, a unique layer name,
// bottom/top blob names, a parameter dictionary keyed by ncnn param id and
// weight buffers in the order the layer's load_model reads them.
//
// A converter fills a Graph, then calls finalize() (tools/convert/writer.h)
// which makes blob names single-assignment (in-place layers), removes dead
// layers, inserts Split layers for blobs used more than once, checks the
// graph and writes .param/.bin atomically.
//
// Tools may throw (std::runtime_error) inside their parsers; this library
// itself reports errors through return values and an error string.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kite {
namespace convert {

// One parameter value: int, float, int array, float array or string.
struct ParamValue
{
    enum Type
    {
        INT,
        FLOAT,
        INT_ARRAY,
        FLOAT_ARRAY,
        STRING,
    };
    Type type = INT;
    int i = 0;
    float f = 0.f;
    std::vector<int> ints;
    std::vector<float> floats;
    std::string s;
};

// Parameters keyed by ncnn param id (0..31).
class ParamSet
{
public:
    void set(int id, int v);
    void set(int id, float v);
    void set(int id, double v) { set(id, (float)v); }
    void set(int id, bool v) { set(id, (int)v); }
    void set_ints(int id, const std::vector<int>& v);
    void set_floats(int id, const std::vector<float>& v);
    void set_string(int id, const std::string& v);
    void erase(int id) { values.erase(id); }

    bool has(int id) const { return values.count(id) != 0; }
    const ParamValue* find(int id) const;
    // scalar getters convert int <-> float; def when absent or an array
    int get_int(int id, int def) const;
    float get_float(int id, float def) const;
    std::vector<int> get_ints(int id) const;     // empty when absent
    std::vector<float> get_floats(int id) const; // empty when absent (int arrays converted)

    const std::map<int, ParamValue>& all() const { return values; }

private:
    std::map<int, ParamValue> values;
};

// One weight buffer of a layer, as its load_model reads it.
//   tagged == true : read with type 0 -> a 4-byte storage tag precedes the data
//                    (storage FP32, FP16 or INT8)
//   tagged == false: read with type 1 -> raw fp32, no tag
// data holds the values as fp32 (for INT8 storage: the int8 values in i8).
struct Weight
{
    enum Storage
    {
        FP32,
        FP16,
        INT8,
    };
    std::vector<float> data;
    std::vector<int8_t> i8; // INT8 storage only
    bool tagged = true;
    Storage storage = FP32;

    Weight() {}
    Weight(std::vector<float> d, bool tag)
        : data(std::move(d)), tagged(tag)
    {
    }
    size_t size() const { return dropped ? dropped : storage == INT8 ? i8.size() : data.size(); }
    // a 64-bit hash of the values (FNV-1a of their bytes), also after drop_values
    uint64_t values_hash() const;
    // keeps only the size and values_hash (a probe conversion compares
    // weights by size and constants by their hash: input_size.h)
    void drop_values()
    {
        dropped_hash = values_hash();
        dropped = size();
        std::vector<float>().swap(data);
        std::vector<int8_t>().swap(i8);
    }
    size_t dropped = 0;        // the size of values dropped by drop_values (0: the values are here)
    uint64_t dropped_hash = 0; // their values_hash
};

struct Layer
{
    std::string type; // ncnn type name: Convolution, ReLU, ...
    std::string name;
    std::vector<std::string> bottoms;
    std::vector<std::string> tops;
    ParamSet params;
    std::vector<Weight> weights;
};

class Graph
{
public:
    std::vector<Layer> layers;

    // Append a layer; the name is made unique if already used (suffix _N).
    // Returns a reference valid until the next layers change.
    Layer& add(const std::string& type, const std::string& name, const std::vector<std::string>& bottoms,
               const std::vector<std::string>& tops);
    // Convenience: an Input layer with optional shape (w, h, c; 0 = unknown).
    Layer& add_input(const std::string& blob, int w = 0, int h = 0, int c = 0);

    // A layer or blob name that nobody uses yet, starting from `base`.
    std::string unique_layer_name(const std::string& base) const;
    std::string unique_blob_name(const std::string& base) const;

    // Index of the layer producing `blob` (last one), -1 if none.
    int producer(const std::string& blob) const;
    // How many bottom slots read `blob`.
    int consumer_count(const std::string& blob) const;
    // Blobs produced but never consumed (the graph outputs, in layer order).
    std::vector<std::string> unconsumed_blobs() const;

    // Rename every use (bottom) of blob `from` to `to`, in layers [begin, end).
    // every bottom and top named `from` (all layers)
    void rename_blob(const std::string& from, const std::string& to);
    void rename_bottoms(const std::string& from, const std::string& to, size_t begin = 0, size_t end = (size_t)-1);

    // --- passes (each returns 0, or -1 and sets error) ---

    // Replace characters that the text format cannot hold (whitespace, empty
    // names) in layer and blob names; make layer names unique.
    void sanitize_names();
    // Single assignment: a blob written again (Caffe in-place layers:
    // top == bottom, or a second producer) gets a fresh name and later readers
    // follow it. Outputs requested by their original name (the `outputs`
    // list) are renamed so that the last version keeps the original name.
    void make_single_assignment(std::vector<std::string>* outputs = nullptr);
    // Remove layers whose tops no requested output needs (Input layers stay).
    // outputs empty: every unconsumed blob is an output (then only layers
    // without any top are dead).
    void remove_dead(const std::vector<std::string>& outputs);
    // Remove a layer that passes its single input through (Dropout, Noop,
    // Identity): when it is the only reader of its bottom, the bottom's
    // producer writes its top instead; otherwise readers of its top read its
    // bottom (and a pass-through layer writing a graph output stays).
    void bypass(size_t index);
    // Erase layers marked in `dead` (same size as layers).
    void erase_layers(const std::vector<bool>& dead);
    // Insert Split layers for blobs read by more than one bottom slot.
    void insert_splits();
    // Each bottom has an earlier producer, each blob one producer, layer
    // names unique, no empty names. Orders the layers topologically if they
    // are not (fails on cycles).
    int check_and_sort();

    std::string error;
};

// A float as the text .param format needs it (always with '.' or 'e').
std::string format_float(float v);

} // namespace convert
} // namespace kite

#endif // KITE_CONVERT_GRAPH_H
