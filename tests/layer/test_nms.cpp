// detection::nms_sorted (layer/common/detection_common.h) drops a box at the
// first kept box that suppresses it and, without nan_suppresses, compares
// only kept boxes in the grid cells the box covers. It must keep exactly the
// boxes ncnn's loop keeps (every box against every kept one): checked here on
// random box sets of every size class (dense small boxes, large boxes beyond
// the grid's quarter, touching and identical boxes, zero-area, inverted, NaN
// and infinite corners, huge and tiny extents), both nan_suppresses modes.
#include "common/detection_common.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

using kite::detection::BBox;

static std::vector<int> brute_force(const std::vector<BBox>& boxes, float threshold, bool nan_suppresses)
{
    std::vector<int> picked;
    for (int i = 0; i < (int)boxes.size(); i++)
    {
        bool keep = true;
        const float ai = (boxes[i].xmax - boxes[i].xmin) * (boxes[i].ymax - boxes[i].ymin);
        for (int p : picked)
        {
            const float ap = (boxes[p].xmax - boxes[p].xmin) * (boxes[p].ymax - boxes[p].ymin);
            const float inter = kite::detection::intersection_area(boxes[i], boxes[p]);
            const float iou = inter / (ai + ap - inter);
            if (iou > threshold || (nan_suppresses && iou != iou))
                keep = false;
        }
        if (keep)
            picked.push_back(i);
    }
    return picked;
}

static std::vector<BBox> random_boxes(std::mt19937& rng, int n, int kind)
{
    std::uniform_real_distribution<float> u(0.f, 1.f);
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<BBox> boxes;
    for (int i = 0; i < n; i++)
    {
        // kind 0: small boxes; 1: mixed with large ones; 2: on a lattice (touching,
        // identical); 3: hostile corners; 4: a huge coordinate range
        float size = kind == 1 && u(rng) < 0.3f ? u(rng) : 0.08f * u(rng);
        float x = u(rng), y = u(rng);
        if (kind == 2)
        {
            x = std::floor(x * 8) / 8;
            y = std::floor(y * 8) / 8;
            size = 0.125f * (1 + (i % 3));
        }
        BBox b = {x, y, x + size, y + size * (0.5f + u(rng)), i % 5};
        if (kind == 4)
        {
            b.xmin *= 1e30f;
            b.xmax *= 1e30f;
            if (i % 7 == 0)
                b = {1e-40f, 1e-40f, 2e-40f, 2e-40f, 0};
        }
        if (kind == 3)
        {
            const int t = i % 9;
            if (t == 0)
                b.xmax = b.xmin; // zero area
            if (t == 1)
                std::swap(b.xmin, b.xmax); // inverted
            if (t == 2)
                b.ymin = nan;
            if (t == 3)
                b.xmax = inf;
            if (t == 4)
                b = {-inf, -inf, inf, inf, 0};
            if (t == 5)
                b = {x, y, x, y, 0}; // a point
        }
        boxes.push_back(b);
    }
    return boxes;
}

TEST(Nms, same_boxes_as_every_pair)
{
    int cases = 0;
    for (int kind = 0; kind < 5; kind++)
        for (int n : {0, 1, 63, 64, 200, 1500})
            for (float threshold : {0.f, 0.3f, 0.45f, 0.9f, 1.f})
                for (int nan_suppresses = 0; nan_suppresses < 2; nan_suppresses++)
                {
                    const unsigned seed = 1000u * kind + 7u * n + (unsigned)(threshold * 100) + nan_suppresses;
                    std::mt19937 rng(seed);
                    const std::vector<BBox> boxes = random_boxes(rng, n, kind);
                    std::vector<int> got;
                    kite::detection::nms_sorted(boxes, got, threshold, nan_suppresses != 0);
                    const std::vector<int> want = brute_force(boxes, threshold, nan_suppresses != 0);
                    ASSERT_EQ(got, want) << "kind " << kind << " n " << n << " threshold " << threshold << " nan_suppresses "
                                         << nan_suppresses << " seed " << seed;
                    cases++;
                }
    printf("%d box sets, kept boxes equal to the all-pairs loop\n", cases);
}
