#include "allocator.h"
#include "allocator_hook.h"

#include "log.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define KITE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KITE_ASAN 1
#endif
#endif
#ifdef KITE_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace kite {

namespace {
std::atomic<allocation_hook_func> g_hook_func(nullptr);
std::atomic<void*> g_hook_userdata(nullptr);
std::atomic<allocation_hook_func> g_gpu_hook_func(nullptr);
std::atomic<void*> g_gpu_hook_userdata(nullptr);
std::atomic<long long> g_gpu_bytes(0);
} // namespace

void gpu_memory_add(long long bytes)
{
    g_gpu_bytes.fetch_add(bytes);
}

size_t gpu_memory_in_use()
{
    long long b = g_gpu_bytes.load();
    return b > 0 ? (size_t)b : 0;
}

void set_gpu_allocation_hook(allocation_hook_func hook, void* userdata)
{
    g_gpu_hook_func.store(nullptr);
    g_gpu_hook_userdata.store(userdata);
    g_gpu_hook_func.store(hook);
}

bool gpu_allocation_allowed(size_t size)
{
    allocation_hook_func hook = g_gpu_hook_func.load();
    return !hook || hook(size, g_gpu_hook_userdata.load());
}

void set_allocation_hook(allocation_hook_func hook, void* userdata)
{
    g_hook_func.store(nullptr);
    g_hook_userdata.store(userdata);
    g_hook_func.store(hook);
}

void* fast_malloc(size_t size)
{
    // guard against size overflow in the caller's arithmetic
    // (2^47 on 64-bit targets, 2^31 on 32-bit ones)
    if (size > (size_t)(sizeof(size_t) >= 8 ? (1ull << 47) : (1ull << 31)))
        return nullptr;
    allocation_hook_func hook = g_hook_func.load();
    if (hook && !hook(size, g_hook_userdata.load()))
        return nullptr;
    void* ptr = nullptr;
    if (posix_memalign(&ptr, KITE_MALLOC_ALIGN, size + KITE_MALLOC_OVERREAD) != 0)
        return nullptr;
#ifdef KITE_ASAN
    // the padding is there for vector loads that run past the end; reading
    // it is still reading past the data, and AddressSanitizer says so
    ASAN_POISON_MEMORY_REGION((char*)ptr + size, KITE_MALLOC_OVERREAD);
#endif
#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(KITE_ASAN)
    // large blocks (weights, big blobs) are filled right after allocation:
    // with 4 KiB pages that is one page fault per 4 KiB (vision_transformer's
    // 336 MB of weights: ~86k faults, most of its load time). Ask for
    // transparent huge pages on the 2 MiB-aligned interior of the block;
    // the kernel honours it where THP is "madvise" or "always" and ignores
    // it otherwise. Only whole 2 MiB pages inside the block, so nothing
    // outside it becomes resident.
    // KITE_HUGEPAGES=0 turns the hint off (a kernel whose THP defrag setting
    // compacts memory on such faults may stall where memory is fragmented).
    static const bool hugepages = !(getenv("KITE_HUGEPAGES") && atoi(getenv("KITE_HUGEPAGES")) == 0);
    if (hugepages && size >= ((size_t)4 << 20))
    {
        const uintptr_t huge = (uintptr_t)2 << 20;
        const uintptr_t b = ((uintptr_t)ptr + huge - 1) & ~(huge - 1);
        const uintptr_t e = ((uintptr_t)ptr + size) & ~(huge - 1);
        if (e > b)
            madvise((void*)b, e - b, MADV_HUGEPAGE);
    }
#endif
    return ptr;
}

void fast_free(void* ptr)
{
    free(ptr);
}

Allocator::~Allocator()
{
}

