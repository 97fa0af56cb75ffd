#ifndef KITE_LAYER_COMMON_WINOGRAD23_H
#define KITE_LAYER_COMMON_WINOGRAD23_H

// The filter transform of Winograd F(2x2, 3x3) shared by the GPU backends:
// U = G g G^T for every 3x3 filter g of (output o, input c), G = [1 0 0;
// 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1], stored u[((k * O) + o) * C + c] for the
// 16 transform points k = 4 i + j. w holds O x C filters of 9 floats.
// winograd23_transform_filters_range writes only the outputs o0 <= o < o1
// (disjoint ranges may run on different threads).

#include <cstddef>

namespace kite {

static inline void winograd23_transform_filters_range(const float* w, int O, int C, float* u, int o0, int o1)
{
    for (int o = o0; o < o1; o++)
        for (int c = 0; c < C; c++)
        {
            const float* g = w + ((size_t)o * C + c) * 9;
            float t[4][3]; // G g
            for (int j = 0; j < 3; j++)
            {
                t[0][j] = g[j];
                t[1][j] = 0.5f * (g[j] + g[3 + j] + g[6 + j]);
                t[2][j] = 0.5f * (g[j] - g[3 + j] + g[6 + j]);
                t[3][j] = g[6 + j];
            }
            for (int i = 0; i < 4; i++)
            {
                const float r[4] = {t[i][0], 0.5f * (t[i][0] + t[i][1] + t[i][2]), 0.5f * (t[i][0] - t[i][1] + t[i][2]), t[i][2]};
                for (int j = 0; j < 4; j++)
                    u[((size_t)(i * 4 + j) * O + o) * C + c] = r[j];
            }
        }
}

static inline void winograd23_transform_filters(const float* w, int O, int C, float* u)
{
    winograd23_transform_filters_range(w, O, C, u, 0, O);
}

} // namespace kite

#endif // KITE_LAYER_COMMON_WINOGRAD23_H
