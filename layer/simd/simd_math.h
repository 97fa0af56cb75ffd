#ifndef KITE_LAYER_SIMD_MATH_H
#define KITE_LAYER_SIMD_MATH_H

// Vectorised transcendental functions on the VF<N> wrappers (simd_x86.h), one
// template for every width, the scalar VF<1> included (so tails compute the
// same values as the vector body).
//
// Maximum errors measured against double-precision libm by
// tests/layer/test_simd_math.cpp over the ranges below (that test fails if
// any bound is exceeded; rel = |got-want|/|want|, abs = |got-want|):
//
//   function    range                 enforced bound                     measured (all ISAs, widths)
//   exp_ps      x in [-87, 88]        rel 2.0e-7                         rel 1.2e-7
//   log_ps      x in [1e-30, 1e30]    abs 1.5e-7 + rel 2.0e-7            0.29 of the bound
//   tanh_ps     x in [-10, 10]        abs 1.5e-7                         abs 7.5e-8
//   sigmoid_ps  x in [-30, 30]        abs 2.0e-7                         abs 8.8e-8
//   erf_ps      x in [-6, 6]          abs 4.0e-7                         abs 3.1e-7
//   gelu_erf    x in [-8, 8]          abs 4.0e-7 * max(1, |x|)           abs 2.3e-7
//   gelu_tanh   x in [-8, 8]          abs 4.0e-7 * max(1, |x|)           abs 4.7e-7 (one ulp near x = 4)
//
// exp: Cephes polynomial, x clamped to +-88.376 (as ncnn). log: Cephes, 0 ->
// -inf, x < 0 -> NaN, denormal inputs read as the smallest normal. tanh: odd
// polynomial below |x| = 0.625, 1 - 2/(e^2|x| + 1) above. erf: Maclaurin
// series below |x| = 0.5, Abramowitz-Stegun 7.1.26 above.
//
// The test measures and prints the actual figures; the bounds above are what
// it enforces.

#include "simd.h"

