#include "yolov3detectionoutput.h"

#include "common/detection_common.h"
#include "log.h"

#include <cfloat>
#include <cmath>

namespace kite {

using detection::BBox;

Yolov3DetectionOutput::Yolov3DetectionOutput()
{
    one_blob_only = false;
    support_inplace = false;
}

int Yolov3DetectionOutput::load_param(const ParamDict& pd)
{
    num_class = pd.get(PARAM_NUM_CLASS, 20);
    num_box = pd.get(PARAM_NUM_BOX, 5);
    confidence_threshold = pd.get(PARAM_CONFIDENCE_THRESHOLD, 0.01f);
    nms_threshold = pd.get(PARAM_NMS_THRESHOLD, 0.45f);
    biases = pd.get(PARAM_BIASES, Mat());
    mask = pd.get(PARAM_MASK, Mat());
    anchors_scale = pd.get(PARAM_ANCHORS_SCALE, Mat());

    if (num_class < 1 || num_box < 1 || num_class > (1 << 20) || num_box > (1 << 20))
    {
        KITE_LOGE("Yolov3DetectionOutput '%s': num_class %d and num_box %d must be >= 1", name.c_str(), num_class, num_box);
        return -1;
    }
    const int num_biases = biases.empty() ? 0 : biases.w / 2;
    const int num_mask = mask.empty() ? 0 : mask.w;
    if (num_biases < 1)
    {
        KITE_LOGE("Yolov3DetectionOutput '%s': biases (param 4) must hold at least one (w, h) pair", name.c_str());
        return -1;
    }
    for (int i = 0; i < num_mask; i++)
    {
        const float mf = ((const float*)mask)[i];
        if (!(mf >= 0.f && mf < (float)num_biases))
        {
            KITE_LOGE("Yolov3DetectionOutput '%s': mask[%d] = %g is not a bias pair index (0..%d)", name.c_str(), i, mf, num_biases - 1);
            return -1;
        }
    }
    return 0;
}

int Yolov3DetectionOutput::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.empty() || top_blobs.empty())
    {
        KITE_LOGE("Yolov3DetectionOutput '%s': needs at least one input", name.c_str());
        return -1;
    }
    const int num_inputs = (int)bottom_blobs.size();
    const int num_mask = mask.empty() ? 0 : mask.w;
    const int num_scale = anchors_scale.empty() ? 0 : anchors_scale.w;
    if (num_mask < num_inputs * num_box || num_scale < num_inputs)
    {
        KITE_LOGE("Yolov3DetectionOutput '%s': %d inputs need %d mask values (param 5, has %d) and %d anchors_scale values (param 6, has %d)",
                  name.c_str(), num_inputs, num_inputs * num_box, num_mask, num_inputs, num_scale);
        return -1;
    }

    std::vector<BBox> all_rects;
    std::vector<float> all_scores;

    for (int b = 0; b < num_inputs; b++)
    {
        const Mat& blob = bottom_blobs[b];
        const int w = blob.w;
        const int h = blob.h;
        const int channels_per_box = 4 + 1 + num_class;
        if (blob.dims != 3 || blob.c != num_box * channels_per_box)
        {
            KITE_LOGE("Yolov3DetectionOutput '%s': input %d must be dims 3 with c = num_box * (5 + num_class) = %d, got dims %d c %d",
                      name.c_str(), b, num_box * channels_per_box, blob.dims, blob.c);
            return -1;
        }
        const float scale = ((const float*)anchors_scale)[b];
        if (!(scale > 0.f && scale * w < 1e9f && scale * h < 1e9f))
        {
            KITE_LOGE("Yolov3DetectionOutput '%s': anchors_scale[%d] = %g is not a usable scale", name.c_str(), (int)b, scale);
            return -1;
        }
        const int net_w = (int)(scale * w);
        const int net_h = (int)(scale * h);
        // ncnn's x86 build (-ffast-math) turns the divisions by w, h, net_w and
        // net_h into multiplications by hoisted reciprocals and fuses the box
        // centre into the corner expressions, so the corners get one rounding
        // each: xmin = fma(j + sigmoid(x), 1 / w, -bw / 2) with
        // bw = exp(tw) * (bias_w * (1 / net_w)). Mirrored here: a different last
        // bit changes which boxes NMS keeps where boxes touch or degenerate
        // (exp overflow to inf, zero widths), as with saturated logits.
        const float rcp_w = 1.f / (float)w;
        const float rcp_h = 1.f / (float)h;
        const float rcp_net_w = 1.f / (float)net_w;
        const float rcp_net_h = 1.f / (float)net_h;

        std::vector<std::vector<BBox> > box_rects(num_box);
        std::vector<std::vector<float> > box_scores(num_box);

        #pragma omp parallel for num_threads(opt.num_threads)
        for (int k = 0; k < num_box; k++)
        {
            const int p = k * channels_per_box;
            const int bias_index = (int)((const float*)mask)[k + b * num_box];
            const float bias_w = ((const float*)biases)[bias_index * 2];
            const float bias_h = ((const float*)biases)[bias_index * 2 + 1];
            const float anchor_w = bias_w * rcp_net_w;
            const float anchor_h = bias_h * rcp_net_h;

            const float* xptr = blob.channel(p);
            const float* yptr = blob.channel(p + 1);
            const float* wptr = blob.channel(p + 2);
            const float* hptr = blob.channel(p + 3);
            const float* objptr = blob.channel(p + 4);
            std::vector<const float*> cls(num_class);
            for (int q = 0; q < num_class; q++)
                cls[q] = blob.channel(p + 5 + q);

            for (int i = 0; i < h; i++)
            {
                for (int j = 0; j < w; j++)
                {
                    const int idx = i * w + j;
                    // confidence = 1 / fma(e, 1 + exp(-class_score), 1) <= 1 / (1 + e)
                    // (the fma's exact product is at least e, and rounding and 1 / x
                    // are monotone), so a cell whose objectness alone is under the
                    // threshold is skipped before its class scores are read: the
                    // same boxes, bit for bit, without the class loop for most cells
                    const float obj_exp = std::exp(-objptr[idx]);
                    if (1.f / (1.f + obj_exp) < confidence_threshold)
                        continue;
                    int class_index = 0;
                    float class_score = -FLT_MAX;
                    for (int q = 0; q < num_class; q++)
                    {
                        const float s = cls[q][idx];
                        if (s > class_score)
                        {
                            class_index = q;
                            class_score = s;
                        }
                    }

                    // ncnn's expression, see the header; ncnn's x86 build contracts
                    // it to an fma, and near-equal scores only sort the same way
                    // when the rounding is identical
                    const float confidence = 1.f / std::fma(obj_exp, 1.f + std::exp(-class_score), 1.f);
                    if (confidence >= confidence_threshold)
                    {
                        const float tx = (float)j + detection::sigmoid(xptr[idx]);
                        const float ty = (float)i + detection::sigmoid(yptr[idx]);
                        const float half_w = std::exp(wptr[idx]) * anchor_w * 0.5f;
                        const float half_h = std::exp(hptr[idx]) * anchor_h * 0.5f;
                        BBox r = {std::fma(tx, rcp_w, -half_w), std::fma(ty, rcp_h, -half_h), std::fma(tx, rcp_w, half_w),
                                  std::fma(ty, rcp_h, half_h), class_index};
                        box_rects[k].push_back(r);
                        box_scores[k].push_back(confidence);
                    }
                }
            }
        }

        for (int k = 0; k < num_box; k++)
        {
            all_rects.insert(all_rects.end(), box_rects[k].begin(), box_rects[k].end());
            all_scores.insert(all_scores.end(), box_scores[k].begin(), box_scores[k].end());
        }
    }

    detection::sort_descent(all_rects, all_scores);
    std::vector<int> picked;
    detection::nms_sorted(all_rects, picked, nms_threshold);

    Mat& top_blob = top_blobs[0];
    const int num_detected = (int)picked.size();
    if (num_detected == 0)
    {
        // ncnn leaves the output empty and succeeds
        top_blob.release();
        return 0;
    }
    top_blob.create(6, num_detected, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    for (int i = 0; i < num_detected; i++)
    {
        const BBox& r = all_rects[picked[i]];
        float* out = top_blob.row(i);
        out[0] = r.label + 1.f; // class 0 is the background in ncnn's convention
        out[1] = all_scores[picked[i]];
        out[2] = r.xmin;
        out[3] = r.ymin;
        out[4] = r.xmax;
        out[5] = r.ymax;
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Yolov3DetectionOutput)

} // namespace kite
