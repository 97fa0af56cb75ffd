// Threads per CPU layer by its work (src/layer_work.h): the clamp, and the
// work estimates the Extractor feeds it. Outputs at 1, 2 and 16 threads are
// compared on whole graphs by tests/threads/test_thread_counts.py.
#include "layer_work.h"

#include "layer.h"
#include "paramdict.h"

#include <gtest/gtest.h>

#include <memory>

using namespace kite;

TEST(LayerWork, ThreadsClamp)
{
    EXPECT_EQ(threads_for_work(16, 0, 65536), 1);
    EXPECT_EQ(threads_for_work(16, 65535, 65536), 1);
    EXPECT_EQ(threads_for_work(16, 3 * 65536 + 5, 65536), 3);
    EXPECT_EQ(threads_for_work(16, 100 * 65536, 65536), 16);
    EXPECT_EQ(threads_for_work(2, 3 * 65536, 65536), 2);
    // unknown work, the rule off, one thread asked for
    EXPECT_EQ(threads_for_work(16, -1, 65536), 16);
    EXPECT_EQ(threads_for_work(16, 10, 0), 16);
    EXPECT_EQ(threads_for_work(1, 1000000000, 65536), 1);
}

static std::unique_ptr<Layer> make(const char* type, const ParamDict& pd)
{
    std::unique_ptr<Layer> l(create_layer(type));
    EXPECT_TRUE(l) << type;
    if (l)
    {
        l->type = type;
        EXPECT_EQ(l->load_param(pd), 0) << type;
    }
    return l;
}

TEST(LayerWork, Estimates)
{
    // 3x3 stride 2, 3 -> 8 channels on 9 x 7: 5 x 4 outputs, 8*3*9 weights
    ParamDict pd;
    pd.set(0, 8);  // num_output
    pd.set(1, 3);  // kernel
    pd.set(3, 2);  // stride
    pd.set(6, 8 * 3 * 9);
    std::unique_ptr<Layer> conv = make("Convolution", pd);
    Mat in(9, 7, 3);
    ASSERT_FALSE(in.empty());
    EXPECT_EQ(layer_forward_work(conv.get(), false, {in}), 5 * 4 * 8 * 3 * 9);
    // a custom layer may carry a built-in type name: unknown
    EXPECT_EQ(layer_forward_work(conv.get(), true, {in}), -1);

    // depth-wise 3x3 stride 1 on 16 channels packed by 4
    ParamDict dw;
    dw.set(0, 16);
    dw.set(1, 3);
    dw.set(6, 16 * 9);
    dw.set(7, 16);
    std::unique_ptr<Layer> dwl = make("ConvolutionDepthWise", dw);
    Mat in4(10, 6, 4, 16u, 4, nullptr);
    EXPECT_EQ(layer_forward_work(dwl.get(), false, {in4}), 10 * 6 * 16 * 9);

    // InnerProduct: one row of a flattened blob, or h rows of a 2-D one
    ParamDict ip;
    ip.set(0, 10);
    ip.set(2, 10 * 32);
    std::unique_ptr<Layer> ipl = make("InnerProduct", ip);
    EXPECT_EQ(layer_forward_work(ipl.get(), false, {Mat(32)}), 320);
    EXPECT_EQ(layer_forward_work(ipl.get(), false, {Mat(32, 5)}), 5 * 320);

    // element-wise: elements times 4, transcendental times 16; both inputs count
    ParamDict none;
    std::unique_ptr<Layer> relu = make("ReLU", none);
    EXPECT_EQ(layer_forward_work(relu.get(), false, {in4}), 10 * 6 * 16 * 4);
    std::unique_ptr<Layer> sig = make("Sigmoid", none);
    EXPECT_EQ(layer_forward_work(sig.get(), false, {in}), 9 * 7 * 3 * 16);
    std::unique_ptr<Layer> bin = make("BinaryOp", none);
    EXPECT_EQ(layer_forward_work(bin.get(), false, {in, Mat(3)}), (9 * 7 * 3 + 3) * 4);

    // a type without an estimate keeps every thread
    ParamDict mp;
    mp.set(0, 8);     // embed_dim
    mp.set(1, 2);     // heads
    mp.set(2, 8 * 8); // weight_data_size
    std::unique_ptr<Layer> mha = make("MultiHeadAttention", mp);
    EXPECT_EQ(layer_forward_work(mha.get(), false, {Mat(8, 5)}), -1);
}
