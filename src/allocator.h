#ifndef KITE_ALLOCATOR_H
#define KITE_ALLOCATOR_H

#include <cstddef>
#include <list>
#include <mutex>
#include <utility>

namespace kite {

// alignment of every Mat allocation: enough for AVX-512 loads
#define KITE_MALLOC_ALIGN 64
// extra bytes past the end of every allocation, so that vector code may read a
// full register past the last element without touching unmapped memory
#define KITE_MALLOC_OVERREAD 64

static inline size_t align_size(size_t sz, size_t n)
{
    return (sz + n - 1) & ~(n - 1);
}

// returns nullptr on failure, never throws
void* fast_malloc(size_t size);
void fast_free(void* ptr);

// atomic add on a refcount, returns the previous value
static inline int xadd(int* addr, int delta)
{
    return __atomic_fetch_add(addr, delta, __ATOMIC_ACQ_REL);
}

class Allocator
{
public:
    virtual ~Allocator();
    virtual void* fastMalloc(size_t size) = 0;
    virtual void fastFree(void* ptr) = 0;
};

// Keeps freed blocks and hands them out again. Thread-safe.
class PoolAllocator : public Allocator
{
public:
    PoolAllocator();
    ~PoolAllocator() override;
    // a free block is reused for a request of size s when s >= ratio * block size
    void set_size_compare_ratio(float ratio);
    // blocks below this size are not kept (default 0: keep all)
    void set_size_drop_threshold(size_t threshold);
    void clear();
    void* fastMalloc(size_t size) override;
    void fastFree(void* ptr) override;

private:
    PoolAllocator(const PoolAllocator&) = delete;
    PoolAllocator& operator=(const PoolAllocator&) = delete;
    std::mutex budgets_lock;
    std::mutex payouts_lock;
    unsigned int size_compare_ratio; // 0..256
    size_t size_drop_threshold;
    std::list<std::pair<size_t, void*> > budgets;
    std::list<std::pair<size_t, void*> > payouts;
};

// The same without locking: for one thread (one Extractor) only.
class UnlockedPoolAllocator : public Allocator
{
public:
    UnlockedPoolAllocator();
    ~UnlockedPoolAllocator() override;
    void set_size_compare_ratio(float ratio);
    void set_size_drop_threshold(size_t threshold);
    void clear();
    void* fastMalloc(size_t size) override;
    void fastFree(void* ptr) override;

private:
    UnlockedPoolAllocator(const UnlockedPoolAllocator&) = delete;
    UnlockedPoolAllocator& operator=(const UnlockedPoolAllocator&) = delete;
    unsigned int size_compare_ratio;
    size_t size_drop_threshold;
    std::list<std::pair<size_t, void*> > budgets;
    std::list<std::pair<size_t, void*> > payouts;
};

} // namespace kite

#endif // KITE_ALLOCATOR_H
