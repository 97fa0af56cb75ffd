#include "yolodetectionoutput.h"

#include "common/detection_common.h"
#include "log.h"

#include <cmath>

namespace kite {

using detection::BBox;

YoloDetectionOutput::YoloDetectionOutput()
{
    one_blob_only = false;
    support_inplace = true;
}

int YoloDetectionOutput::load_param(const ParamDict& pd)
{
    num_class = pd.get(PARAM_NUM_CLASS, 20);
    num_box = pd.get(PARAM_NUM_BOX, 5);
    confidence_threshold = pd.get(PARAM_CONFIDENCE_THRESHOLD, 0.01f);
    nms_threshold = pd.get(PARAM_NMS_THRESHOLD, 0.45f);
    biases = pd.get(PARAM_BIASES, Mat());

    if (num_class < 1 || num_box < 1 || num_class > (1 << 20) || num_box > (1 << 20))
    {
        KITE_LOGE("YoloDetectionOutput '%s': num_class %d and num_box %d must be >= 1", name.c_str(), num_class, num_box);
        return -1;
    }
    if (biases.empty() || biases.w < 2 * num_box)
    {
        KITE_LOGE("YoloDetectionOutput '%s': biases (param 4) must hold 2 * num_box = %d values, has %d", name.c_str(), 2 * num_box, biases.empty() ? 0 : biases.w);
        return -1;
    }
    return 0;
}

int YoloDetectionOutput::forward_inplace(std::vector<Mat>& bottom_top_blobs, const Option& opt) const
{
    if (bottom_top_blobs.empty())
    {
        KITE_LOGE("YoloDetectionOutput '%s': needs at least one input", name.c_str());
        return -1;
    }
    const int channels_per_box = 4 + 1 + num_class;
    for (size_t b = 0; b < bottom_top_blobs.size(); b++)
    {
        const Mat& m = bottom_top_blobs[b];
        if (m.dims != 3 || m.c != num_box * channels_per_box)
        {
            KITE_LOGE("YoloDetectionOutput '%s': input %d must be dims 3 with c = num_box * (5 + num_class) = %d, got dims %d c %d",
                      name.c_str(), (int)b, num_box * channels_per_box, m.dims, m.c);
            return -1;
        }
    }

    std::vector<BBox> all_rects;
    std::vector<float> all_scores;

    for (size_t b = 0; b < bottom_top_blobs.size(); b++)
    {
        Mat& blob = bottom_top_blobs[b];
        const int w = blob.w;
        const int h = blob.h;
        const int size = w * h;

        std::vector<std::vector<BBox> > box_rects(num_box);
        std::vector<std::vector<float> > box_scores(num_box);
        Mat scratch; // per box: the running maximum and sum of every cell
        scratch.create(size, 2 * num_box, 4u, opt.workspace_allocator);
        if (scratch.empty())
            return -100;

        #pragma omp parallel for num_threads(opt.num_threads)
        for (int k = 0; k < num_box; k++)
        {
            const int p = k * channels_per_box;
            const float bias_w = ((const float*)biases)[k * 2];
            const float bias_h = ((const float*)biases)[k * 2 + 1];

            const float* xptr = blob.channel(p);
            const float* yptr = blob.channel(p + 1);
            const float* wptr = blob.channel(p + 2);
            const float* hptr = blob.channel(p + 3);
            const float* objptr = blob.channel(p + 4);

            // softmax over the class channels, in place: plane by plane (contiguous
            // runs; per cell the same operations in the same order as a cell at a time)
            std::vector<float*> cls(num_class);
            for (int q = 0; q < num_class; q++)
                cls[q] = (float*)blob.channel(p + 5 + q).data;
            float* maxv = scratch.row(2 * k);
            float* sum = scratch.row(2 * k + 1);
            for (int i = 0; i < size; i++)
            {
                maxv[i] = cls[0][i];
                sum[i] = 0.f;
            }
            for (int q = 1; q < num_class; q++)
                for (int i = 0; i < size; i++)
                    maxv[i] = std::max(maxv[i], cls[q][i]);
            for (int q = 0; q < num_class; q++)
                for (int i = 0; i < size; i++)
                {
                    cls[q][i] = std::exp(cls[q][i] - maxv[i]);
                    sum[i] += cls[q][i];
                }
            for (int q = 0; q < num_class; q++)
                for (int i = 0; i < size; i++)
                    cls[q][i] /= sum[i];

            for (int i = 0; i < h; i++)
            {
                for (int j = 0; j < w; j++)
                {
                    const int idx = i * w + j;
                    int class_index = 0;
                    float class_score = 0.f;
                    for (int q = 0; q < num_class; q++)
                    {
                        const float s = cls[q][idx];
                        if (s > class_score)
                        {
                            class_index = q;
                            class_score = s;
                        }
                    }
                    const float confidence = detection::sigmoid(objptr[idx]) * class_score;
                    if (confidence >= confidence_threshold)
                    {
                        const float cx = (j + detection::sigmoid(xptr[idx])) / w;
                        const float cy = (i + detection::sigmoid(yptr[idx])) / h;
                        const float bw = std::exp(wptr[idx]) * bias_w / w;
                        const float bh = std::exp(hptr[idx]) * bias_h / h;
                        BBox r = {cx - bw * 0.5f, cy - bh * 0.5f, cx + bw * 0.5f, cy + bh * 0.5f, class_index};
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

    const int num_detected = (int)picked.size();
    if (num_detected == 0)
        return 0; // ncnn: output 0 stays the (softmaxed) first input

    Mat top_blob;
    top_blob.create(6, num_detected, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    for (int i = 0; i < num_detected; i++)
    {
        const BBox& r = all_rects[picked[i]];
        float* out = top_blob.row(i);
        out[0] = r.label + 1.f;
        out[1] = all_scores[picked[i]];
        out[2] = r.xmin;
        out[3] = r.ymin;
        out[4] = r.xmax;
        out[5] = r.ymax;
    }
    bottom_top_blobs[0] = top_blob;
    return 0;
}

DEFINE_LAYER_CREATOR(YoloDetectionOutput)

} // namespace kite
