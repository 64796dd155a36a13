/* oclpy's complex numbers for OpenCL C, with the API of PyOpenCL's
 * pyopencl-complex.h: `cfloat_t` (and `cdouble_t` when the program defines
 * PYOPENCL_DEFINE_CDOUBLE before including this header), and functions
 * named <type>_<op>, e.g. cfloat_mul(a, b), cdouble_log(z).
 *
 * A complex value is a union of two anonymous structs, { x, y } and
 * { real, imag } (both spellings work), laid out like float2/double2
 * without the vector's alignment, so host numpy complex64/complex128 arrays
 * can be passed as buffers of cfloat_t/cdouble_t. Arithmetic operators on
 * these types are not complex arithmetic: use the functions.
 *
 * Written for oclpy (not derived from PyOpenCL's header). Division uses
 * Smith's algorithm (no overflow for large operands), abs uses hypot.
 */
#ifndef OCLPY_COMPLEX_H
#define OCLPY_COMPLEX_H

/* OCLPY_COMPLEX_FUNCTIONS(R, LIMIT, C, T): the functions of complex type T
 * (real type R, function prefix C); LIMIT is R's largest finite value. */
#define OCLPY_COMPLEX_FUNCTIONS(R, LIMIT, C, T) \
inline T C##_new(R re, R im) { T z; z.real = re; z.imag = im; return z; } \
inline T C##_fromreal(R re) { return C##_new(re, (R) 0); } \
inline R C##_real(T z) { return z.real; } \
inline R C##_imag(T z) { return z.imag; } \
inline R C##_abs(T z) { return hypot(z.real, z.imag); } \
inline R C##_abs_squared(T z) { return z.real * z.real + z.imag * z.imag; } \
inline T C##_neg(T z) { return C##_new(-z.real, -z.imag); } \
inline T C##_conj(T z) { return C##_new(z.real, -z.imag); } \
inline T C##_add(T a, T b) { return C##_new(a.real + b.real, a.imag + b.imag); } \
inline T C##_addr(T a, R b) { return C##_new(a.real + b, a.imag); } \
inline T C##_radd(R a, T b) { return C##_new(a + b.real, b.imag); } \
inline T C##_sub(T a, T b) { return C##_new(a.real - b.real, a.imag - b.imag); } \
inline T C##_mul(T a, T b) \
{ return C##_new(a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real); } \
inline T C##_fma(T a, T b, T c) \
{ \
  R re = fma(a.real, b.real, c.real) - a.imag * b.imag; \
  return C##_new(re, fma(a.real, b.imag, fma(a.imag, b.real, c.imag))); \
} \
inline T C##_mulr(T a, R b) { return C##_new(a.real * b, a.imag * b); } \
inline T C##_rmul(R a, T b) { return C##_new(a * b.real, a * b.imag); } \
inline T C##_divider(T a, R b) { return C##_new(a.real / b, a.imag / b); } \
/* Smith's algorithm: divide by the larger component of the divisor. */ \
inline T C##_divide(T n, T d) \
{ \
  if (fabs(d.real) >= fabs(d.imag)) { \
    R t = d.imag / d.real; \
    R s = d.real + d.imag * t; \
    return C##_new((n.real + n.imag * t) / s, (n.imag - n.real * t) / s); \
  } \
  R t = d.real / d.imag; \
  R s = d.real * t + d.imag; \
  return C##_new((n.real * t + n.imag) / s, (n.imag * t - n.real) / s); \
} \
inline T C##_rdivide(R n, T d) { return C##_divide(C##_fromreal(n), d); } \
/* polar(rho, theta) = rho * (cos theta + i sin theta) */ \
inline T C##_oclpy_polar(R rho, R theta) \
{ R c; R s = sincos(theta, &c); return C##_new(rho * c, rho * s); } \
inline T C##_exp(T z) { return C##_oclpy_polar(exp(z.real), z.imag); } \
inline T C##_log(T z) { return C##_new(log(hypot(z.real, z.imag)), atan2(z.imag, z.real)); } \
inline T C##_pow(T a, T b) \
{ \
  R lr = log(hypot(a.real, a.imag)), li = atan2(a.imag, a.real); \
  return C##_oclpy_polar(exp(lr * b.real - li * b.imag), lr * b.imag + li * b.real); \
} \
inline T C##_powr(T a, R b) \
{ return C##_oclpy_polar(exp(log(hypot(a.real, a.imag)) * b), atan2(a.imag, a.real) * b); } \
inline T C##_rpow(R a, T b) \
{ R la = log(a); return C##_oclpy_polar(exp(la * b.real), la * b.imag); } \
/* principal root: the real part is never negative */ \
inline T C##_sqrt(T z) \
{ \
  R m = hypot(z.real, z.imag); \
  if (m == (R) 0) return C##_new((R) 0, z.imag); \
  if (z.real > (R) 0) { \
    R re = sqrt((R) 0.5 * (m + z.real)); \
    return C##_new(re, z.imag / (2 * re)); \
  } \
  R im = copysign(sqrt((R) 0.5 * (m - z.real)), z.imag); \
  return C##_new(z.imag / (2 * im), im); \
} \
inline T C##_sin(T z) \
{ R c; R s = sincos(z.real, &c); return C##_new(s * cosh(z.imag), c * sinh(z.imag)); } \
inline T C##_cos(T z) \
{ R c; R s = sincos(z.real, &c); return C##_new(c * cosh(z.imag), -s * sinh(z.imag)); } \
inline T C##_sinh(T z) \
{ R c; R s = sincos(z.imag, &c); return C##_new(sinh(z.real) * c, cosh(z.real) * s); } \
inline T C##_cosh(T z) \
{ R c; R s = sincos(z.imag, &c); return C##_new(cosh(z.real) * c, sinh(z.real) * s); } \
/* tan z = (sin 2x + i sinh 2y) / (cos 2x + cosh 2y); for large |2y| it is +-i */ \
inline T C##_tan(T z) \
{ \
  R x2 = 2 * z.real, y2 = 2 * z.imag; \
  if (fabs(y2) > log(LIMIT)) return C##_new((R) 0, copysign((R) 1, y2)); \
  R d = cos(x2) + cosh(y2); \
  return C##_new(sin(x2) / d, sinh(y2) / d); \
} \
/* tanh z = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y); for large |2x| it is +-1 */ \
inline T C##_tanh(T z) \
{ \
  R x2 = 2 * z.real, y2 = 2 * z.imag; \
  if (fabs(x2) > log(LIMIT)) return C##_new(copysign((R) 1, x2), (R) 0); \
  R d = cosh(x2) + cos(y2); \
  return C##_new(sinh(x2) / d, sin(y2) / d); \
}

typedef union { struct { float x, y; }; struct { float real, imag; }; } cfloat_t;
OCLPY_COMPLEX_FUNCTIONS(float, FLT_MAX, cfloat, cfloat_t)
#define cfloat_cast(a) cfloat_new((a).real, (a).imag)

#ifdef PYOPENCL_DEFINE_CDOUBLE
#define OCLPY_DEFINE_CDOUBLE 1
#endif
#ifdef OCLPY_DEFINE_CDOUBLE
typedef union { struct { double x, y; }; struct { double real, imag; }; } cdouble_t;
OCLPY_COMPLEX_FUNCTIONS(double, DBL_MAX, cdouble, cdouble_t)
#define cdouble_cast(a) cdouble_new((a).real, (a).imag)
#endif

#endif /* OCLPY_COMPLEX_H */