namespace kite {
namespace KITE_ISA_NS {
namespace simd {

// 2^n for integer-valued n in [-127, 127], built in the exponent field with
// float arithmetic only ((n + 127) * 2^23 is exact and fits an int32), so
// AVX without AVX2 needs no 256-bit integer ops
template<class V>
static inline typename V::T pow2n_ps(typename V::T n)
{
    return V::f2i_bits(V::mul(V::add(n, V::set1(127.f)), V::set1(8388608.f)));
}

template<class V>
static inline typename V::T exp_ps(typename V::T x)
{
    typedef typename V::T T;
    x = V::min(x, V::set1(88.3762626647949f));
    x = V::max(x, V::set1(-88.3762626647949f));
    // x = n ln2 + r, |r| <= ln2/2, ln2 split in two for exactness
    T fx = V::floor(V::fmadd(x, V::set1(1.44269504088896341f), V::set1(0.5f)));
    x = V::fnmadd(fx, V::set1(0.693359375f), x);
    x = V::fnmadd(fx, V::set1(-2.12194440e-4f), x);
    T z = V::mul(x, x);
    T y = V::set1(1.9875691500E-4f);
    y = V::fmadd(y, x, V::set1(1.3981999507E-3f));
    y = V::fmadd(y, x, V::set1(8.3334519073E-3f));
    y = V::fmadd(y, x, V::set1(4.1665795894E-2f));
    y = V::fmadd(y, x, V::set1(1.6666665459E-1f));
    y = V::fmadd(y, x, V::set1(5.0000001201E-1f));
    y = V::fmadd(y, z, V::add(x, V::set1(1.f)));
    return V::mul(y, pow2n_ps<V>(fx));
}

template<class V>
static inline typename V::T log_ps(typename V::T x)
{
    typedef typename V::T T;
    const T zero = V::zero();
    typename V::M is_zero = V::eq(x, zero);
    typename V::M is_neg = V::lt(x, zero);
    T v = V::max(x, V::bits(0x00800000u)); // smallest normal: denormals are not handled
    // v = m * 2^e, m in [0.5, 1): exponent field read through float conversions
    T e = V::mul(V::i2f_bits(V::and_bits(v, V::bits(0x7f800000u))), V::set1(1.f / 8388608.f));
    e = V::sub(e, V::set1(126.f));
    T m = V::or_bits(V::and_bits(v, V::bits(0x807fffffu)), V::set1(0.5f));
    // m < sqrt(1/2): use 2m and e - 1, so that m - 1 stays in [-0.29, 0.41]
    typename V::M small = V::lt(m, V::set1(0.707106781186547524f));
    e = V::sub(e, V::select(small, V::set1(1.f), zero));
    m = V::sub(V::add(m, V::select(small, m, zero)), V::set1(1.f));
    T z = V::mul(m, m);
    T y = V::set1(7.0376836292E-2f);
    y = V::fmadd(y, m, V::set1(-1.1514610310E-1f));
    y = V::fmadd(y, m, V::set1(1.1676998740E-1f));
    y = V::fmadd(y, m, V::set1(-1.2420140846E-1f));
    y = V::fmadd(y, m, V::set1(1.4249322787E-1f));
    y = V::fmadd(y, m, V::set1(-1.6668057665E-1f));
    y = V::fmadd(y, m, V::set1(2.0000714765E-1f));
    y = V::fmadd(y, m, V::set1(-2.4999993993E-1f));
    y = V::fmadd(y, m, V::set1(3.3333331174E-1f));
    y = V::mul(V::mul(y, m), z);
    y = V::fmadd(e, V::set1(-2.12194440e-4f), y);
    y = V::fnmadd(z, V::set1(0.5f), y);
    T r = V::add(m, y);
    r = V::fmadd(e, V::set1(0.693359375f), r);
    r = V::select(is_zero, V::set1(-INFINITY), r);
    return V::select(is_neg, V::set1(NAN), r);
}

template<class V>
static inline typename V::T sigmoid_ps(typename V::T x)
{
    return V::div(V::set1(1.f), V::add(V::set1(1.f), exp_ps<V>(V::neg(x))));
}

template<class V>
static inline typename V::T tanh_ps(typename V::T x)
{
    typedef typename V::T T;
    T ax = V::min(V::abs(x), V::set1(10.f)); // tanh(10) rounds to 1
    // small |x|: odd polynomial (Cephes tanhf), keeps relative accuracy near 0
    T z = V::mul(x, x);
    T p = V::set1(-5.70498872745E-3f);
    p = V::fmadd(p, z, V::set1(2.06390887954E-2f));
    p = V::fmadd(p, z, V::set1(-5.37397155531E-2f));
    p = V::fmadd(p, z, V::set1(1.33314422036E-1f));
    p = V::fmadd(p, z, V::set1(-3.33332819422E-1f));
    T small = V::fmadd(V::mul(p, z), x, x);
    // large |x|: 1 - 2 / (e^2|x| + 1), sign restored
    T big = V::sub(V::set1(1.f), V::div(V::set1(2.f), V::add(exp_ps<V>(V::add(ax, ax)), V::set1(1.f))));
    big = V::or_bits(big, V::and_bits(x, V::bits(0x80000000u)));
    return V::select(V::lt(ax, V::set1(0.625f)), small, big);
}

template<class V>
static inline typename V::T erf_ps(typename V::T x)
{
    typedef typename V::T T;
    T ax = V::abs(x);
    T t = V::div(V::set1(1.f), V::fmadd(ax, V::set1(0.3275911f), V::set1(1.f)));
    T y = V::set1(1.061405429f);
    y = V::fmadd(y, t, V::set1(-1.453152027f));
    y = V::fmadd(y, t, V::set1(1.421413741f));
    y = V::fmadd(y, t, V::set1(-0.284496736f));
    y = V::fmadd(y, t, V::set1(0.254829592f));
    y = V::mul(y, t);
    y = V::fnmadd(y, exp_ps<V>(V::neg(V::mul(ax, ax))), V::set1(1.f));
    y = V::or_bits(y, V::and_bits(x, V::bits(0x80000000u)));
    // |x| < 0.5: Maclaurin series 2/sqrt(pi) sum (-1)^n x^(2n+1) / (n! (2n+1)),
    // free of the cancellation in 1 - (...) e^-x^2 near 0
    T z = V::mul(x, x);
    T s = V::set1(1.f / 9360.f);
    s = V::fnmadd(s, z, V::set1(1.f / 1320.f));
    s = V::fnmadd(s, z, V::set1(1.f / 216.f));
    s = V::fnmadd(s, z, V::set1(1.f / 42.f));
    s = V::fnmadd(s, z, V::set1(1.f / 10.f));
    s = V::fnmadd(s, z, V::set1(1.f / 3.f));
    s = V::fnmadd(s, z, V::set1(1.f));
    s = V::mul(V::mul(s, x), V::set1(1.12837916709551257f));
    return V::select(V::lt(ax, V::set1(0.5f)), s, y);
}

// 0.5 x (1 + erf(x / sqrt 2))
template<class V>
static inline typename V::T gelu_erf_ps(typename V::T x)
{
    typename V::T e = erf_ps<V>(V::mul(x, V::set1(0.70710678118654752f)));
    return V::mul(V::mul(V::set1(0.5f), x), V::add(V::set1(1.f), e));
}

// 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), computed as
// x / (1 + e^-2u): one exp and one division instead of tanh's exp, division,
// polynomial and select (the sum is >= 1, so nothing cancels; e^-2u saturates
// at e^88.4 for large negative u, where the result is ~x e^2u either way)
template<class V>
static inline typename V::T gelu_tanh_ps(typename V::T x)
{
    typename V::T m2u = V::mul(V::fmadd(V::mul(V::set1(0.044715f), x), V::mul(x, x), x), V::set1(-1.59576912160573072f));
    return V::div(x, V::add(V::set1(1.f), exp_ps<V>(m2u)));
}

} // namespace simd
} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_LAYER_SIMD_MATH_H
