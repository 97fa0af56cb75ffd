// Pool allocator tests: block reuse, the size compare ratio, best fit, thread
// safety of PoolAllocator, Mats allocated from a pool.
#include "testutil.h"

#include "log.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace kite;
using namespace kite::test;

template<typename T>
class PoolTest : public ::testing::Test
{
};
typedef ::testing::Types<PoolAllocator, UnlockedPoolAllocator> PoolTypes;
TYPED_TEST_SUITE(PoolTest, PoolTypes);

TYPED_TEST(PoolTest, freed_block_is_reused_for_similar_size)
{
    TypeParam pool;
    void* p = pool.fastMalloc(1000);
    ASSERT_NE(p, nullptr);
    memset(p, 1, 1000);
    pool.fastFree(p);
    // default ratio 0.75: a request of 750..1000 bytes takes the 1000-byte block
    void* q = pool.fastMalloc(900);
    EXPECT_EQ(q, p);
    pool.fastFree(q);
    void* r = pool.fastMalloc(1000);
    EXPECT_EQ(r, p);
    // too large for the block: a new one (while the old one is out)
    void* big = pool.fastMalloc(1001);
    EXPECT_NE(big, p);
    pool.fastFree(r);
    // too small for the block (below 0.75 of it): not the pooled block
    void* small = pool.fastMalloc(500);
    EXPECT_NE(small, p);
    // the pooled block is still available
    void* again = pool.fastMalloc(800);
    EXPECT_EQ(again, p);
    pool.fastFree(again);
    pool.fastFree(small);
    pool.fastFree(big);
}

// With 10 or more free blocks, a request that none of them fits returns one
// to the system first: the smallest when the request is larger than all of
// them (so the pool does not grow to the sum of every size asked for); with
// fewer free blocks, nothing is dropped
TYPED_TEST(PoolTest, drops_a_block_when_many_are_free_and_none_fits)
{
    for (int nblocks : {9, 10})
    {
        TypeParam pool;
        pool.set_size_compare_ratio(0.f);
        std::vector<void*> p;
        for (int i = 0; i < nblocks; i++)
            p.push_back(pool.fastMalloc(100 * (i + 1)));
        for (void* b : p)
            pool.fastFree(b);
        void* big = pool.fastMalloc(100000); // larger than every free block
        ASSERT_NE(big, nullptr);
        // the best fit for 100 bytes: the 100-byte block if it is still kept,
        // else the 200-byte one
        void* q = pool.fastMalloc(100);
        if (nblocks >= 10)
            EXPECT_EQ(q, p[1]) << nblocks << " free blocks: the smallest should have been dropped";
        else
            EXPECT_EQ(q, p[0]) << nblocks << " free blocks: none should have been dropped";
        pool.fastFree(q);
        pool.fastFree(big);
    }
}

TYPED_TEST(PoolTest, size_compare_ratio)
{
    {
        TypeParam pool;
        pool.set_size_compare_ratio(0.f); // any request up to the block size reuses it
        void* p = pool.fastMalloc(4096);
        pool.fastFree(p);
        void* q = pool.fastMalloc(1);
        EXPECT_EQ(q, p);
        pool.fastFree(q);
    }
    {
        TypeParam pool;
        pool.set_size_compare_ratio(1.f); // exact size only
        void* p = pool.fastMalloc(4096);
        pool.fastFree(p);
        void* q = pool.fastMalloc(4095);
        EXPECT_NE(q, p);
        void* r = pool.fastMalloc(4096);
        EXPECT_EQ(r, p);
        pool.fastFree(q);
        pool.fastFree(r);
    }
    {
        TypeParam pool;
        pool.set_size_compare_ratio(0.5f);
        void* p = pool.fastMalloc(1000);
        pool.fastFree(p);
        void* q = pool.fastMalloc(499); // below half: not reused
        EXPECT_NE(q, p);
        void* r = pool.fastMalloc(500);
        EXPECT_EQ(r, p);
        pool.fastFree(q);
        pool.fastFree(r);
    }
}

TYPED_TEST(PoolTest, best_fit_and_clear)
{
    TypeParam pool;
    pool.set_size_compare_ratio(0.f);
    void* a = pool.fastMalloc(2000);
    void* b = pool.fastMalloc(1000);
    void* c = pool.fastMalloc(3000);
    pool.fastFree(a);
    pool.fastFree(b);
    pool.fastFree(c);
    // the smallest block that fits
    void* x = pool.fastMalloc(900);
    EXPECT_EQ(x, b);
    void* y = pool.fastMalloc(1500);
    EXPECT_EQ(y, a);
    void* z = pool.fastMalloc(1500);
    EXPECT_EQ(z, c);
    pool.fastFree(x);
    pool.fastFree(y);
    pool.fastFree(z);
    pool.clear(); // frees the pooled blocks; later requests still work
    void* w = pool.fastMalloc(100);
    ASSERT_NE(w, nullptr);
    memset(w, 0, 100);
    pool.fastFree(w);
}

