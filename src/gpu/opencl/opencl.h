#ifndef KITE_GPU_OPENCL_OPENCL_H
#define KITE_GPU_OPENCL_OPENCL_H

// Deployment settings of the OpenCL backend (seed 003), what MACE's users set
// with SetOpenCLBinaryPaths, SetOpenCLParameterPath and
// limit_opencl_kernel_time. Only in builds with KITE_OPENCL=ON.
//
// The settings are process-wide: every Net with Option::use_opencl shares
// the device's compiled programs and the tuned-parameter table. Set them
// before the first such net is loaded; a program already built in this
// process is not rebuilt, and changing tuned_parameter_file makes the next
// launch read the new file.
//
//   kite::opencl::Settings s = kite::opencl::settings();
//   s.binary_cache_dir = "/data/app/kite-cl";        // compiled programs
//   s.tuned_parameter_file = "/data/app/kite-cl/tuned.txt";
//   s.tune = first_run;                               // search local sizes, write the file
//   s.kernel_time_limit_ms = 1;                       // keep the GPU responsive
//   kite::opencl::set_settings(s);
//
// Each field starts from the environment variable named in its comment.

#include <string>

namespace kite {
namespace opencl {

struct Settings
{
    // compiled program binaries, one file per program, build options, device
    // and driver (opencl-<program>-<hash>.bin); empty: no cache.
    // KITE_OPENCL_CACHE_DIR, default $XDG_CACHE_HOME/kite or ~/.cache/kite
    std::string binary_cache_dir;
    // tuned local sizes, one line "kernel:global-size@device lws0 lws1 lws2 ms"
    // per kernel and shape; read at the first launch, written when tuning;
    // empty: none. KITE_OPENCL_TUNED_FILE, default
    // <binary_cache_dir>/opencl-tuned.txt
    std::string tuned_parameter_file;
    // search the local size of every kernel and shape not in the file (about
    // a dozen timed launches each) and write the results. KITE_OPENCL_TUNE=1
    bool tune = false;
    // split a launch along its last dimension so that no part runs longer
    // (ms, measured at the first launch of each kernel and shape); 0: off.
    // KITE_OPENCL_KERNEL_TIME_LIMIT_MS
    double kernel_time_limit_ms = 0;
    // program builds / cache loads, tuning, split launches and the arithmetic
    // chosen on stderr. KITE_OPENCL_VERBOSE=1
    bool verbose = false;
};

// the settings in effect
Settings settings();
// replace them (see above for when changes take effect)
void set_settings(const Settings& s);

} // namespace opencl
} // namespace kite

#endif // KITE_GPU_OPENCL_OPENCL_H
