"""Constants of the vectorisable math library: polynomial coefficients and the
table that reduces any float argument of sin/cos/tan modulo pi/2.

Polynomials (lowest degree first) are near-minimax fits made with
`mpmath.chebyfit` at 40 digits over the interval named; the fitting error is
the last figure (relative, the functions are about 1 there). They are accurate
to double precision, far beyond what a float result needs (tests/targets/
test_vecmath_consts.py checks each against mpmath):

    EXP2M1   (2^f - 1)/f             f in [-1/2, 1/2]          1.3e-17
    SIN      sin(r)/r   of z = r^2   r in [0, pi/4]            3.1e-18
    COS      cos(r)     of z = r^2   r in [0, pi/4]            4.7e-17
    ATANH    atanh(s)/s of z = s^2   s in [0, 3 - 2 sqrt 2]    1.8e-16
    ATAN     atan(w)/w  of z = w^2   w in [0, tan(pi/8)]       9.6e-16
    ERF      erf(x)/x   of z = x^2   x in [0, 1/2]             6.9e-16
    ERFC     erfc(x) e^(x^2) (1 + x) of t = (x - 5/2)/(x + 5/2),
             x in [1/2, 10.1] (erfc(x) is 0 in float beyond)   2.6e-13

For the double functions (vecmath_double.py), fitted to 1e-18 or better:

    EXPM1_D  (e^r - 1)/r              r in [-ln2/2, ln2/2]
    LOG_D    2 (atanh(s)/s - 1)/s^2   of z = s^2, s in [0, 3 - 2 sqrt 2] (fdlibm's R/z)
    SIN_D    (sin(r)/r - 1)/r^2       of z = r^2, r in [0, pi/4]
    COS_D    (cos(r) - 1 + r^2/2)/r^4 of z = r^2, r in [0, pi/4]
    LOG_DD   2 (atanh(s)/s - 1 - s^2/3)/s^4  of z = s^2 (pow's double-double log)
    ATAN_D   (atan(w)/w - 1)/w^2      of z = w^2, w in [0, tan(pi/8)]

and constants split in a head of few bits (k * head is exact for |k| < 2^20)
and a tail: ln 2, log10(2), pi/2 (three 33-bit heads and a tail, Cody and
Waite's reduction as in fdlibm's __ieee754_rem_pio2), from 50-digit decimals.

`REDUCTION` is Payne and Hanek's method as a table: a finite float is
m * 2^(e - 150) with an integer m < 2^24 and a biased exponent e in [1, 254],
so x * 2/pi mod 4 = m * C[e] mod 4 with C[e] = 2^(e - 150) * 2/pi mod 4.
Each C[e] is split in three doubles (hi, mid, lo): hi and mid hold 29
significant bits each, so m * hi and m * mid are exact in double, and lo the
next 53. The 2/pi behind it is computed here with integers (Machin's formula),
not copied from anywhere.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

EXP2M1 = (0.6931471805599453, 0.24022650695910097, 0.0555041086648216, 0.009618129107606888,
          0.0013333558146416936, 0.0001540353044173605, 1.525273382983612e-05,
          1.321544258792169e-06, 1.0178062445845774e-07, 7.072585949269223e-09,
          4.4549605981865186e-10)
SIN = (1.0, -0.16666666666666616, 0.008333333333320363, -0.000198412698286503,
       2.755731337640013e-06, -2.5050716974102745e-08, 1.5894736651849094e-10)
COS = (1.0, -0.4999999999999925, 0.041666666666472306, -0.0013888888869978658,
       2.4801578538562985e-05, -2.755523388484742e-07, 2.0630454379662294e-09)
ATANH = (1.0000000000000002, 0.3333333333327646, 0.20000000030870807, 0.14285708010553835,
         0.11111717273758953, 0.09060967215607607, 0.08418829985340244)
ATAN = (0.999999999999999, -0.3333333333322143, 0.19999999978392663, -0.14285712661684793,
        0.11111048853751296, -0.09089529956562307, 0.07673535428183285, -0.0650598296717084,
        0.05024762118940128, -0.025316479573776477)

ERF = (1.128379167095512, -0.376126389031482, 0.11283791667965472, -0.026866169686584996,
       0.0052239625135716, -0.0008547030530247074, 0.00011993461301850309,
       -1.3372691582222139e-05)
ERFC = (0.7378222742140782, -0.2470467485173379, 0.07634432680782968, 0.016298433494764713,
        -0.03152225807481073, 0.014383591029750962, -0.0008552406337021638,
        -0.0017530180629642183, 0.00036014046120405, 0.00025121420011773405,
        -6.137081385837726e-05, -4.602660385214486e-05, 7.027876478819815e-06,
        7.601341931756011e-06)
ERFC_SHIFT = 2.5  # t = (x - ERFC_SHIFT)/(x + ERFC_SHIFT)
ERFC_ZERO = 10.1  # erfc(x) rounds to 0 in float above (erfc(10.06) < 2^-150)

EXPM1_D = (1.0, 0.5, 0.16666666666666666, 0.04166666666666669, 0.008333333333333335,
           0.0013888888888871492, 0.00019841269841258246, 2.4801587350957356e-05,
           2.7557319256893495e-06, 2.7557251123307967e-07, 2.5052062992113986e-08,
           2.0921839262515728e-09, 1.6089095126507418e-10)
LOG_D = (0.6666666666666666, 0.3999999999999999, 0.2857142857143541, 0.22222222219844232,
         0.18181818595769064, 0.15384574966460907, 0.13335645841949378, 0.11687962997542156,
         0.1188345239410786)
SIN_D = (-0.16666666666666666, 0.008333333333333331, -0.0001984126984126504,
         2.755731921932058e-06, -2.50521062259944e-08, 1.6058530596645953e-10,
         -7.586636882825159e-13)
COS_D = (0.041666666666666664, -0.0013888888888888887, 2.4801587301584632e-05,
         -2.755731922139249e-07, 2.0876755787492604e-09, -1.1470460319209511e-11,
         4.745838412531023e-14)
LOG_DD = (0.4, 0.2857142857142937, 0.22222222221652765, 0.18181818336099848,
          0.1538459488700718, 0.1333480879881234, 0.11706126464563398, 0.11724327060846747)

LN2 = math.log(2.0)
LOG2E = 1.0 / LN2
LOG10_2 = math.log10(2.0)
LOG2_10 = math.log2(10.0)
LOG10E = math.log10(math.e)
PI = math.pi
PI_2 = math.pi / 2
PI_4 = math.pi / 4
TAN_PI_8 = math.tan(math.pi / 8)
SQRT_HALF_HI = 0x3FE6A09E  # high word of sqrt(1/2) as a double: where log's mantissa starts

def _decimal_ln(x: int) -> Fraction:
    with localcontext() as ctx:
        ctx.prec = 50
        return Fraction(Decimal(x).ln())


def split(value: Fraction, head_bits: int, parts: int = 1) -> tuple[float, ...]:
    """`value` as `parts` heads of `head_bits` significant bits and a rounded tail."""
    out = []
    for _ in range(parts):
        exp = math.frexp(float(value))[1]
        head = Fraction(math.floor(value * 2 ** (head_bits - exp)), 2 ** (head_bits - exp))
        out.append(float(head))
        value -= head
    return (*out, float(value))


LN2_HI, LN2_LO = split(_decimal_ln(2), 32)
LOG10_2_HI, LOG10_2_LO = split(_decimal_ln(2) / _decimal_ln(10), 32)
LN10 = math.log(10.0)
TWO_THIRDS_HI, TWO_THIRDS_LO = split(Fraction(2, 3), 53)
ATAN_D = (-0.3333333333333333, 0.19999999999999804, -0.14285714285659779, 0.11111111105150588,
          -0.09090908753259112, 0.07692296368042296, -0.0666642476020052, 0.05878927554473807,
          -0.05230443640686948, 0.045515447340221615, -0.03456931506332609,
          0.016284375050043393)

_PI_BITS = 600  # bits of pi computed; C[e] uses at most 105 + 111 below the point


def _arctan_inv(n: int, one: int) -> int:
    """arctan(1/n) in fixed point (`one` is 1.0), by its alternating series."""
    total, term, k = 0, one // n, 1
    while term:
        total += term // k if k % 4 == 1 else -(term // k)
        term //= n * n
        k += 2
    return total


def two_over_pi(bits: int = _PI_BITS) -> tuple[int, int]:
    """(N, D) with N / 2^D = 2/pi to within 2^-(bits - 20), from Machin's formula."""
    guard = bits + 16
    one = 1 << guard
    pi = 16 * _arctan_inv(5, one) - 4 * _arctan_inv(239, one)
    return (1 << (2 * guard + 1)) // pi, guard