TYPED_TEST(PoolTest, mats_with_pool)
{
    TypeParam pool;
    void* first;
    {
        Mat m(16, 16, 3, (size_t)4u, &pool);
        ASSERT_FALSE(m.empty());
        EXPECT_EQ(m.allocator, &pool);
        m.fill(1.f);
        first = m.data;
        Mat copy = m;
        Mat cl = m.clone(&pool);
        EXPECT_NE(cl.data, m.data);
    }
    // both blocks went back to the pool; a Mat of the same size gets one again
    Mat n(16, 16, 3, (size_t)4u, &pool);
    Mat o(16, 16, 3, (size_t)4u, &pool);
    EXPECT_TRUE(n.data == first || o.data == first);
    // alignment holds for pooled blocks
    EXPECT_EQ((uintptr_t)n.data % 16, 0u);
    EXPECT_EQ((uintptr_t)o.data % 16, 0u);
    // a pack4 Mat and an fp16 Mat through the pool
    Mat p(5, 5, 2, (size_t)16u, 4, &pool);
    p.fill(2.f);
    Mat h;
    Option opt;
    opt.blob_allocator = &pool;
    cast_float32_to_float16(p, h, opt);
    EXPECT_EQ(h.allocator, &pool);
    Mat back;
    cast_float16_to_float32(h, back, opt);
    EXPECT_EQ(compare_mat(back, p, 0.f), "");
}

namespace {
std::vector<std::string>* g_log = nullptr;
void capture_log(int level, const char* msg, void*)
{
    if (g_log && level == LOG_ERROR)
        g_log->push_back(msg);
}
} // namespace

TYPED_TEST(PoolTest, foreign_pointer_is_reported)
{
    std::vector<std::string> log;
    g_log = &log;
    set_log_sink(capture_log, nullptr);
    TypeParam pool;
    void* foreign = fast_malloc(64);
    pool.fastFree(foreign); // not from the pool: logged, and freed
    set_log_sink(nullptr, nullptr);
    g_log = nullptr;
    ASSERT_EQ(log.size(), 1u);
    EXPECT_NE(log[0].find("did not allocate"), std::string::npos) << log[0];
}

TEST(PoolAllocator, thread_safety)
{
    // several threads allocate, fill, check and free blocks of random sizes
    // from one pool; a block handed out twice would corrupt another thread's pattern
    PoolAllocator pool;
    const int nthreads = 6;
    const int iterations = 4000;
    std::vector<int> errors(nthreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < nthreads; t++)
    {
        threads.emplace_back([&, t]() {
            std::mt19937 rng(1234 + t);
            std::vector<std::pair<unsigned char*, size_t> > held;
            for (int i = 0; i < iterations; i++)
            {
                if (held.size() < 8 && (rng() % 3 != 0 || held.empty()))
                {
                    size_t size = 16 + rng() % 4096;
                    unsigned char* p = (unsigned char*)pool.fastMalloc(size);
                    if (!p)
                    {
                        errors[t]++;
                        continue;
                    }
                    memset(p, (unsigned char)(t * 16 + 1), size);
                    held.push_back(std::make_pair(p, size));
                }
                else
                {
                    size_t k = rng() % held.size();
                    unsigned char* p = held[k].first;
                    size_t size = held[k].second;
                    for (size_t j = 0; j < size; j++)
                    {
                        if (p[j] != (unsigned char)(t * 16 + 1))
                        {
                            errors[t]++;
                            break;
                        }
                    }
                    pool.fastFree(p);
                    held.erase(held.begin() + k);
                }
            }
            for (auto& h : held)
                pool.fastFree(h.first);
        });
    }
    for (auto& th : threads)
        th.join();
    for (int t = 0; t < nthreads; t++)
        EXPECT_EQ(errors[t], 0) << "thread " << t;
}

TEST(PoolAllocator, mats_shared_across_threads)
{
    // Mats from one pool created and released on different threads
    PoolAllocator pool;
    std::vector<std::thread> threads;
    std::vector<int> bad(4, 0);
    for (int t = 0; t < 4; t++)
    {
        threads.emplace_back([&, t]() {
            for (int i = 0; i < 300; i++)
            {
                Mat m(8 + i % 13, 7, 3, (size_t)4u, &pool);
                if (m.empty())
                {
                    bad[t]++;
                    continue;
                }
                m.fill((float)t);
                Mat c = m; // refcount shared within the thread
                const float* p = (const float*)c.data;
                for (size_t k = 0; k < c.total(); k++)
                    if (p[k] != (float)t)
                    {
                        bad[t]++;
                        break;
                    }
            }
        });
    }
    for (auto& th : threads)
        th.join();
    for (int t = 0; t < 4; t++)
        EXPECT_EQ(bad[t], 0);
}
