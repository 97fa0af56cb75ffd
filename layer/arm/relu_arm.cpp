// ReLU for ARM: compiled once per ARM level (neon, arm82) by CMake, which
// defines KITE_ISA_NS and the flags. fp32 and fp16 storage, any elempack;
// fp16 arithmetic on arm82.
#include "relu.h"

#include "arm/unary_arm.h"

namespace kite {
namespace KITE_ISA_NS {

namespace {
struct LeakyOp
{
    static const bool hf8 = true;
    float slope;
    template<class V>
    typename V::T operator()(typename V::T x) const
    {
        return V::select(V::lt(x, V::zero()), V::mul(x, V::set1(slope)), x);
    }
};
} // namespace

class ReLU_arm : public ReLU
{
public:
    ReLU_arm()
    {
        support_packing = true;
        support_fp16_storage = true;
    }

    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override
    {
        unary_inplace(bottom_top_blob, LeakyOp{slope}, opt);
        return 0;
    }
};

DEFINE_LAYER_CREATOR(ReLU_arm)

} // namespace KITE_ISA_NS
} // namespace kite
