#ifndef KITE_LAYER_WORK_H
#define KITE_LAYER_WORK_H

// Threads per CPU layer by its work. A layer of a few thousand operations
// split over 16 threads spends more on waking and joining the team than on
// its arithmetic; the Extractor therefore runs every CPU layer (drivers and
// references alike) with
//     threads = clamp(work / min_work_per_thread, 1, Option::num_threads)
// where work is an estimate in multiply-add equivalents from the layer's
// parameters and input shapes (layer_forward_work). A layer whose work is
// not known (a custom layer, a type not estimated here) keeps every thread.

#include "mat.h"

#include <cstdint>
#include <vector>

namespace kite {

class Layer;

// Estimated work of one forward in multiply-add equivalents, or -1 when
// unknown. Convolutions, deconvolutions and InnerProduct: output pixels
// times weights per pixel; element-wise and data-movement layers: their
// input elements times a per-element cost (4; 16 for transcendental ones).
int64_t layer_forward_work(const Layer* layer, bool custom, const std::vector<Mat>& bottoms);

// Work a thread must have before another one joins: KITE_THREAD_MIN_WORK
// from the environment (read once; 0 turns the rule off), else 0 (off: see
// layer_work.cpp; 65536 is the tuned value where team-size changes are cheap).
int64_t thread_min_work();

// clamp(work / min_work, 1, num_threads); num_threads where work < 0 or
// min_work <= 0.
int threads_for_work(int num_threads, int64_t work, int64_t min_work);

} // namespace kite

#endif // KITE_LAYER_WORK_H
