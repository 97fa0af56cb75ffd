#include "testutil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

// value of the bilinear interpolant at (x, y), from the four neighbours
static double interp(const float* p, int w, int h, double x, double y)
{
    x = std::min(std::max(x, 0.0), (double)w - 1);
    y = std::min(std::max(y, 0.0), (double)h - 1);
    const int x0 = (int)std::floor(x), y0 = (int)std::floor(y);
    const int x1 = std::min(x0 + 1, w - 1), y1 = std::min(y0 + 1, h - 1);
    const double fx = x - x0, fy = y - y0;
    return (1 - fy) * ((1 - fx) * p[y0 * w + x0] + fx * p[y0 * w + x1]) + fy * ((1 - fx) * p[y1 * w + x0] + fx * p[y1 * w + x1]);
}

// ROIs well inside the map, so clipping never applies: both versions reduce
// to averaging grid x grid interpolated samples per bin
static Mat naive(const Mat& in, const float* roi, int PW, int PH, float scale, int sr, bool aligned, int version)
{
    const double off = aligned ? 0.5 : 0.0;
    const double x1 = roi[0] * scale - off, y1 = roi[1] * scale - off;
    double rw = roi[2] * scale - off - x1, rh = roi[3] * scale - off - y1;
    if (!aligned)
    {
        rw = std::max(rw, 1.0);
        rh = std::max(rh, 1.0);
    }
    const double bw = rw / PW, bh = rh / PH;
    Mat out(PW, PH, in.c);
    for (int q = 0; q < in.c; q++)
        for (int ph = 0; ph < PH; ph++)
            for (int pw = 0; pw < PW; pw++)
            {
                const int gh = sr > 0 ? sr : (int)std::ceil(version == 0 ? bh : rh / PH);
                const int gw = sr > 0 ? sr : (int)std::ceil(version == 0 ? bw : rw / PW);
                double sum = 0;
                for (int iy = 0; iy < gh; iy++)
                    for (int ix = 0; ix < gw; ix++)
                        sum += interp(in.channel(q), in.w, in.h, x1 + pw * bw + (ix + 0.5) * bw / gw, y1 + ph * bh + (iy + 0.5) * bh / gh);
                ((float*)out.channel(q).data)[ph * PW + pw] = (float)(sum / (gh * gw));
            }
    return out;
}

TEST(ROIAlign, against_naive)
{
    reseed(13);
    for (int iter = 0; iter < 40; iter++)
    {
        const int w = rand_int(5, 16), h = rand_int(5, 16), c = rand_int(1, 4);
        const float scale = rand_int(0, 1) ? 1.f : 0.5f;
        Mat in = RandomMat(w, h, c);
        // feature-space ROI inside [1, size - 2]
        const float fx1 = rand_float(1.f, w / 2.f), fy1 = rand_float(1.f, h / 2.f);
        const float fx2 = rand_float(fx1 + 0.5f, w - 2.f), fy2 = rand_float(fy1 + 0.5f, h - 2.f);
        Mat roi(4);
        roi[0] = fx1 / scale;
        roi[1] = fy1 / scale;
        roi[2] = fx2 / scale;
        roi[3] = fy2 / scale;
        const int PW = rand_int(1, 4), PH = rand_int(1, 4), sr = rand_int(0, 3), version = iter % 2;
        const bool aligned = rand_int(0, 1) == 1;
        ParamDict pd;
        pd.set(0, PW);
        pd.set(1, PH);
        pd.set(2, scale);
        pd.set(3, sr);
        pd.set(4, aligned ? 1 : 0);
        pd.set(5, version);
        std::vector<Mat> out;
        KITE_EXPECT_LAYER_OK(test_layer("ROIAlign", pd, {}, {in, roi}, TestLayerFlags(), &out));
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(compare_mat(out[0], naive(in, roi, PW, PH, scale, sr, aligned, version), 1e-5f), "") << "iter " << iter;
    }
}

TEST(ROIAlign, edges_never_read_out_of_bounds)
{
    // ROIs reaching past the map: no crash, finite values (ncnn reads out of bounds here)
    reseed(14);
    for (int iter = 0; iter < 40; iter++)
    {
        Mat in = RandomMat(rand_int(1, 6), rand_int(1, 6), 2);
        Mat roi = RandomMat(4, -10.f, 20.f);
        ParamDict pd;
        pd.set(0, rand_int(1, 4));
        pd.set(1, rand_int(1, 4));
        pd.set(3, rand_int(0, 3));
        pd.set(4, rand_int(0, 1));
        pd.set(5, iter % 2);
        std::string why;
        std::vector<Mat> out = run_reference("ROIAlign", pd, {}, {in, roi}, &why);
        ASSERT_EQ(out.size(), 1u) << why;
        for (int q = 0; q < out[0].c; q++)
            for (int i = 0; i < out[0].w * out[0].h; i++)
                EXPECT_TRUE(std::isfinite(((const float*)out[0].channel(q).data)[i]));
    }
}

TEST(ROIAlign, bad_params)
{
    ParamDict pd;
    pd.set(0, 2);
    pd.set(1, 2);
    pd.set(5, 2);
    std::string why;
    EXPECT_TRUE(run_reference("ROIAlign", pd, {}, {RandomMat(4, 4, 1), RandomMat(4)}, &why).empty());
}
