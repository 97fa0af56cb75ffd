#include "lstm.h"

#include "log.h"
#include "rnn.h"

#include <climits>
#include <cmath>

namespace kite {

static inline float sigmoidf(float x)
{
    return 1.f / (1.f + expf(-x));
}

LSTM::LSTM()
{
    one_blob_only = false;
    support_inplace = false;
}

int LSTM::load_param(const ParamDict& pd)
{
    num_output = pd.get(PARAM_NUM_OUTPUT, 0);
    weight_data_size = pd.get(PARAM_WEIGHT_DATA_SIZE, 0);
    direction = pd.get(PARAM_DIRECTION, 0);
    hidden_size = pd.get(PARAM_HIDDEN_SIZE, num_output);
    const char* n = name.c_str();
    if (direction < 0 || direction > 2)
    {
        KITE_LOGE("LSTM '%s': direction %d is not 0..2", n, direction);
        return -1;
    }
    const int dirs = direction == 2 ? 2 : 1;
    if (num_output <= 0 || hidden_size <= 0 || weight_data_size <= 0 || weight_data_size % ((long long)dirs * hidden_size * 4) != 0)
    {
        KITE_LOGE("LSTM '%s': weight_data_size %d is not a positive multiple of %d directions x 4 x hidden_size %d", n,
                  weight_data_size, dirs, hidden_size);
        return -1;
    }
    // the recurrent weights (num_output rows) are loaded as one int-sized block
    if ((long long)num_output * hidden_size * 4 * dirs > INT_MAX)
    {
        KITE_LOGE("LSTM '%s': num_output %d x hidden_size %d recurrent weights are too many", n, num_output, hidden_size);
        return -1;
    }
    input_size = weight_data_size / dirs / hidden_size / 4;
    if (pd.get(PARAM_INT8_SCALE_TERM, 0))
    {
        KITE_LOGE("LSTM '%s': int8 weights are not supported by the reference", n);
        return -1;
    }
    return 0;
}

int LSTM::load_model(const ModelBin& mb)
{
    const int dirs = direction == 2 ? 2 : 1;
    weight_xc_data = mb.load(input_size * hidden_size * 4 * dirs, 0);
    if (weight_xc_data.empty())
        return -100;
    bias_c_data = mb.load(hidden_size * 4 * dirs, 0);
    if (bias_c_data.empty())
        return -100;
    weight_hc_data = mb.load(num_output * hidden_size * 4 * dirs, 0);
    if (weight_hc_data.empty())
        return -100;
    if (num_output != hidden_size)
    {
        weight_hr_data = mb.load(hidden_size * num_output * dirs, 0);
        if (weight_hr_data.empty())
            return -100;
    }
    return 0;
}

int LSTM::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    const int dirs = direction == 2 ? 2 : 1;
    const int state_sizes[2] = {num_output, hidden_size};
    std::vector<std::vector<float> > states;
    int ret = recurrent_prepare("LSTM", name.c_str(), bottom_blobs, top_blobs, input_size, dirs, state_sizes, 2, num_output, states, opt);
    if (ret != 0)
        return ret;
    const Mat& x = bottom_blobs[0];
    const int T = x.dims == 2 ? x.h : 1;
    Mat& top = top_blobs[0];
    std::vector<float> H(hidden_size);

    for (int d = 0; d < dirs; d++)
    {
        const bool reverse = direction == 1 || d == 1;
        const float* wxc = (const float*)weight_xc_data + (size_t)d * 4 * hidden_size * input_size;
        const float* bias = (const float*)bias_c_data + (size_t)d * 4 * hidden_size;
        const float* whc = (const float*)weight_hc_data + (size_t)d * 4 * hidden_size * num_output;
        const float* whr = num_output != hidden_size ? (const float*)weight_hr_data + (size_t)d * num_output * hidden_size : nullptr;
        float* h = states[0].data() + (size_t)d * num_output;
        float* c = states[1].data() + (size_t)d * hidden_size;
        for (int step = 0; step < T; step++)
        {
            const int t = reverse ? T - 1 - step : step;
            const float* xt = x.row(t);
            #pragma omp parallel for num_threads(opt.num_threads)
            for (int q = 0; q < hidden_size; q++)
            {
                float g[4];
                for (int k = 0; k < 4; k++)
                {
                    const int row = k * hidden_size + q;
                    float sum = bias[row];
                    const float* wx = wxc + (size_t)row * input_size;
                    for (int i = 0; i < input_size; i++)
                        sum += wx[i] * xt[i];
                    const float* wh = whc + (size_t)row * num_output;
                    for (int i = 0; i < num_output; i++)
                        sum += wh[i] * h[i];
                    g[k] = sum;
                }
                const float I = sigmoidf(g[0]);
                const float F = sigmoidf(g[1]);
                const float O = sigmoidf(g[2]);
                const float G = tanhf(g[3]);
                const float cn = F * c[q] + I * G;
                c[q] = cn;
                H[q] = O * tanhf(cn);
            }
            float* out = top.row(t) + d * num_output;
            if (whr)
            {
                for (int o = 0; o < num_output; o++)
                {
                    float sum = 0.f;
                    const float* wr = whr + (size_t)o * hidden_size;
                    for (int i = 0; i < hidden_size; i++)
                        sum += wr[i] * H[i];
                    h[o] = sum;
                    out[o] = sum;
                }
            }
            else
            {
                for (int q = 0; q < num_output; q++)
                {
                    h[q] = H[q];
                    out[q] = H[q];
                }
            }
        }
    }
    for (size_t s = 1; s < top_blobs.size(); s++)
    {
        float* p = top_blobs[s];
        for (size_t i = 0; i < states[s - 1].size(); i++)
            p[i] = states[s - 1][i];
    }
    return 0;
}

DEFINE_LAYER_CREATOR(LSTM)

} // namespace kite