def _split(n: int, d: int) -> tuple[float, float, float]:
    """N / 2^D (below 4) as hi + mid + lo: 29, 29 and 53 significant bits."""
    top = n.bit_length()
    hi = n >> (top - 29) << (top - 29)
    mid = (n - hi) >> (top - 58) << (top - 58)
    return (math.ldexp(hi, -d), math.ldexp(mid, -d), math.ldexp(n - hi - mid, -d))


def reduction_table() -> list[tuple[float, float, float]]:
    """C[e] = 2^(e - 150) * 2/pi mod 4 for biased float exponents e = 0..255 (0 as 1)."""
    n, d = two_over_pi()
    table = []
    for e in range(256):
        shift = d - (max(e, 1) - 150)  # N / 2^shift = 2^(e - 150) * 2/pi
        table.append(_split(n % (1 << (shift + 2)), shift))
    return table


REDUCTION = reduction_table()


def _pi_over_2() -> Fraction:
    n, d = two_over_pi()
    return Fraction(2 ** d, n)  # 1 / (2/pi), to within 2^-(600 - 21)


PIO2_1, PIO2_2, PIO2_3, PIO2_3T = split(_pi_over_2(), 33, 3)
PI_HI, PI_LO = split(_pi_over_2() * 2, 53)
PI_2_HI, PI_2_LO = split(_pi_over_2(), 53)
PI_4_HI, PI_4_LO = split(_pi_over_2() / 2, 53)
PIO2_LIMIT = 2.0 ** 19 * PI_2  # below: Cody-Waite with |k| < 2^19; above: the C library

