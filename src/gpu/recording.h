#ifndef KITE_GPU_RECORDING_H
#define KITE_GPU_RECORDING_H

// A forward on the GPU backends, recorded once and replayed (the Extractor,
// src/extractor.cpp). The first forward with some input shapes runs layer by
// layer as ever, with its sessions in recording mode (GpuSession): what they
// record stays with them, and the Extractor logs the host side of the run as
// events: uploads of CPU blobs into session slots, downloads out of them,
// CPU layers (layers with no GPU row, GPU layers that fell back), and the
// submissions that closed a segment without a download. A later forward
// with the same input shapes and the same extracted blobs replays the
// events: new data into the upload slots, each segment submitted again as
// recorded (one submission, one fence per segment; a forward without CPU
// layers is one segment), the CPU layers run on the downloaded data; no GPU
// layer runs on the host.
//
// A recording belongs to one Extractor at a time: the Net keeps the idle
// ones and hands one out when an Extractor's first extract() matches its key
// (so that Extractors made per forward, on any thread, replay too); the
// Extractor gives it back at clear() / destruction. Each extract() of a
// blob that is not computed yet is one chapter; an Extractor that extracts
// in another order, sets an input after extracting, or meets an upload of
// another shape (a CPU layer's output shape that depends on the data) stops
// replaying and runs on as before, and that recording is dropped.

#include "gpu.h"

#include <memory>
#include <mutex>
#include <vector>

namespace kite {

struct GpuRecording
{
    // lightmode, the first extracted blob, then per input blob: index, dims,
    // w, h, d, c, elempack, elemsize
    std::vector<long long> key;
    // declared first: destroyed last, after the blobs below gave their
    // buffers back
    std::shared_ptr<GpuSession> sessions[3];

    enum
    {
        UPLOAD = 0,   // blob `index` (CPU) into upload slot `slot` of `backend`
        DOWNLOAD = 1, // download slot `slot` of `backend` into blob `index`
        CPU_LAYER = 2, // layer `index` on the CPU
        SEGMENT = 3,  // segment `slot` of `backend` submitted (no download ends it)
    };
    struct Event
    {
        int kind;
        int backend;
        int index;
        int slot;
        // UPLOAD: the layer whose quantize_input made the uploaded int8
        // blob of the float one (fp16 storage), or -1
        int quant_layer;
    };
    std::vector<Event> events;

    // the Extractor's state after a chapter
    struct Chapter
    {
        int target = -1;
        size_t end = 0; // its events end here (they begin where the previous chapter's end)
        std::vector<GpuBlobPtr> blob_gpu;
        std::vector<int> consumed;
        std::vector<char> computed;
        std::vector<char> mat_alive;
        std::vector<signed char> ran_on, ran_isa;
        std::vector<char> ran_fallback;
    };
    std::vector<Chapter> chapters;
    // never replayed again nor given back to the Net
    bool tainted = false;

    void taint()
    {
        tainted = true;
        for (auto& s : sessions)
            if (s)
                s->stop_recording();
    }
    int segments() const
    {
        int n = 0;
        for (auto& s : sessions)
            if (s)
                n += s->segments();
        return n;
    }
};

// the idle recordings of a Net
struct GpuRecordingCache
{
    std::mutex lock;
    std::vector<std::shared_ptr<GpuRecording> > idle;
};

} // namespace kite

#endif // KITE_GPU_RECORDING_H
