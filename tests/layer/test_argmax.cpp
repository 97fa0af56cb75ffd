#include "shape_testutil.h"

#include <algorithm>

using namespace shapetest;

TEST(ArgMax, topk_indices_and_values)
{
    kite::test::reseed(3);
    for (Shape s : {Shape{9}, Shape{3, 5}, Shape{4, 3, 5}, Shape{2, 3, 2, 3}})
    {
        Mat in = make(s);
        std::vector<float> flat;
        for_each_index(s, [&](const Shape& i) {
            float v = (float)kite::test::rand_int(-20, 20); // ties on purpose
            *lptr(in, i) = v;
            flat.push_back(v);
        });
        // the order: larger value first, equal values higher index first
        std::vector<int> order(flat.size());
        for (size_t i = 0; i < order.size(); i++)
            order[i] = (int)i;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return flat[a] != flat[b] ? flat[a] > flat[b] : a > b; });
        for (int topk : {1, 3})
        {
            EXPECT_TRUE(matches(run("ArgMax", params({{0, 0}, {1, topk}}), {in})[0], {1, topk}, [&](const Shape& i) { return (float)order[i[1]]; }));
            EXPECT_TRUE(matches(run("ArgMax", params({{0, 1}, {1, topk}}), {in})[0], {2, topk}, [&](const Shape& i) {
                return i[0] == 0 ? flat[order[i[1]]] : (float)order[i[1]];
            }));
        }
    }
    EXPECT_TRUE(fails("ArgMax", params({{1, 10}}), {seq({3, 3})}));
    EXPECT_TRUE(fails("ArgMax", params({{1, 0}}), {seq({3, 3})}));
}
