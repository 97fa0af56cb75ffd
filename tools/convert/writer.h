#ifndef KITE_CONVERT_WRITER_H
#define KITE_CONVERT_WRITER_H

// Finishing a converted graph and writing it as ncnn text .param + .bin.

#include "graph.h"

#include <string>
#include <vector>

namespace kite {
namespace convert {

// One layer line / the whole text .param (magic 7767517).
std::string param_line(const Layer& l);
std::string param_text(const Graph& g);
// The .bin bytes: every weight of every layer in order; tagged buffers start
// with the storage tag (fp32 0, fp16 0x01306B47, int8 0x000D4B38); fp16 and
// int8 payloads are padded to 4 bytes.
std::vector<unsigned char> bin_bytes(const Graph& g);

// Mark every tagged fp32 weight for fp16 storage (values rounded on write),
// except in int8 layers (int8_scale_term set), whose scales fit fp32 weights.
void use_fp16_storage(Graph& g);

// Write both files atomically: each goes to "<path>.tmp.<pid>" first and is
// renamed into place only when both were written completely; on failure
// neither output exists (a previous file of that name is left alone) and
// `error` says why. Returns 0 or -1. The .bin is streamed one weight buffer
// at a time (bin_bytes would hold all weights a second time).
int write_files(const Graph& g, const std::string& param_path, const std::string& bin_path, std::string& error);

struct FinalizeOptions
{
    std::vector<std::string> outputs; // requested outputs; empty: every unconsumed blob
    bool remove_dead = true;
};

// The converters' last step: sanitize names, single-assignment blob names
// (in-place layers), dead-layer removal, topological order and checks, Split
// insertion for blobs read more than once. Returns 0 or -1 with g.error set.
int finalize(Graph& g, const FinalizeOptions& opt = FinalizeOptions());

// finalize + write_files; prints "<tool>: error: ..." on stderr on failure.
int finalize_and_write(Graph& g, const std::string& param_path, const std::string& bin_path, const char* tool,
                       const FinalizeOptions& opt = FinalizeOptions());

} // namespace convert
} // namespace kite

#endif // KITE_CONVERT_WRITER_H
