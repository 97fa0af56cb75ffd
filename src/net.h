#ifndef KITE_NET_H
#define KITE_NET_H

#include "datareader.h"
#include "layer.h"
#include "mat.h"
#include "modelbin.h"
#include "option.h"
#include "paramdict.h"

#include <memory>
#include <string>
#include <vector>

namespace kite {

class Extractor;
struct GpuRecording;
struct GpuRecordingCache;

// Convert a blob to what `layer` accepts under `opt` (storage precision, then
// element packing), exactly as the Net does between layers.
int convert_blob_for_layer(Mat& m, const Layer* layer, const Option& opt);
// the elempack the Net gives `layer` for a packing axis of `scalars` values
int preferred_elempack_for(const Layer* layer, int scalars, int elembits);

struct Blob
{
    std::string name;
    int producer = -1;            // layer index
    std::vector<int> consumers;   // layer indices, in order
    Mat shape;                    // shape hint from the param file, may be empty
};

// Where a layer ran (Extractor::layer_placement) or where the Net placed it at
// load (Net::layer_placement): the registry row and the kernel it chose.
struct LayerPlacement
{
    bool ran = false;            // the layer ran in the Extractor's last run (Input: its blob was set)
    int backend = -1;            // Backend of the code that ran it; -1 when it did not run
    int isa = 0;                 // CpuIsa of that code (CPU_ISA_NONE: the reference; 0 for GPU rows)
    bool custom = false;         // a custom layer (register_custom_layer)
    // the row: layer_row_name(backend, isa) ("cpu:avx2", "cpu:reference",
    // "vulkan", "opencl"), "custom" for a custom layer on the CPU, "-" when
    // the layer did not run
    const char* row = "-";
    // Layer::kernel_path() of the implementation that ran, nullptr where it
    // has one path or the run fell back to the reference
    const char* path = nullptr;
};

// Called after every layer when set on an Extractor (profiling).
typedef void (*layer_observer_func)(const Layer* layer, int layer_index, double ms, const std::vector<Mat>& tops, void* userdata);

class Net
{
public:
    Net();
    ~Net();

    // set before load_param: layer implementations are chosen from it
    Option opt;

    // Custom layers override built-in ones of the same type name. A binary
    // param refers to custom layer k by type index (k | 0x100).
    int register_custom_layer(const char* type, layer_creator_func creator, layer_destroyer_func destroyer = nullptr, void* userdata = nullptr);

    // text .param
    int load_param(const char* path);
    int load_param_mem(const char* text);
    int load_param(const DataReader& dr);
    // binary .param.bin
    int load_param_bin(const char* path);
    int load_param_bin(const DataReader& dr);

    // .bin weights
    int load_model(const char* path);
    // map the file and use the weights in place
    int load_model_mmap(const char* path);
    // weights used in place from memory the caller keeps alive; returns the
    // number of bytes consumed, 0 on failure
    size_t load_model(const unsigned char* mem, size_t size = SIZE_MAX);
    int load_model(const DataReader& dr);
    int load_model(const ModelBin& mb);
    // zero weights, as benchmarks use
    int load_model_empty();

    void clear();

    Extractor create_extractor() const;

    const std::vector<Blob>& blobs() const { return blobs_; }
    const std::vector<Layer*>& layers() const { return layers_; }
    const ParamDict& layer_param(int layer_index) const { return layer_params_[layer_index]; }
    std::vector<std::string> input_names() const;
    std::vector<std::string> output_names() const;
    std::vector<int> input_indexes() const;
    std::vector<int> output_indexes() const;
    int find_blob_index_by_name(const char* name) const;
    int find_layer_index_by_name(const char* name) const;
    bool model_loaded() const { return model_loaded_; }
    // the row the Net chose for a layer at load (ran = false): what runs it
    // unless a GPU layer or a CPU driver falls back at run time, which only
    // Extractor::layer_placement sees
    LayerPlacement layer_placement(int layer_index) const;

    // Where the last load_model's time went (milliseconds, wall clock): the
    // layers reading their weights, every layer's create_pipeline (weight
    // transforms, GPU pipelines: what a pipeline cache saves), and the GPU
    // backends' weight transfer at the end. Zeros before a load.
    struct LoadTimes
    {
        double weights_ms = 0, create_pipeline_ms = 0, upload_ms = 0;
    };
    const LoadTimes& load_times() const { return load_times_; }

private:
    Net(const Net&) = delete;
    Net& operator=(const Net&) = delete;
    friend class Extractor;

    Layer* create_layer_for(const std::string& type, int typeindex, const ParamDict& pd, const std::string& name, int& err);
    int add_layer(const std::string& type, int typeindex, const std::string& name,
                  const std::vector<std::string>& bottom_names, const std::vector<std::string>& top_names,
                  const ParamDict& pd, const std::vector<Mat>& top_shapes, const char* where);
    int finish_param();
    int destroy_layer(Layer* layer);

