// MatMul for the CPU: each batch's product through the packed SGEMM
// (sgemm_cpu.h): A's matrix packed into row panels, B read through strides
// (transB or not) while it is packed. Many batches run side by side on one
// thread each (attention-style products); few batches give the SGEMM all the
// threads. The reference does the shape checks and broadcasting (MatMul::Plan).
#include "matmul.h"

#include "cpu/sgemm_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

class MatMul_cpu : public MatMul
{
protected:
    int run(const Plan& p, const Option& opt) const override
    {
        if (p.M <= 0 || p.N <= 0)
            return 0;
        const int batches = p.bc * p.bd;
        const bool per_batch_threads = batches >= opt.num_threads && opt.num_threads > 1;
        Option inner = opt;
        if (per_batch_threads)
        {
            inner.num_threads = 1;
            inner.workspace_allocator = nullptr; // the pool may be unlocked
        }
        int ret = 0;
        #pragma omp parallel num_threads(per_batch_threads ? opt.num_threads : 1)
        {
            PackedA pa;
            const GemmEpilogue none;
            #pragma omp for schedule(dynamic)
            for (int t = 0; t < batches; t++)
            {
                const int ci = t / p.bd, di = t % p.bd;
                const float* bp = p.b_at(ci, di);
                if (!pack_a(MatView{p.a_at(ci, di), (long)p.K, 1}, p.M, p.K, pa))
                {
                    #pragma omp atomic write
                    ret = -100;
                    continue;
                }
                // B(k, n): bp[n * K + k] when transposed, else bp[k * N + n]
                const MatView b = p.b_trans ? MatView{bp, 1, (long)p.K} : MatView{bp, (long)p.N, 1};
                if (sgemm(pa, b, p.N, p.out_at(ci, di), (long)p.N, 1, none, inner) != 0)
                {
                    #pragma omp atomic write
                    ret = -100;
                }
            }
        }
        return ret;
    }
};

DEFINE_LAYER_CREATOR(MatMul_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
