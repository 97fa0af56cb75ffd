#include "testutil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

// Independent tiny implementation of the documented semantics, written as a
// weighted sum over the 4 neighbours in double.
static double sample(const float* p, int w, int h, double x, double y)
{
    if (y < -1 || y > h || x < -1 || x > w)
        return 0;
    x = std::min(std::max(x, 0.0), (double)w - 1);
    y = std::min(std::max(y, 0.0), (double)h - 1);
    double v = 0;
    for (int yy = 0; yy < h; yy++)
        for (int xx = 0; xx < w; xx++)
        {
            const double wx = std::max(0.0, 1 - std::fabs(x - xx));
            const double wy = std::max(0.0, 1 - std::fabs(y - yy));
            v += wx * wy * p[yy * w + xx];
        }
    return v;
}

static Mat naive(const Mat& in, const float* roi, int PW, int PH, float scale, int dim, int sr)
{
    const double sx = roi[0] * scale, sy = roi[1] * scale;
    const double rw = std::max((roi[2] + 1.0) * scale - sx, 0.1), rh = std::max((roi[3] + 1.0) * scale - sy, 0.1);
    const double bw = rw / PW, bh = rh / PH;
    const int gw = sr > 0 ? sr : (int)std::ceil(bw), gh = sr > 0 ? sr : (int)std::ceil(bh);
    Mat out(PW, PH, dim);
    for (int k = 0; k < dim; k++)
        for (int ph = 0; ph < PH; ph++)
            for (int pw = 0; pw < PW; pw++)
            {
                const float* p = in.channel((k * PH + ph) * PW + pw);
                double s = 0;
                for (int iy = 0; iy < gh; iy++)
                    for (int ix = 0; ix < gw; ix++)
                        s += sample(p, in.w, in.h, sx + pw * bw + (ix + 0.5) * bw / gw, sy + ph * bh + (iy + 0.5) * bh / gh);
                ((float*)out.channel(k).data)[ph * PW + pw] = (float)(s / (gw * gh));
            }
    return out;
}

TEST(PSROIAlign, against_naive)
{
    reseed(15);
    for (int iter = 0; iter < 40; iter++)
    {
        const int w = rand_int(2, 12), h = rand_int(2, 12), PW = rand_int(1, 3), PH = rand_int(1, 3), dim = rand_int(1, 3);
        const float scale = rand_int(0, 1) ? 1.f : 0.25f;
        const int sr = rand_int(0, 3);
        Mat in = RandomMat(w, h, dim * PW * PH);
        Mat roi(iter % 3 == 0 ? 5 : 4);
        float* r = roi;
        if (roi.w == 5)
            *r++ = 0.f; // batch index
        r[0] = rand_float(-3.f, w / scale);
        r[1] = rand_float(-3.f, h / scale);
        r[2] = r[0] + rand_float(-1.f, w / scale);
        r[3] = r[1] + rand_float(-1.f, h / scale);
        ParamDict pd;
        pd.set(0, PW);
        pd.set(1, PH);
        pd.set(2, scale);
        pd.set(3, dim);
        pd.set(4, sr);
        std::vector<Mat> out;
        KITE_EXPECT_LAYER_OK(test_layer("PSROIAlign", pd, {}, {in, roi}, TestLayerFlags(), &out));
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(compare_mat(out[0], naive(in, r, PW, PH, scale, dim, sr), 1e-5f), "") << "iter " << iter;
    }
}

TEST(PSROIAlign, linear_input_gives_bin_centre)
{
    // bilinear sampling reproduces a linear function exactly, so with the ROI
    // inside the map every bin equals the function at the bin centre
    const int w = 12, h = 10, PW = 3, PH = 2, dim = 2;
    Mat in(w, h, dim * PW * PH);
    for (int q = 0; q < in.c; q++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                ((float*)in.channel(q).data)[y * w + x] = 0.5f * x - 0.25f * y + q;
    Mat roi(4);
    roi[0] = 2.f;
    roi[1] = 1.5f;
    roi[2] = 8.f;  // end = 9
    roi[3] = 6.5f; // end = 7.5
    ParamDict pd;
    pd.set(0, PW);
    pd.set(1, PH);
    pd.set(2, 1.f);
    pd.set(3, dim);
    pd.set(4, 2);
    std::string why;
    std::vector<Mat> out = run_reference("PSROIAlign", pd, {}, {in, roi}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    for (int k = 0; k < dim; k++)
        for (int ph = 0; ph < PH; ph++)
            for (int pw = 0; pw < PW; pw++)
            {
                const float cx = 2.f + (pw + 0.5f) * 7.f / PW, cy = 1.5f + (ph + 0.5f) * 6.f / PH;
                const int q = (k * PH + ph) * PW + pw;
                EXPECT_NEAR(((const float*)out[0].channel(k).data)[ph * PW + pw], 0.5f * cx - 0.25f * cy + q, 1e-5);
            }
}

TEST(PSROIAlign, bad_input)
{
    ParamDict pd;
    pd.set(0, 2);
    pd.set(1, 2);
    pd.set(3, 1);
    std::string why;
    EXPECT_TRUE(run_reference("PSROIAlign", pd, {}, {RandomMat(5, 5, 3), RandomMat(4)}, &why).empty());  // channels
    EXPECT_TRUE(run_reference("PSROIAlign", pd, {}, {RandomMat(5, 5, 4), RandomMat(3)}, &why).empty());  // roi size
    Mat roi5 = RandomMat(5);
    roi5[0] = 1.f;
    EXPECT_TRUE(run_reference("PSROIAlign", pd, {}, {RandomMat(5, 5, 4), roi5}, &why).empty()); // batch index
    ParamDict zero;
    EXPECT_TRUE(run_reference("PSROIAlign", zero, {}, {RandomMat(5, 5, 4), RandomMat(4)}, &why).empty()); // output_dim 0
}
