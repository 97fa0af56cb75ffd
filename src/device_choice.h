#ifndef KITE_DEVICE_CHOICE_H
#define KITE_DEVICE_CHOICE_H
// device=auto: time a few forwards of a model on every backend this build and
// machine offer (the CPU, the Vulkan device and the OpenCL device the Option
// names) and keep the fastest. The choice is stored in a small text file in
// the cache folder, keyed by the model's contents, the input shapes, the
// options that change speed (threads, fp16), every candidate device with its
// driver, and kite's version: a later start with the same key reads the
// choice back and times nothing.
//
//   kite::DeviceChoice choice;
//   if (kite::choose_device("m.param", "m.bin", net.opt, {}, choice) == 0)
//       kite::apply_device_choice(choice, net.opt);
//   net.load_param("m.param"); net.load_model("m.bin");
#include "mat.h"
#include "option.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kite {

class Net;

struct DeviceCandidate
{
    int backend = 0;          // BACKEND_CPU, BACKEND_VULKAN, BACKEND_OPENCL
    int device = 0;           // device index of that backend (0 for the CPU)
    std::string description;  // "cpu", "vulkan:0 <device name> | <driver>", ...
    double ms = -1;           // best forward time; -1: not timed (from cache) or failed
    int status = 0;           // 0, or why the candidate could not run (a kite error code)
};

struct DeviceChoice
{
    int backend = 0;             // BACKEND_CPU unless a GPU backend was faster
    int device = 0;
    bool from_cache = false;     // read back from the cache file, nothing timed
    std::string key;             // what the choice is stored under
    std::string cache_file;      // "" when the cache is off
    std::vector<DeviceCandidate> candidates;
    // one line: "device=auto: vulkan:0 (0.41 ms) over cpu (2.3 ms), opencl:0 (0.52 ms)" or "... (cached in FILE)"
    std::string summary() const;
};

struct DeviceChoiceSettings
{
    int warmup = 1;              // forwards before timing (first-run costs: shader builds, allocations)
    int runs = 3;                // timed forwards per candidate; the minimum counts
    // folder of the cache file (device-choice.txt): "" for KITE_CACHE_DIR, else
    // $XDG_CACHE_HOME/kite, else $HOME/.cache/kite; "off": no cache
    std::string cache_dir;
    bool refresh = false;        // time again even when the cache has the key
};

// Loads the model into `net`, whose opt the chooser has set for a candidate
// (load_param + load_model, as the application does). Returns 0 or an error.
typedef std::function<int(Net& net)> NetLoader;

// Chooses a device for a model that `load` puts into a Net. model_hash names
// the model's contents (hash_bytes / hash_file). `inputs` are example inputs
// by blob name; empty: every input of the graph gets random data of the shape
// its Input layer declares (an error names an input without one). Returns 0
// with `choice` filled (the CPU at worst), or an error when not even the CPU
// could run the model.
int choose_device(uint64_t model_hash, const Option& opt, const NetLoader& load,
                  const std::vector<std::pair<std::string, Mat> >& inputs, DeviceChoice& choice,
                  const DeviceChoiceSettings& settings = DeviceChoiceSettings());
// The same for a .param (text or binary, by its magic) and a .bin file;
// binpath nullptr or "" loads zero weights (load_model_empty).
int choose_device(const char* parampath, const char* binpath, const Option& opt,
                  const std::vector<std::pair<std::string, Mat> >& inputs, DeviceChoice& choice,
                  const DeviceChoiceSettings& settings = DeviceChoiceSettings());

// Sets use_vulkan_compute / use_opencl and the device index as chosen (set
// before Net::load_param).
void apply_device_choice(const DeviceChoice& choice, Option& opt);

// 64-bit hashes for model_hash: of bytes, and of a file's contents (0 when it
// cannot be read). `seed` chains several parts.
uint64_t hash_bytes(const void* data, size_t size, uint64_t seed = 0);
uint64_t hash_file(const char* path, uint64_t seed = 0);

} // namespace kite

#endif // KITE_DEVICE_CHOICE_H
