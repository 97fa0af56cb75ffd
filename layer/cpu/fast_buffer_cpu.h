#ifndef KITE_CPU_FAST_BUFFER_CPU_H
#define KITE_CPU_FAST_BUFFER_CPU_H

// A data-sized buffer of trivially copyable T from fast_malloc, for the
// runtime's packed weights and scratch arrays in place of std::vector: its
// allocation can fail (assign/resize return false; the caller returns -100)
// where a failing std::vector would throw, or abort a -fno-exceptions build,
// and the allocation hook (allocator_hook.h) sees it. Move-only.
// In namespace kite::KITE_ISA_NS like every header of layer/cpu: each ISA's
// translation units get their own copy, so the linker never hands code built
// for one ISA (say AVX-512 moves in its inline members) to another's callers.

#include "allocator.h"

#include <cstring>
#include <utility>

namespace kite {
namespace KITE_ISA_NS {

template<typename T>
class FastBuffer
{
public:
    FastBuffer() {}
    ~FastBuffer() { fast_free(p); }
    FastBuffer(FastBuffer&& o) noexcept : p(o.p), n(o.n)
    {
        o.p = nullptr;
        o.n = 0;
    }
    FastBuffer& operator=(FastBuffer&& o) noexcept
    {
        std::swap(p, o.p);
        std::swap(n, o.n);
        return *this;
    }
    FastBuffer(const FastBuffer&) = delete;
    FastBuffer& operator=(const FastBuffer&) = delete;

    // count copies of v; false (and empty) when out of memory
    bool assign(size_t count, T v)
    {
        if (!resize_uninitialized(count))
            return false;
        for (size_t i = 0; i < n; i++)
            p[i] = v;
        return true;
    }
    // count zero-initialised elements (the old contents are not kept)
    bool resize(size_t count) { return assign(count, T()); }
    void clear()
    {
        fast_free(p);
        p = nullptr;
        n = 0;
    }

    T* data() { return p; }
    const T* data() const { return p; }
    size_t size() const { return n; }
    bool empty() const { return n == 0; }
    T& operator[](size_t i) { return p[i]; }
    const T& operator[](size_t i) const { return p[i]; }

private:
    bool resize_uninitialized(size_t count)
    {
        if (count == n && p)
            return true; // the same size again (a per-call scratch buffer): no new allocation
        clear();
        if (count == 0)
            return true;
        if (count > (size_t)-1 / sizeof(T))
            return false;
        p = (T*)fast_malloc(count * sizeof(T));
        if (!p)
            return false;
        n = count;
        return true;
    }
    T* p = nullptr;
    size_t n = 0;
};

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_CPU_FAST_BUFFER_CPU_H
