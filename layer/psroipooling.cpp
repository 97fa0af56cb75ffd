#include "psroipooling.h"

#include "common/detection_common.h"
#include "log.h"

#include <algorithm>
#include <cmath>

namespace kite {

PSROIPooling::PSROIPooling()
{
    one_blob_only = false;
    support_inplace = false;
}

int PSROIPooling::load_param(const ParamDict& pd)
{
    pooled_width = pd.get(PARAM_POOLED_WIDTH, 7);
    pooled_height = pd.get(PARAM_POOLED_HEIGHT, 7);
    spatial_scale = pd.get(PARAM_SPATIAL_SCALE, 0.0625f);
    output_dim = pd.get(PARAM_OUTPUT_DIM, 0);
    if (pooled_width < 1 || pooled_height < 1 || output_dim < 1)
    {
        KITE_LOGE("PSROIPooling '%s': pooled size %d x %d and output_dim %d must be >= 1", name.c_str(), pooled_width, pooled_height, output_dim);
        return -1;
    }
    return 0;
}

int PSROIPooling::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.size() < 2 || top_blobs.empty() || bottom_blobs[0].dims != 3 || detection::contiguous_count(bottom_blobs[1]) < 4)
    {
        KITE_LOGE("PSROIPooling '%s': needs a dims-3 feature map and an ROI blob of 4 values", name.c_str());
        return -1;
    }
    const Mat& bottom_blob = bottom_blobs[0];
    const int w = bottom_blob.w;
    const int h = bottom_blob.h;
    if (bottom_blob.c != output_dim * pooled_width * pooled_height)
    {
        KITE_LOGE("PSROIPooling '%s': input has %d channels, expected output_dim * pooled_h * pooled_w = %d", name.c_str(), bottom_blob.c,
                  output_dim * pooled_width * pooled_height);
        return -1;
    }
    const float* roi = bottom_blobs[1];

    Mat& top_blob = top_blobs[0];
    top_blob.create(pooled_width, pooled_height, output_dim, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;

    const float roi_x1 = std::round(roi[0]) * spatial_scale;
    const float roi_y1 = std::round(roi[1]) * spatial_scale;
    const float roi_x2 = std::round(roi[2] + 1.f) * spatial_scale;
    const float roi_y2 = std::round(roi[3] + 1.f) * spatial_scale;
    const float roi_w = std::max(roi_x2 - roi_x1, 0.1f);
    const float roi_h = std::max(roi_y2 - roi_y1, 0.1f);
    const float bin_w = roi_w / (float)pooled_width;
    const float bin_h = roi_h / (float)pooled_height;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < output_dim; q++)
    {
        float* outptr = top_blob.channel(q);
        for (int ph = 0; ph < pooled_height; ph++)
        {
            for (int pw = 0; pw < pooled_width; pw++)
            {
                const float* ptr = bottom_blob.channel((q * pooled_height + ph) * pooled_width + pw);
                int hstart = (int)std::floor(roi_y1 + ph * bin_h);
                int wstart = (int)std::floor(roi_x1 + pw * bin_w);
                int hend = (int)std::ceil(roi_y1 + (ph + 1) * bin_h);
                int wend = (int)std::ceil(roi_x1 + (pw + 1) * bin_w);
                hstart = std::min(std::max(hstart, 0), h);
                wstart = std::min(std::max(wstart, 0), w);
                hend = std::min(std::max(hend, 0), h);
                wend = std::min(std::max(wend, 0), w);

                const bool is_empty = hend <= hstart || wend <= wstart;
                float sum = 0.f;
                for (int y = hstart; y < hend; y++)
                    for (int x = wstart; x < wend; x++)
                        sum += ptr[y * w + x];
                outptr[pw] = is_empty ? 0.f : sum / (float)((hend - hstart) * (wend - wstart));
            }
            outptr += pooled_width;
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(PSROIPooling)

} // namespace kite