// shared logic of both pool allocators, parameterised on a lock type
namespace {
struct NoLock
{
    void lock() {}
    void unlock() {}
};

// free blocks a pool keeps before a request that none of them fits makes it
// return one to the system (pool_malloc)
const size_t kPoolFreeBlocksKept = 10;

template<typename Lock>
void* pool_malloc(Lock& budgets_lock, Lock& payouts_lock, std::list<std::pair<size_t, void*> >& budgets,
                  std::list<std::pair<size_t, void*> >& payouts, unsigned int ratio, size_t size)
{
    budgets_lock.lock();
    // best fit among blocks that are large enough and not too large
    auto best = budgets.end(), smallest = budgets.begin(), largest = budgets.begin();
    for (auto it = budgets.begin(); it != budgets.end(); ++it)
    {
        size_t bs = it->first;
        if (bs >= size && ((bs * ratio) >> 8) <= size)
        {
            if (best == budgets.end() || bs < best->first)
                best = it;
        }
        if (bs < smallest->first)
            smallest = it;
        if (bs > largest->first)
            largest = it;
    }
    if (best == budgets.end() && budgets.size() >= kPoolFreeBlocksKept)
    {
        // none fits and the pool already keeps many free blocks: one that
        // cannot serve requests of this size goes back to the system (the
        // smallest when this request is larger than all of them, the largest
        // when it is smaller than all), so that the pool's memory follows
        // the sizes in use rather than growing to the sum of every size ever
        // asked for (ncnn's pools do the same from 10 free blocks)
        std::list<std::pair<size_t, void*> >::iterator drop = budgets.end();
        if (largest->first < size)
            drop = smallest;
        else if (smallest->first > size)
            drop = largest;
        if (drop != budgets.end())
        {
            fast_free(drop->second);
            budgets.erase(drop);
        }
    }
    if (best != budgets.end())
    {
        std::pair<size_t, void*> blk = *best;
        budgets.erase(best);
        budgets_lock.unlock();
        payouts_lock.lock();
        payouts.push_back(blk);
        payouts_lock.unlock();
        return blk.second;
    }
    budgets_lock.unlock();

    void* ptr = fast_malloc(size);
    if (!ptr)
        return nullptr;
    payouts_lock.lock();
    payouts.push_back(std::make_pair(size, ptr));
    payouts_lock.unlock();
    return ptr;
}

template<typename Lock>
void pool_free(Lock& budgets_lock, Lock& payouts_lock, std::list<std::pair<size_t, void*> >& budgets,
               std::list<std::pair<size_t, void*> >& payouts, size_t drop_threshold, void* ptr)
{
    payouts_lock.lock();
    for (auto it = payouts.begin(); it != payouts.end(); ++it)
    {
        if (it->second == ptr)
        {
            std::pair<size_t, void*> blk = *it;
            payouts.erase(it);
            payouts_lock.unlock();
            if (blk.first < drop_threshold)
            {
                fast_free(ptr);
                return;
            }
            budgets_lock.lock();
            budgets.push_back(blk);
            budgets_lock.unlock();
            return;
        }
    }
    payouts_lock.unlock();
    KITE_LOGE("pool allocator: freeing %p which it did not allocate", ptr);
    fast_free(ptr);
}

template<typename Lock>
void pool_clear(Lock& budgets_lock, std::list<std::pair<size_t, void*> >& budgets)
{
    budgets_lock.lock();
    for (auto& b : budgets)
        fast_free(b.second);
    budgets.clear();
    budgets_lock.unlock();
}

unsigned int ratio_to_fixed(float ratio)
{
    if (ratio < 0.f) ratio = 0.f;
    if (ratio > 1.f) ratio = 1.f;
    return (unsigned int)(ratio * 256);
}
} // namespace

PoolAllocator::PoolAllocator()
    : size_compare_ratio(192), size_drop_threshold(0)
{
}

PoolAllocator::~PoolAllocator()
{
    clear();
    if (!payouts.empty())
    {
        KITE_LOGE("pool allocator destroyed with %d blocks still in use", (int)payouts.size());
        for (auto& b : payouts)
            fast_free(b.second);
    }
}

void PoolAllocator::set_size_compare_ratio(float ratio) { size_compare_ratio = ratio_to_fixed(ratio); }
void PoolAllocator::set_size_drop_threshold(size_t threshold) { size_drop_threshold = threshold; }
void PoolAllocator::clear() { pool_clear(budgets_lock, budgets); }

void* PoolAllocator::fastMalloc(size_t size)
{
    return pool_malloc(budgets_lock, payouts_lock, budgets, payouts, size_compare_ratio, size);
}

void PoolAllocator::fastFree(void* ptr)
{
    pool_free(budgets_lock, payouts_lock, budgets, payouts, size_drop_threshold, ptr);
}

UnlockedPoolAllocator::UnlockedPoolAllocator()
    : size_compare_ratio(192), size_drop_threshold(0)
{
}

UnlockedPoolAllocator::~UnlockedPoolAllocator()
{
    clear();
    if (!payouts.empty())
    {
        KITE_LOGE("unlocked pool allocator destroyed with %d blocks still in use", (int)payouts.size());
        for (auto& b : payouts)
            fast_free(b.second);
    }
}

void UnlockedPoolAllocator::set_size_compare_ratio(float ratio) { size_compare_ratio = ratio_to_fixed(ratio); }
void UnlockedPoolAllocator::set_size_drop_threshold(size_t threshold) { size_drop_threshold = threshold; }

void UnlockedPoolAllocator::clear()
{
    NoLock l;
    pool_clear(l, budgets);
}

void* UnlockedPoolAllocator::fastMalloc(size_t size)
{
    NoLock a, b;
    return pool_malloc(a, b, budgets, payouts, size_compare_ratio, size);
}

void UnlockedPoolAllocator::fastFree(void* ptr)
{
    NoLock a, b;
    pool_free(a, b, budgets, payouts, size_drop_threshold, ptr);
}

} // namespace kite
