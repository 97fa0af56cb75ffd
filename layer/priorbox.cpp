#include "priorbox.h"

#include "log.h"

#include <algorithm>
#include <cmath>

namespace kite {

PriorBox::PriorBox()
{
    one_blob_only = false;
    support_inplace = false;
    // only the inputs' w and h are read: any layout and storage will do, so
    // the Net hands the (packed) feature map over without converting it
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

// h of a blob whatever its packing (dims 2 pack along h)
static int logical_h(const Mat& m)
{
    return m.dims == 2 ? m.h * m.elempack : m.h;
}

int PriorBox::load_param(const ParamDict& pd)
{
    min_sizes = pd.get(PARAM_MIN_SIZES, Mat());
    max_sizes = pd.get(PARAM_MAX_SIZES, Mat());
    aspect_ratios = pd.get(PARAM_ASPECT_RATIOS, Mat());
    variances[0] = pd.get(PARAM_VARIANCE0, 0.1f);
    variances[1] = pd.get(PARAM_VARIANCE1, 0.1f);
    variances[2] = pd.get(PARAM_VARIANCE2, 0.2f);
    variances[3] = pd.get(PARAM_VARIANCE3, 0.2f);
    flip = pd.get(PARAM_FLIP, 1);
    clip = pd.get(PARAM_CLIP, 0);
    image_width = pd.get(PARAM_IMAGE_WIDTH, 0);
    image_height = pd.get(PARAM_IMAGE_HEIGHT, 0);
    step_width = pd.get(PARAM_STEP_WIDTH, -233.f);
    step_height = pd.get(PARAM_STEP_HEIGHT, -233.f);
    offset = pd.get(PARAM_OFFSET, 0.f);
    step_mmdetection = pd.get(PARAM_STEP_MMDETECTION, 0);
    center_mmdetection = pd.get(PARAM_CENTER_MMDETECTION, 0);

    if (min_sizes.empty() || min_sizes.w < 1)
    {
        KITE_LOGE("PriorBox '%s': min_sizes (param 0) must have at least one value", name.c_str());
        return -1;
    }
    if (!max_sizes.empty() && max_sizes.w != min_sizes.w)
    {
        KITE_LOGE("PriorBox '%s': max_sizes (param 1) has %d values, min_sizes has %d; they must match", name.c_str(), max_sizes.w, min_sizes.w);
        return -1;
    }
    return 0;
}

int PriorBox::forward_mxnet(int w, int h, Mat& top_blob, const Option& opt) const
{
    const float step_w = step_width == -233.f ? 1.f / (float)w : step_width;
    const float step_h = step_height == -233.f ? 1.f / (float)h : step_height;

    const int num_sizes = min_sizes.w;
    const int num_ratios = aspect_ratios.empty() ? 0 : aspect_ratios.w;
    const int num_prior = num_sizes - 1 + num_ratios;
    if (num_prior < 1)
    {
        KITE_LOGE("PriorBox '%s': MXNet style needs at least one size/ratio combination (sizes %d, ratios %d)", name.c_str(), num_sizes, num_ratios);
        return -1;
    }

    top_blob.create(4 * w * h * num_prior, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;

    const float* sizes = min_sizes;
    const float* ratios = aspect_ratios.empty() ? nullptr : (const float*)aspect_ratios;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int i = 0; i < h; i++)
    {
        float* box = (float*)top_blob.data + (size_t)i * w * num_prior * 4;
        float cx = offset * step_w;
        const float cy = offset * step_h + i * step_h;
        for (int j = 0; j < w; j++)
        {
            for (int k = 0; k < num_sizes; k++)
            {
                const float half_w = sizes[k] * h / w / 2;
                const float half_h = sizes[k] / 2;
                box[0] = cx - half_w;
                box[1] = cy - half_h;
                box[2] = cx + half_w;
                box[3] = cy + half_h;
                box += 4;
            }
            for (int p = 1; p < num_ratios; p++)
            {
                const float r = std::sqrt(ratios[p]);
                const float half_w = sizes[0] * h / w * r / 2;
                const float half_h = sizes[0] / r / 2;
                box[0] = cx - half_w;
                box[1] = cy - half_h;
                box[2] = cx + half_w;
                box[3] = cy + half_h;
                box += 4;
            }
            cx += step_w;
        }
    }

    if (clip)
    {
        float* p = top_blob;
        for (int i = 0; i < top_blob.w; i++)
            p[i] = std::min(std::max(p[i], 0.f), 1.f);
    }
    return 0;
}

int PriorBox::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.empty() || bottom_blobs[0].dims < 2 || top_blobs.empty())
    {
        KITE_LOGE("PriorBox '%s': needs a feature map input of dims >= 2", name.c_str());
        return -1;
    }
    const int w = bottom_blobs[0].w;
    const int h = logical_h(bottom_blobs[0]);
    Mat& top_blob = top_blobs[0];

