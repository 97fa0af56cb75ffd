#ifndef KITE_GPU_GPU_H
#define KITE_GPU_GPU_H

// The part of the GPU backends the Net sees. A backend (src/gpu/vulkan,
// src/gpu/opencl) derives its own blob type from GpuBlob and its per-Extractor
// command stream from GpuSession; its layers implement Layer::forward_gpu.
// The Extractor keeps each blob on the CPU, on a GPU, or both, and inserts
// uploads and downloads where a layer of one backend consumes a blob that
// lives on another.

#include "../mat.h"
#include "../option.h"

#include <memory>
#include <string>

namespace kite {

class Layer;

// A tensor in GPU memory. `shape` describes it as a Mat would (dims, w, h,
// d, c, elempack, elemsize) but holds no data.
class GpuBlob
{
public:
    virtual ~GpuBlob() {}
    int backend = 0; // Backend
    Mat shape;
    int dims() const { return shape.dims; }
};
typedef std::shared_ptr<GpuBlob> GpuBlobPtr;

// Mat header describing `m` without its data (for GpuBlob::shape).
Mat gpu_shape_of(const Mat& m);

// One Extractor's work on one backend: commands are recorded by the layers'
// forward_gpu and run at the latest when something is downloaded.
class GpuSession
{
public:
    virtual ~GpuSession() {}
    // CPU blob (any elempack, fp32/fp16) -> GPU blob in the layout `consumer`
    // takes (nullptr: the backend's default layout)
    virtual int upload(const Mat& m, GpuBlobPtr& out, const Layer* consumer, const Option& opt) = 0;
    // GPU blob -> CPU blob, fp32, elempack 1; waits for the recorded work
    virtual int download(const GpuBlobPtr& g, Mat& m, const Option& opt) = 0;
    // make a GPU blob what `consumer` takes (packing/precision on the device)
    virtual int convert_for_layer(GpuBlobPtr& g, const Layer* consumer, const Option& opt)
    {
        (void)g;
        (void)consumer;
        (void)opt;
        return 0;
    }
    // run everything recorded so far and wait for it
    virtual int finish() = 0;
    // the largest elempack blobs of this session may take on the device (a
    // test forces each packed layout in turn; backends without packed device
    // layouts ignore it)
    virtual void limit_elempack(int max_elempack) { (void)max_elempack; }

    // Recording and replay (the Extractor's GpuRecording, src/extractor.cpp).
    // A session in recording mode keeps what it records: each submission
    // (a download, or finish()) closes one segment, which stays with the
    // session, as do its descriptor sets / kernel arguments and the staging
    // memory of every upload and download (one slot each, numbered in order).
    // Replaying writes new data into the upload slots, submits the segments
    // again in the same order and reads the download slots: no layer runs.
    //
    // start recording (a session with nothing pending); false where the
    // backend cannot replay (the Extractor then runs every forward as before)
    virtual bool start_recording() { return false; }
    // leave recording mode for good (what was recorded is never replayed;
    // later work runs as in a session that never recorded)
    virtual void stop_recording() {}
    // slots taken so far (the last upload's slot is upload_slots() - 1)
    virtual int upload_slots() const { return 0; }
    virtual int download_slots() const { return 0; }
    // segments closed so far
    virtual int segments() const { return 0; }
    // whether commands are recorded but not yet submitted
    virtual bool pending() const { return false; }
    // submissions and host waits so far (a layer that waits on the host
    // inside forward_gpu cannot be replayed)
    int syncs = 0;
    // replay: new data for upload slot `slot` (KITE_GPU_REPLAY_MISMATCH when
    // `m` is not shaped as the recorded one)
    virtual int replay_upload(int slot, const Mat& m, const Option& opt)
    {
        (void)slot, (void)m, (void)opt;
        return -1;
    }
    // replay: submit segment `segment` (the next one) and wait for it
    virtual int replay_segment(int segment)
    {
        (void)segment;
        return -1;
    }
    // replay: the segment that ends with download slot `slot`, then its data
    virtual int replay_download(int slot, Mat& m, const Option& opt)
    {
        (void)slot, (void)m, (void)opt;
        return -1;
    }
};

enum
{
    // replay_upload: the Mat is not shaped as the recorded upload
    KITE_GPU_REPLAY_MISMATCH = -102,
};

class GpuBackend
{
public:
    virtual ~GpuBackend() {}
    virtual int backend() const = 0;
    virtual const char* name() const = 0;
    // whether the device opt asks for (vulkan_device / opencl_device) can be
    // used; logs why not otherwise
    virtual bool available(const Option& opt) = 0;
    virtual GpuSession* create_session(const Option& opt) = 0;
    // the device opt names, with its driver ("NVIDIA H100 | driver 580.65"):
    // what device=auto keys its cached choice by
    virtual std::string device_description(const Option& opt)
    {
        (void)opt;
        return name();
    }
    // whether sessions with opt compute in fp16 (opt.use_fp16_arithmetic and
    // a device that can); the layer tests add an fp16-arithmetic row then
    virtual bool fp16_arithmetic(const Option& opt)
    {
        (void)opt;
        return false;
    }
};

// The backend compiled in for `backend` (BACKEND_VULKAN, BACKEND_OPENCL), or
// nullptr when this build has none.
GpuBackend* gpu_backend(int backend);

// Put `b` in place of the built-in backend (nullptr: back to the built-in
// one). For tests, and for applications that bring their own device code
// through custom layers whose creator sets Layer::backend. Not thread-safe:
// call before loading nets.
void set_gpu_backend(int backend, GpuBackend* b);

// Whether `backend` may be used with `opt`: compiled in, switched on in opt
// and a device present. The first refusal per backend prints a one-line notice
// ("... running on the CPU").
bool gpu_backend_usable(int backend, const Option& opt);

} // namespace kite

#endif // KITE_GPU_GPU_H