    struct CustomLayer
    {
        std::string type;
        layer_creator_func creator;
        layer_destroyer_func destroyer;
        void* userdata;
    };
    std::vector<CustomLayer> custom_layers_;
    std::vector<Blob> blobs_;
    std::vector<Layer*> layers_;
    std::vector<ParamDict> layer_params_;
    std::vector<int> layer_custom_index_; // -1 for built-in layers
    bool model_loaded_;
    LoadTimes load_times_;
    int declared_blob_count_;
    DataReaderFromMmap* mmap_;
    // recorded GPU forwards not in use (src/gpu/recording.h)
    std::shared_ptr<GpuRecordingCache> recordings_;
};

// One inference session on a Net. Cheap to create; many may run at once on
// the same Net from different threads.
class Extractor
{
public:
    ~Extractor();
    Extractor(const Extractor& rhs);
    Extractor& operator=(const Extractor& rhs);

    void clear();
    void set_light_mode(bool enable);
    void set_num_threads(int num_threads);
    void set_blob_allocator(Allocator* allocator);
    void set_workspace_allocator(Allocator* allocator);
    void set_layer_observer(layer_observer_func observer, void* userdata);
    const Option& option() const { return opt; }

    int input(const char* blob_name, const Mat& in);
    int input(int blob_index, const Mat& in);

    // type 0: fp32, elempack 1 (what applications want); type 1: as stored.
    // Returns 0 with an empty Mat when the producer legitimately produced
    // nothing (e.g. DetectionOutput without detections), as ncnn does.
    int extract(const char* blob_name, Mat& feat, int type = 0);
    int extract(int blob_index, Mat& feat, int type = 0);

    // where a layer ran in this Extractor (its last run): BACKEND_CPU, a GPU
    // backend, or -1 when it has not run. A GPU layer that ran on the CPU
    // after all (an int8 input from a CPU layer, a shape its driver has no
    // kernel for) counts as CPU. Input layers count as CPU.
    int layer_backend(int layer_index) const;
    // the registry row that ran a layer in this Extractor's last run (see
    // LayerPlacement): a GPU layer that fell back to the CPU names the CPU
    // code that ran it (its reference base class: cpu:reference), a CPU
    // driver that handed the run to its reference (note_cpu_layer_on_reference)
    // cpu:reference; row "-" for a layer the requested outputs did not need.
    LayerPlacement layer_placement(int layer_index) const;
    // layer_placement of every layer, by layer index
    std::vector<LayerPlacement> placement() const;

    // How this Extractor ran its GPU layers (src/gpu/recording.h): extracts
    // recorded as a replayable forward, extracts replayed, and the GPU
    // segments (submissions, one fence each) of the recording in use: 1 for
    // a forward with every layer on one GPU backend, more where CPU layers
    // sit between GPU ones. Zeros when no GPU layer ran, when a layer
    // observer is set, or with KITE_GPU_REPLAY=0 in the environment.
    struct GpuRunStats
    {
        int recorded = 0;
        int replayed = 0;
        int segments = 0;
    };
    GpuRunStats gpu_run_stats() const;

private:
    friend class Net;
    explicit Extractor(const Net* net);
    int run_layer(int layer_index);
    int run_layer_gpu(int layer_index);
    int run_layer_cpu(int layer_index);
    // recording and replay (src/gpu/recording.h)
    void record_event(int kind, int backend, int index, int slot, int quant_layer = -1);
    int upload_quantizer(int bi) const;
    void stop_replaying();
    int begin_chapter(int target);
    int end_chapter(int target);
    int replay_chapter();
    void give_back_recording();
    GpuSession* session_for(int backend);
    // the CPU copy of a blob, downloaded from the GPU if only there
    int blob_on_cpu(int blob_index);
    void release_blob(int blob_index);

    const Net* net;
    Option opt;
    std::vector<Mat> blob_mats;
    std::vector<int> consumed; // how many consumers have used each blob
    std::vector<char> computed; // blob holds its current value (possibly empty)
    std::vector<GpuBlobPtr> blob_gpu; // GPU copy of a blob (nullptr: none)
    std::shared_ptr<GpuSession> sessions[3]; // per Backend, made on first use
    std::vector<signed char> ran_on;          // per layer: where it last ran (-1: not yet)
    std::vector<signed char> ran_isa;         // per layer: the CpuIsa of the CPU code that ran it
    std::vector<char> ran_fallback;           // per layer: its run went to other code (a GPU layer on the CPU, a driver's reference)
    layer_observer_func observer;
    void* observer_userdata;
    std::shared_ptr<GpuRecording> rec; // the recording in use (never shared with another Extractor)
    int chapter = 0;                   // extracts run with rec so far
    bool recording = false;            // the current extract records into rec
    bool ran_any = false;              // something ran since clear(): no new recording
    bool no_recording = false;         // an input set after an extract: none until clear()
    GpuRunStats stats;
};

} // namespace kite

#endif // KITE_NET_H
