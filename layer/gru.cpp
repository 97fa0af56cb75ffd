#include "gru.h"

#include "log.h"
#include "rnn.h"

#include <climits>
#include <cmath>

namespace kite {

static inline float sigmoidf(float x)
{
    return 1.f / (1.f + expf(-x));
}

GRU::GRU()
{
    one_blob_only = false;
    support_inplace = false;
}

int GRU::load_param(const ParamDict& pd)
{
    num_output = pd.get(PARAM_NUM_OUTPUT, 0);
    weight_data_size = pd.get(PARAM_WEIGHT_DATA_SIZE, 0);
    direction = pd.get(PARAM_DIRECTION, 0);
    const char* n = name.c_str();
    if (direction < 0 || direction > 2)
    {
        KITE_LOGE("GRU '%s': direction %d is not 0..2", n, direction);
        return -1;
    }
    const int dirs = direction == 2 ? 2 : 1;
    if (num_output <= 0 || weight_data_size <= 0 || weight_data_size % ((long long)dirs * num_output * 3) != 0)
    {
        KITE_LOGE("GRU '%s': weight_data_size %d is not a positive multiple of %d directions x 3 x num_output %d", n,
                  weight_data_size, dirs, num_output);
        return -1;
    }
    // the recurrent weights (num_output rows) are loaded as one int-sized block
    if ((long long)num_output * num_output * 3 * dirs > INT_MAX)
    {
        KITE_LOGE("GRU '%s': num_output %d: its recurrent weights are too many", n, num_output);
        return -1;
    }
    input_size = weight_data_size / dirs / num_output / 3;
    if (pd.get(PARAM_INT8_SCALE_TERM, 0))
    {
        KITE_LOGE("GRU '%s': int8 weights are not supported by the reference", n);
        return -1;
    }
    return 0;
}

int GRU::load_model(const ModelBin& mb)
{
    const int dirs = direction == 2 ? 2 : 1;
    weight_xc_data = mb.load(input_size * num_output * 3 * dirs, 0);
    if (weight_xc_data.empty())
        return -100;
    bias_c_data = mb.load(num_output * 4 * dirs, 0);
    if (bias_c_data.empty())
        return -100;
    weight_hc_data = mb.load(num_output * num_output * 3 * dirs, 0);
    if (weight_hc_data.empty())
        return -100;
    return 0;
}

int GRU::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    const int dirs = direction == 2 ? 2 : 1;
    std::vector<std::vector<float> > states;
    int ret = recurrent_prepare("GRU", name.c_str(), bottom_blobs, top_blobs, input_size, dirs, &num_output, 1, num_output, states, opt);
    if (ret != 0)
        return ret;
    const Mat& x = bottom_blobs[0];
    const int T = x.dims == 2 ? x.h : 1;
    Mat& top = top_blobs[0];
    std::vector<float> hnew(num_output);
    const int no = num_output;

    for (int d = 0; d < dirs; d++)
    {
        const bool reverse = direction == 1 || d == 1;
        const float* wxc = (const float*)weight_xc_data + (size_t)d * 3 * no * input_size;
        const float* bias = (const float*)bias_c_data + (size_t)d * 4 * no;
        const float* whc = (const float*)weight_hc_data + (size_t)d * 3 * no * no;
        float* h = states[0].data() + (size_t)d * no;
        for (int step = 0; step < T; step++)
        {
            const int t = reverse ? T - 1 - step : step;
            const float* xt = x.row(t);
            #pragma omp parallel for num_threads(opt.num_threads)
            for (int q = 0; q < no; q++)
            {
                float gx[3], gh[3];
                for (int k = 0; k < 3; k++)
                {
                    const int row = k * no + q;
                    float sx = 0.f, sh = 0.f;
                    const float* wx = wxc + (size_t)row * input_size;
                    for (int i = 0; i < input_size; i++)
                        sx += wx[i] * xt[i];
                    const float* wh = whc + (size_t)row * no;
                    for (int i = 0; i < no; i++)
                        sh += wh[i] * h[i];
                    gx[k] = sx;
                    gh[k] = sh;
                }
                const float R = sigmoidf(bias[q] + gx[0] + gh[0]);
                const float U = sigmoidf(bias[no + q] + gx[1] + gh[1]);
                const float N = tanhf(bias[2 * no + q] + gx[2] + R * (bias[3 * no + q] + gh[2]));
                hnew[q] = (1.f - U) * N + U * h[q];
            }
            float* out = top.row(t) + d * no;
            for (int q = 0; q < no; q++)
            {
                h[q] = hnew[q];
                out[q] = hnew[q];
            }
        }
    }
    if (top_blobs.size() > 1)
    {
        float* p = top_blobs[1];
        for (size_t i = 0; i < states[0].size(); i++)
            p[i] = states[0][i];
    }
    return 0;
}

DEFINE_LAYER_CREATOR(GRU)

} // namespace kite