    if (bottom_blobs.size() == 1 && image_width == -233 && image_height == -233 && max_sizes.empty())
        return forward_mxnet(w, h, top_blob, opt);

    int image_w = image_width;
    int image_h = image_height;
    if (image_w == -233 || image_h == -233)
    {
        if (bottom_blobs.size() < 2 || bottom_blobs[1].dims < 2)
        {
            KITE_LOGE("PriorBox '%s': image size -233 needs the image blob (dims >= 2) as second input", name.c_str());
            return -1;
        }
        if (image_w == -233)
            image_w = bottom_blobs[1].w;
        if (image_h == -233)
            image_h = logical_h(bottom_blobs[1]);
    }
    if (image_w <= 0 || image_h <= 0)
    {
        KITE_LOGE("PriorBox '%s': image size %d x %d must be positive (params 9, 10)", name.c_str(), image_w, image_h);
        return -1;
    }

    float step_w = step_width;
    float step_h = step_height;
    if (step_w == -233.f)
        step_w = step_mmdetection ? std::ceil((float)image_w / w) : (float)image_w / w;
    if (step_h == -233.f)
        step_h = step_mmdetection ? std::ceil((float)image_h / h) : (float)image_h / h;

    const int num_min = min_sizes.w;
    const int num_max = max_sizes.empty() ? 0 : max_sizes.w;
    const int num_ar = aspect_ratios.empty() ? 0 : aspect_ratios.w;
    const int num_prior = num_min * num_ar * (flip ? 2 : 1) + num_min + num_max;

    top_blob.create(4 * w * h * num_prior, 2, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;

    const float* mins = min_sizes;
    const float* maxs = num_max ? (const float*)max_sizes : nullptr;
    const float* ars = num_ar ? (const float*)aspect_ratios : nullptr;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int i = 0; i < h; i++)
    {
        float* box = top_blob.row(0) + (size_t)i * w * num_prior * 4;
        float cx = offset * step_w;
        float cy = offset * step_h + i * step_h;
        if (center_mmdetection)
        {
            cx = offset * (step_w - 1);
            cy = offset * (step_h - 1) + i * step_h;
        }

        for (int j = 0; j < w; j++)
        {
            auto put = [&](float bw, float bh) {
                box[0] = (cx - bw * 0.5f) / image_w;
                box[1] = (cy - bh * 0.5f) / image_h;
                box[2] = (cx + bw * 0.5f) / image_w;
                box[3] = (cy + bh * 0.5f) / image_h;
                box += 4;
            };
            for (int k = 0; k < num_min; k++)
            {
                const float min_size = mins[k];
                put(min_size, min_size);
                if (num_max > 0)
                {
                    const float s = std::sqrt(min_size * maxs[k]);
                    put(s, s);
                }
                for (int p = 0; p < num_ar; p++)
                {
                    const float bw = min_size * std::sqrt(ars[p]);
                    const float bh = min_size / std::sqrt(ars[p]);
                    put(bw, bh);
                    if (flip)
                        put(bh, bw);
                }
            }
            cx += step_w;
        }
    }

    if (clip)
    {
        float* p = top_blob.row(0);
        for (int i = 0; i < top_blob.w; i++)
            p[i] = std::min(std::max(p[i], 0.f), 1.f);
    }

    float* var = top_blob.row(1);
    for (int i = 0; i < top_blob.w / 4; i++)
    {
        var[0] = variances[0];
        var[1] = variances[1];
        var[2] = variances[2];
        var[3] = variances[3];
        var += 4;
    }
    return 0;
}

DEFINE_LAYER_CREATOR(PriorBox)

} // namespace kite
