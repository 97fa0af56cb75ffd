#ifndef KITE_TOOLS_RNG_H
#define KITE_TOOLS_RNG_H

// A small deterministic random generator (splitmix64), identical on every
// platform and compiler, so a seed always gives the same weights and inputs.

#include <cstdint>
#include <string>

namespace kite {
namespace tools {

static inline uint64_t splitmix64(uint64_t& state)
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// FNV-1a, to derive per-layer / per-blob streams from names
static inline uint64_t hash_string(const std::string& s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char ch : s)
    {
        h ^= ch;
        h *= 0x100000001b3ull;
    }
    return h;
}

class Rng
{
public:
    explicit Rng(uint64_t seed = 0) : state(seed) {}
    // several values combined into one stream (seed, name hash, index, ...)
    Rng(uint64_t a, uint64_t b, uint64_t c = 0) : state(a)
    {
        state ^= splitmix64(b);
        state ^= splitmix64(c) * 3;
    }
    uint64_t next() { return splitmix64(state); }
    // uniform in [0, 1)
    double uniform01() { return (double)(next() >> 11) * (1.0 / 9007199254740992.0); }
    float uniform(float lo, float hi) { return (float)(lo + (hi - lo) * uniform01()); }

private:
    uint64_t state;
};

} // namespace tools
} // namespace kite

#endif // KITE_TOOLS_RNG_H
