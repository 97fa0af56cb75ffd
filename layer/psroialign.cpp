#include "psroialign.h"

#include "common/detection_common.h"
#include "log.h"

#include <algorithm>
#include <cmath>

namespace kite {

PSROIAlign::PSROIAlign()
{
    one_blob_only = false;
    support_inplace = false;
}

int PSROIAlign::load_param(const ParamDict& pd)
{
    pooled_width = pd.get(PARAM_POOLED_WIDTH, 7);
    pooled_height = pd.get(PARAM_POOLED_HEIGHT, 7);
    spatial_scale = pd.get(PARAM_SPATIAL_SCALE, 0.0625f);
    output_dim = pd.get(PARAM_OUTPUT_DIM, 0);
    sampling_ratio = pd.get(PARAM_SAMPLING_RATIO, 0);
    if (pooled_width < 1 || pooled_height < 1 || output_dim < 1)
    {
        KITE_LOGE("PSROIAlign '%s': pooled size %d x %d and output_dim %d must be >= 1", name.c_str(), pooled_width, pooled_height, output_dim);
        return -1;
    }
    if (sampling_ratio < 0)
    {
        KITE_LOGE("PSROIAlign '%s': sampling_ratio (param 4) must be >= 0, got %d", name.c_str(), sampling_ratio);
        return -1;
    }
    return 0;
}

static float sample_bilinear(const float* ptr, int w, int h, float x, float y)
{
    if (y < -1.f || y > h || x < -1.f || x > w)
        return 0.f;
    y = std::max(y, 0.f);
    x = std::max(x, 0.f);
    int y0 = (int)y;
    int x0 = (int)x;
    int y1, x1;
    if (y0 >= h - 1)
    {
        y0 = y1 = h - 1;
        y = (float)y0;
    }
    else
        y1 = y0 + 1;
    if (x0 >= w - 1)
    {
        x0 = x1 = w - 1;
        x = (float)x0;
    }
    else
        x1 = x0 + 1;
    const float ly = y - y0;
    const float lx = x - x0;
    const float hy = 1.f - ly;
    const float hx = 1.f - lx;
    return hy * hx * ptr[y0 * w + x0] + hy * lx * ptr[y0 * w + x1] + ly * hx * ptr[y1 * w + x0] + ly * lx * ptr[y1 * w + x1];
}

int PSROIAlign::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.size() < 2 || top_blobs.empty() || bottom_blobs[0].dims != 3)
    {
        KITE_LOGE("PSROIAlign '%s': needs a dims-3 feature map and an ROI blob", name.c_str());
        return -1;
    }
    const Mat& bottom_blob = bottom_blobs[0];
    const int w = bottom_blob.w;
    const int h = bottom_blob.h;
    if (bottom_blob.c != output_dim * pooled_width * pooled_height)
    {
        KITE_LOGE("PSROIAlign '%s': input has %d channels, expected output_dim * pooled_h * pooled_w = %d", name.c_str(), bottom_blob.c,
                  output_dim * pooled_width * pooled_height);
        return -1;
    }
    const size_t roi_count = detection::contiguous_count(bottom_blobs[1]);
    if (roi_count != 4 && roi_count != 5)
    {
        KITE_LOGE("PSROIAlign '%s': the ROI blob must hold 4 (x1, y1, x2, y2) or 5 (batch, x1, y1, x2, y2) values, has %d", name.c_str(), (int)roi_count);
        return -1;
    }
    const float* roi = bottom_blobs[1];
    if (roi_count == 5)
    {
        if (roi[0] != 0.f)
        {
            KITE_LOGE("PSROIAlign '%s': ROI batch index %g, only batch 0 exists", name.c_str(), roi[0]);
            return -1;
        }
        roi += 1;
    }

    Mat& top_blob = top_blobs[0];
    top_blob.create(pooled_width, pooled_height, output_dim, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;

    const float start_x = roi[0] * spatial_scale;
    const float start_y = roi[1] * spatial_scale;
    const float end_x = (roi[2] + 1.f) * spatial_scale;
    const float end_y = (roi[3] + 1.f) * spatial_scale;
    const float roi_w = std::max(end_x - start_x, 0.1f);
    const float roi_h = std::max(end_y - start_y, 0.1f);
    const float bin_w = roi_w / (float)pooled_width;
    const float bin_h = roi_h / (float)pooled_height;
    const int grid_w = sampling_ratio > 0 ? sampling_ratio : (int)std::ceil(bin_w);
    const int grid_h = sampling_ratio > 0 ? sampling_ratio : (int)std::ceil(bin_h);
    const float count = (float)(grid_w * grid_h);

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int k = 0; k < output_dim; k++)
    {
        float* outptr = top_blob.channel(k);
        for (int ph = 0; ph < pooled_height; ph++)
        {
            for (int pw = 0; pw < pooled_width; pw++)
            {
                const float* ptr = bottom_blob.channel((k * pooled_height + ph) * pooled_width + pw);
                float sum = 0.f;
                for (int iy = 0; iy < grid_h; iy++)
                {
                    const float y = start_y + ph * bin_h + (iy + 0.5f) * bin_h / (float)grid_h;
                    for (int ix = 0; ix < grid_w; ix++)
                    {
                        const float x = start_x + pw * bin_w + (ix + 0.5f) * bin_w / (float)grid_w;
                        sum += sample_bilinear(ptr, w, h, x, y);
                    }
                }
                outptr[pw] = sum / count;
            }
            outptr += pooled_width;
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(PSROIAlign)

} // namespace kite
